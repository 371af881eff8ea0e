package costmodel

import (
	"strings"
	"testing"
)

// TestSlidingWindowByModelType follows transformers' modeling code for
// each model_type: LlamaAttention has no window (a sliding_window key in a
// llama config used to window every layer and cut the KV cache at 32K
// tokens 8x); MistralAttention and MixtralAttention pass
// config.sliding_window on every layer; Qwen2Config windows the layers
// from max_window_layers on only when use_sliding_window is true (its
// default is false); layer_types, where given, names each layer.
func TestSlidingWindowByModelType(t *testing.T) {
	const base = `"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
		"intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768, "sliding_window": 4096`
	for _, tt := range []struct {
		typ, extra string
		layers     int
	}{
		{"llama", "", 0},
		{"mistral", "", 32},
		{"qwen2", "", 0},
		{"qwen2", `, "use_sliding_window": false, "max_window_layers": 28`, 0},
		{"qwen2", `, "use_sliding_window": true, "max_window_layers": 28`, 4},
		{"qwen2", `, "use_sliding_window": true`, 0},
		{"qwen3", `, "use_sliding_window": true, "max_window_layers": 0`, 32},
		{"llama", `, "layer_types": ["sliding_attention", "full_attention"]`, 1},
	} {
		cfg := `{"model_type": "` + tt.typ + `", ` + base + tt.extra + `}`
		m, err := ParseHFConfig(strings.NewReader(cfg), "t")
		if err != nil {
			t.Fatalf("%s%s: %v", tt.typ, tt.extra, err)
		}
		if m.SlidingLayers != tt.layers {
			t.Errorf("%s%s: %d sliding layers, want %d", tt.typ, tt.extra, m.SlidingLayers, tt.layers)
		}
	}
}
