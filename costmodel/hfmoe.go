package costmodel

import (
	"encoding/json"
	"fmt"
)

// moeTypes are the model types whose config.json must name its experts.
var moeTypes = map[string]bool{"mixtral": true, "qwen3_moe": true, "deepseek_v3": true, "deepseek_v2": true,
	"gpt_oss": true, "llama4": true, "qwen2_moe": true}

// textConfig replaces a multimodal config's top level by its text_config
// (Llama 4: Llama4ForConditionalGeneration nests the language model's
// dimensions there; the vision encoder is not modelled), keeping the
// top-level model_type.
func (c *hfConfig) textConfig(name string) error {
	if c.ModelType != "llama4" || len(c.TextConfig) == 0 {
		return nil
	}
	var t hfConfig
	if err := json.Unmarshal(c.TextConfig, &t); err != nil {
		return fmt.Errorf("costmodel: config.json %s: text_config: %w", name, err)
	}
	t.ModelType = c.ModelType
	*c = t
	return nil
}

// sharedAndStep reads the shared experts and the interleaving of MoE and
// dense layers that some families spell their own way:
//
//   - Llama 4 (transformers models/llama4/modeling_llama4.py,
//     Llama4TextMoe): one shared expert of intermediate_size beside the
//     routed ones, and every interleave_moe_layer_step-th layer an MoE
//     layer (the others dense, of intermediate_size_mlp).
//   - Qwen2-MoE (models/qwen2_moe, Qwen2MoeSparseMoeBlock): one shared
//     expert of shared_expert_intermediate_size with a sigmoid gate
//     (a 1 x h linear), and every decoder_sparse_step-th layer an MoE
//     layer.
//
// moe_layer_freq other than 1 and mlp_only_layers are not modelled.
func (r *reader) sharedAndStep(e *MoE) {
	c := r.c
	switch c.ModelType {
	case "llama4":
		e.Shared, e.SharedFFN = 1, e.ExpertFFN
		e.Step = opt(c.InterleaveMoEStep, 1)
	case "qwen2_moe":
		if f := opt(c.SharedExpertFFN, 0); f > 0 {
			e.Shared, e.SharedFFN, e.SharedGate = 1, f, true
		}
		e.Step = opt(c.DecoderSparseStep, 1)
	}
	if opt(c.MoELayerFreq, 1) != 1 || len(c.MLPOnlyLayers) > 0 || c.ModelType != "qwen2_moe" && opt(c.DecoderSparseStep, 1) != 1 {
		r.fail("MoE layers placed by moe_layer_freq, mlp_only_layers or decoder_sparse_step are not modelled here")
	}
}

// llama4 reads Llama 4's attention: queries and keys pass through a
// weightless L2 norm (use_qk_norm: no parameters), and three layers in
// four attend within chunks of attention_chunk_size tokens while every
// fourth is global without RoPE (iRoPE: no_rope_layers). The chunked
// layers are modelled as sliding-window layers of that window, which
// bounds their keys and KV cache the same way.
func (r *reader) llama4(m *Model) {
	c := r.c
	if c.ModelType != "llama4" {
		return
	}
	if w := opt(c.AttentionChunkSize, 0); w > 0 {
		m.SlidingWindow, m.SlidingLayers = w, m.Layers-m.Layers/4
	}
}
