package costmodel

import (
	"strings"
	"testing"
)

// TestOLMo2AndPhi3Params counts OLMo 2 7B and Phi-3 mini from their
// configs. OLMo 2: allenai/OLMo-2-1124-7B/config.json as mirrored in
// NVIDIA Megatron-Bridge's tests (olmo2_7b_config_dict); full-width q/k
// norms add 4096 + 4096 per layer; 7,298,617,344 parameters, AI2's
// "7B" (7.30B on the checkpoint). Phi-3 mini 4K: hidden 3072, 32 layers
// of 32 heads, FFN 8192, vocab 32064, untied (Abdin et al. 2024,
// arXiv:2404.14219, sec. 2: 3.8B); its fused qkv_proj and gate_up_proj
// hold the same matrices as Llama's, 3,821,079,552 parameters.
func TestOLMo2AndPhi3Params(t *testing.T) {
	for _, tt := range []struct {
		name, cfg string
		want      float64
		sliding   int
	}{
		{"olmo2-7b", `{"architectures": ["Olmo2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
			"eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
			"intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "olmo2",
			"num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "pad_token_id": 100277,
			"rms_norm_eps": 1e-06, "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
			"use_cache": true, "vocab_size": 100352}`, 7_298_617_344, 0},
		{"phi3-mini", `{"model_type": "phi3", "hidden_act": "silu", "hidden_size": 3072, "intermediate_size": 8192,
			"max_position_embeddings": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
			"num_key_value_heads": 32, "sliding_window": 2047, "tie_word_embeddings": false, "vocab_size": 32064}`,
			3_821_079_552, 32},
	} {
		m, err := ParseHFConfig(strings.NewReader(tt.cfg), tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Params().Total; got != tt.want || m.SlidingLayers != tt.sliding {
			t.Errorf("%s: %.0f params, %d sliding layers; want %.0f, %d", tt.name, got, m.SlidingLayers, tt.want, tt.sliding)
		}
	}
}
