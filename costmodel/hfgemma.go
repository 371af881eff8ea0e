package costmodel

// Gemma 2 and Gemma 3 (text) as Hugging Face transformers builds them
// (models/gemma2/modeling_gemma2.py, models/gemma3/modeling_gemma3.py):
// a gated MLP like SwiGLU with GELU (tanh) in place of SiLU, so the same
// three matrices; four RMSNorms per layer (input, post-attention,
// pre-feedforward, post-feedforward); head_dim given, not hidden/heads;
// the output layer tied to the embedding unless tie_word_embeddings says
// otherwise; Gemma 3 adds q_norm and k_norm per head. Soft-capping of the
// attention and final logits (Gemma 2's attn_logit_softcapping and
// final_logit_softcapping) is a tanh on the scores: no parameters, no
// stored tensor beyond the scores it caps, and FlashAttention 2.6
// supports it, so it changes neither memory nor the roofline. The
// post-norms' saved inputs are not added to the activation count (two
// bf16 tensors of s x b x h per layer, a few percent of a layer's).

func isGemma(modelType string) bool { return modelType == "gemma2" || modelType == "gemma3_text" }

// gemma sets what Gemma 2 and 3 add to the Llama-style decoder.
func (r *reader) gemma(m *Model) {
	c := r.c
	act := c.HiddenActivation
	if act == "" {
		act = c.HiddenAct
	}
	if act != "" && act != "gelu_pytorch_tanh" && act != "gelu" {
		r.fail("hidden_activation %q (Gemma's gated MLP is modelled with gelu_pytorch_tanh)", act)
	}
	m.PostNorms = true
	m.TiedEmbeddings = optBool(c.TieWordEmbeddings, true)
	m.QKNorm = c.ModelType == "gemma3_text"
	if c.HeadDim == nil {
		r.req("head_dim", nil)
	}
}

// gemmaSlidingLayers counts the sliding-window layers when the config has
// no layer_types: Gemma 2 alternates, sliding on the even layers
// (Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2)); Gemma 3
// slides on every layer but each pattern-th ((i+1) % pattern != 0).
func gemmaSlidingLayers(modelType string, layers, pattern int) int {
	if modelType == "gemma2" {
		return (layers + 1) / 2
	}
	if pattern < 1 {
		return 0
	}
	return layers - layers/pattern
}
