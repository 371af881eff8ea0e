package costmodel

import (
	"strings"
	"testing"
)

// gemma3Config is google/gemma-3-1b-it's config.json as Liwink/gemma-jax
// prints it in models/README.md (a transformers 4.52.4 save of the Hub
// file; no byte-for-byte copy was found, hfconfigs/SOURCES.md).
const gemma3Config = `{
  "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": null, "bos_token_id": 2, "cache_implementation": "hybrid",
  "eos_token_id": [1, 106], "final_logit_softcapping": null, "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "initializer_range": 0.02,
  "intermediate_size": 6912, "max_position_embeddings": 32768, "model_type": "gemma3_text",
  "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0,
  "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
  "torch_dtype": "bfloat16", "transformers_version": "4.52.4", "use_cache": true, "vocab_size": 262144
}`

// TestGemma3Params: Gemma 3 1B has 999,885,952 parameters (keras-team/
// keras-hub keras_hub/src/models/gemma3/gemma3_presets.py, "gemma3_1b"
// and "gemma3_instruct_1b", commit 71453d08; the Hub's safetensors total
// for google/gemma-3-1b-it is the same). transformers' modeling_gemma3.py
// builds them so: the embedding tied to the output (Gemma3TextConfig's
// tie_word_embeddings defaults to true, and the config sets none), q_proj
// of 4 x 256 and k/v of 1 x 256 from hidden 1152 (head_dim given, not
// 1152/4 = 288), q_norm and k_norm of head_dim, four RMSNorms per layer
// and the gated MLP; query_pre_attn_scalar only scales the scores and
// the embedding scale sqrt(hidden) is a buffer, neither a parameter.
// Layer i slides when (i+1) % sliding_window_pattern != 0 (Gemma3TextConfig
// layer_types), so 22 of 26 layers use the 512-token window.
func TestGemma3Params(t *testing.T) {
	m, err := ParseHFConfig(strings.NewReader(gemma3Config), "gemma-3-1b-it")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Params().Total; got != 999_885_952 {
		t.Errorf("params %.0f, want 999,885,952", got)
	}
	if m.HeadDim != 256 || !m.TiedEmbeddings || !m.QKNorm || !m.PostNorms || m.SlidingLayers != 22 || m.SlidingWindow != 512 {
		t.Errorf("head_dim %d, tied %v, q/k norm %v, post-norms %v, %d layers on a %d window; want 256, true, true, true, 22 on 512",
			m.HeadDim, m.TiedEmbeddings, m.QKNorm, m.PostNorms, m.SlidingLayers, m.SlidingWindow)
	}
	// An untied Gemma 3 adds the output layer, 262144 x 1152.
	untied, err := ParseHFConfig(strings.NewReader(strings.Replace(gemma3Config, `"vocab_size"`, `"tie_word_embeddings": false, "vocab_size"`, 1)), "g3")
	if err != nil {
		t.Fatal(err)
	}
	if got := untied.Params().Total; got != 999_885_952+262144*1152 {
		t.Errorf("untied params %.0f, want %d", got, 999_885_952+262144*1152)
	}
}
