package costmodel

import (
	"strings"
	"testing"
)

// gemma2Config is google/gemma-2-9b's configuration as transformers
// prints the loaded Gemma2Config (Retruth/deontic,
// nlp_models/gemma2/README.md), less the _name_or_path it adds. No
// verbatim config.json was found (hfconfigs/SOURCES.md).
const gemma2Config = `{"architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
  "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2",
  "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0,
  "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096,
  "sliding_window_size": 4096, "torch_dtype": "bfloat16", "transformers_version": "4.45.2",
  "use_cache": true, "vocab_size": 256000}`

// TestGemma2Config: the config parses to the catalog entry, whose count
// is Gemma 2 9B's published 9,241,705,984 parameters (params_test.go):
// four norms per layer, head_dim 256 (not 3584/16), tied embeddings, and
// 21 of 42 layers on a 4,096-token window (the even ones).
func TestGemma2Config(t *testing.T) {
	m, err := ParseHFConfig(strings.NewReader(gemma2Config), "gemma2-9b")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := LookupModel("gemma2-9b")
	m.Source = c.Source
	if *m != *c {
		t.Errorf("parsed %+v\ncatalog %+v", *m, *c)
	}
	if got := m.Params().Total; got != 9_241_705_984 {
		t.Errorf("params %.0f, want 9,241,705,984", got)
	}
}

// TestGemma3Sliding: Gemma 3 windows five layers of six, with q/k norms
// and post-norms; without layer_types the pattern decides.
func TestGemma3Sliding(t *testing.T) {
	cfg := `{"model_type": "gemma3_text", "hidden_size": 1152, "num_hidden_layers": 26, "num_attention_heads": 4,
		"num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 6912, "vocab_size": 262144,
		"max_position_embeddings": 32768, "sliding_window": 512, "sliding_window_pattern": 6,
		"hidden_activation": "gelu_pytorch_tanh"}`
	m, err := ParseHFConfig(strings.NewReader(cfg), "g3")
	if err != nil {
		t.Fatal(err)
	}
	if m.SlidingLayers != 22 || !m.QKNorm || !m.PostNorms || !m.TiedEmbeddings {
		t.Errorf("sliding %d, qk norm %v, post norms %v, tied %v; want 22, true, true, true", m.SlidingLayers, m.QKNorm, m.PostNorms, m.TiedEmbeddings)
	}
	if _, err := ParseHFConfig(strings.NewReader(strings.Replace(cfg, `"head_dim": 256, `, "", 1)), "g3"); err == nil {
		t.Error("a Gemma config without head_dim parsed")
	}
}
