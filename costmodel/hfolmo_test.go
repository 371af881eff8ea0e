package costmodel

import (
	"strings"
	"testing"
)

// TestOLMo2AndPhi3Params counts OLMo 2 and Phi-3 mini from their configs
// and checks the exact totals their checkpoints hold.
//
// OLMo 2 (transformers models/olmo2/modeling_olmo2.py): no input norm,
// post_attention_layernorm and post_feedforward_layernorm instead, and
// q_norm/k_norm over the whole projections (Olmo2RMSNorm of
// num_attention_heads x head_dim and num_key_value_heads x head_dim), so
// 4096 + 4096 more per layer for 7B. 7B: allenai/OLMo-2-1124-7B's
// config.json as NVIDIA Megatron-Bridge's tests mirror it
// (olmo2_7b_config_dict); 13B: huggingface.co/allenai/OLMo-2-1124-13B/
// blob/main/config.json (623 bytes, commit b7add06). The Hub's safetensors
// metadata gives 7,298,617,344 and 13,716,198,400 parameters, all F32
// (allenai/OLMo-2-1124-7B at 7df9a825, -13B at 3fefddc1).
//
// Phi-3 mini 4K (microsoft/Phi-3-mini-4k-instruct config.json): hidden
// 3072, 32 layers of 32 heads, FFN 8192, vocab 32064, untied. Its fused
// qkv_proj (out 3 x 3072) and gate_up_proj (out 2 x 8192) hold the same
// weights as Llama's separate matrices, without biases (transformers
// models/phi3/modeling_phi3.py), and Phi3Attention passes
// config.sliding_window to every layer. 3,821,079,552 parameters:
// keras-team/keras-hub keras_hub/src/models/phi3/phi3_presets.py
// ("phi3_mini_4k_instruct_en", commit 71453d08); the Hub's safetensors
// total, BF16, as maruel/huggingface huggingface_test.go records the
// api/models response.
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
		{"olmo2-13b", `{"architectures": ["Olmo2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
			"eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
			"intermediate_size": 13824, "max_position_embeddings": 4096, "model_type": "olmo2",
			"num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 40, "pad_token_id": 100277,
			"rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 500000, "tie_word_embeddings": false,
			"torch_dtype": "float32", "transformers_version": "4.47.0", "use_cache": true, "vocab_size": 100352}`,
			13_716_198_400, 0},
		{"phi3-mini", `{"architectures": ["Phi3ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
			"embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072,
			"initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096,
			"model_type": "phi3", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
			"original_max_position_embeddings": 4096, "pad_token_id": 32000, "resid_pdrop": 0.0,
			"rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047,
			"tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 32064}`,
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
