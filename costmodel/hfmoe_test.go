package costmodel

import (
	"strings"
	"testing"
)

// The dimensions of DeepSeek-V2, DeepSeek-V2-Lite and Qwen1.5-MoE-A2.7B
// as their config.json files give them (no verbatim copy is vendored:
// hfconfigs/SOURCES.md), with the totals their checkpoints hold:
//
//   - DeepSeek-V2-Lite: 15,706,484,224, what foldl/chatllm.cpp counts on
//     loading DeepSeek-Coder-V2-Lite, whose shapes are V2-Lite's
//     (docs/tool_calling.md, commit 4a4310e1); 2.4B active without the
//     input embedding (DeepSeek-AI 2024, arXiv:2405.04434, appendix B).
//   - DeepSeek-V2: 235.741B, the Hub's count as the Open CN LLM
//     leaderboard records it (huggingface.co/datasets/open-cn-llm-
//     leaderboard/requests, deepseek-ai/DeepSeek-V2_eval_request_False_
//     float16_Original.json, "params": 235.741); 21B active (paper, sec. 1).
//   - Qwen1.5-MoE-A2.7B: 14,315,784,192 (keras-team/keras-hub
//     keras_hub/src/models/qwen_moe/qwen_moe_presets.py, commit 71453d08;
//     chatllm.cpp counts the same on loading it); 2.7B active (Qwen team,
//     "Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated
//     Parameters", 2024).
//
// The counting follows transformers: modeling_deepseek_v2.py (q_proj
// straight from the hidden state when q_lora_rank is null, else q_a_proj,
// q_a_layernorm and q_b_proj; kv_a_proj_with_mqa to kv_lora_rank plus the
// shared RoPE key, kv_a_layernorm, kv_b_proj; the first
// first_k_dense_replace layers dense; n_shared_experts experts of
// moe_intermediate_size beside the routed ones; a bias-free router) and
// modeling_qwen2_moe.py (q/k/v biases; Qwen2MoeSparseMoeBlock's gate,
// experts, shared_expert of shared_expert_intermediate_size and its 1 x h
// shared_expert_gate; layer i sparse when i is not in mlp_only_layers and
// (i+1) % decoder_sparse_step == 0). Published active counts are rounded
// (to 0.1B, 1B for DeepSeek-V2), so they are checked to half a unit,
// DeepSeek-V2-Lite's to a whole one: DeepSeek's activated parameters
// leave out the input embedding (a lookup, no FLOPs; excluded here as
// gpt-oss's model card does), which gives 2.451B, and the paper writes
// 2.4B.
var moeConfigCases = []struct {
	name, json     string
	total, active  float64
	tolTot, tolAct float64
	noEmbedding    bool // the active figure excludes the input embedding
}{
	{"DeepSeek-V2", `{"model_type": "deepseek_v2", "hidden_size": 5120, "num_hidden_layers": 60, "num_attention_heads": 128,
	  "num_key_value_heads": 128, "intermediate_size": 12288, "moe_intermediate_size": 1536, "n_routed_experts": 160,
	  "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1, "kv_lora_rank": 512,
	  "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
	  "max_position_embeddings": 163840, "topk_method": "group_limited_greedy", "tie_word_embeddings": false, "hidden_act": "silu"}`,
		235.741e9, 21e9, 0.0005 / 235.741, 0.5 / 21, true},
	{"DeepSeek-V2-Lite", `{"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27, "num_attention_heads": 16,
	  "num_key_value_heads": 16, "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 64,
	  "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1, "kv_lora_rank": 512,
	  "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
	  "max_position_embeddings": 163840, "topk_method": "greedy", "tie_word_embeddings": false, "hidden_act": "silu"}`,
		15_706_484_224, 2.4e9, 0, 0.1 / 2.4, true},
	{"Qwen1.5-MoE-A2.7B", `{"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
	  "num_key_value_heads": 16, "intermediate_size": 5632, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
	  "num_experts": 60, "num_experts_per_tok": 4, "decoder_sparse_step": 1, "vocab_size": 151936, "max_position_embeddings": 8192,
	  "tie_word_embeddings": false, "hidden_act": "silu"}`,
		14_315_784_192, 2.7e9, 0, 0.05 / 2.7, false},
}

func TestMoEConfigTypesMatchPublished(t *testing.T) {
	for _, c := range moeConfigCases {
		m, err := ParseHFConfig(strings.NewReader(c.json), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := m.Params()
		active := p.Active
		if c.noEmbedding {
			active -= p.Embedding
		}
		if !within(p.Total, c.total, c.tolTot) || !within(active, c.active, c.tolAct) {
			t.Errorf("%s: %.0f total, %.4gB active; published %.0f, %gB", c.name, p.Total, active/1e9, c.total, c.active/1e9)
		}
	}
}

// TestInterleavedMoELayers: decoder_sparse_step 2 makes layers 1, 3, 5,
// ... MoE layers, and the stages count them where they are.
func TestInterleavedMoELayers(t *testing.T) {
	js := strings.Replace(moeConfigCases[2].json, `"decoder_sparse_step": 1`, `"decoder_sparse_step": 2`, 1)
	m, err := ParseHFConfig(strings.NewReader(js), "qwen2-moe-step2")
	if err != nil {
		t.Fatal(err)
	}
	if m.MoELayers() != 12 {
		t.Fatalf("%d MoE layers, want 12 of 24", m.MoELayers())
	}
	p, err := (Plan{PP: 3, VPP: 1}).balanceLayers(24)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		// Stage r holds layers 8r..8r+7, of which 8r+1, 8r+3, 8r+5, 8r+7 are MoE.
		if n, moe := p.stageLayers(m.kinds(), r); n != 8 || moe != 4 {
			t.Errorf("stage %d: %d layers, %d MoE; want 8, 4", r, n, moe)
		}
	}
	k := layerKinds{layers: 48, dense: 0, step: 2}
	if got := k.moe(0, 3); got != 1 {
		t.Errorf("layers [0, 3) with step 2: %d MoE, want 1 (layer 1)", got)
	}
}
