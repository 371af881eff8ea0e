package costmodel

// Parameter counts follow the tensors of the Hugging Face implementations
// (and Megatron-LM's equivalent modules). The counts reproduce the published
// totals exactly for every config in testdata/hf (see params_test.go):
// Llama 3.1 8B 8,030,261,248; 70B 70,553,706,496; 405B 405,853,388,800.
//
// Every function takes the tensor-parallel degree t and returns the
// parameters one TP rank holds, following Megatron's sharding: column- and
// row-parallel matrices and the biases of column-parallel layers are split t
// ways; norms, row-parallel biases, routers and MLA's down-projections are
// replicated; the vocabulary is split t ways (VocabParallelEmbedding);
// learned position embeddings are replicated.

// Params summarizes a model's parameter count.
type Params struct {
	// Total counts every parameter once (tied embeddings once).
	Total float64 `json:"total"`
	// Active counts the parameters one token passes through: for MoE,
	// only the TopK routed experts of each MoE layer.
	Active float64 `json:"active"`
	// Embedding is the input embedding (and learned positions);
	// OutputLayer the untied output projection (0 when tied).
	Embedding   float64 `json:"embedding"`
	OutputLayer float64 `json:"output_layer"`
}

// Params counts the model's parameters.
func (m *Model) Params() Params {
	moe := m.MoELayers()
	body := m.layersParams(1, m.Layers-moe, moe)
	p := Params{Embedding: m.embeddingParams(1), OutputLayer: m.outputParams(1, false)}
	p.Total = p.Embedding + body + m.finalNormParams() + p.OutputLayer
	p.Active = p.Total
	if m.MoE != nil {
		p.Active -= float64(moe) * float64(m.MoE.Experts-m.MoE.TopK) * m.expertParams(1)
	}
	return p
}

// layersParams is dense dense layers and moe MoE layers on one TP rank.
func (m *Model) layersParams(t, dense, moe int) float64 {
	p := float64(dense) * m.layerParams(t, false)
	if moe > 0 {
		p += float64(moe) * m.layerParams(t, true)
	}
	return p
}

// layerParams is one transformer layer on one TP rank: attention, two
// norms and the MLP (dense or mixture of experts).
func (m *Model) layerParams(t int, moe bool) float64 {
	p := m.attentionParams(t) + float64(m.normsPerLayer())*m.normWidth()
	if moe {
		return p + m.moeParams(t)
	}
	return p + m.mlpParams(m.FFN, t, m.Bias)
}

// normsPerLayer is 2 (before attention and before the MLP), or 4 with
// the post-norms of Gemma 2 and 3.
func (m *Model) normsPerLayer() int {
	if m.PostNorms {
		return 4
	}
	return 2
}

// normWidth is the parameters of one norm over the hidden state.
func (m *Model) normWidth() float64 {
	if m.Norm == LayerNorm {
		return 2 * float64(m.Hidden) // weight and bias
	}
	return float64(m.Hidden)
}

// kvPerRank is the KV heads one TP rank holds: KV heads are split when
// TP divides them and replicated when TP exceeds them (one per rank).
func (m *Model) kvPerRank(t int) float64 {
	return max(float64(m.KVHeads)/float64(t), 1)
}

func (m *Model) attentionParams(t int) float64 {
	if m.MLA != nil {
		return m.mlaParams(t)
	}
	h, d, tf := float64(m.Hidden), float64(m.HeadDim), float64(t)
	q := float64(m.Heads) * d / tf
	kv := m.kvPerRank(t) * d
	p := h*(q+2*kv) + q*h // Wq, Wk, Wv, Wo
	if m.Bias || m.QKVBias {
		p += q + 2*kv
	}
	if m.Bias {
		p += h // output projection bias (row-parallel: replicated)
	}
	switch {
	case m.QKNormFull:
		p += q + kv
	case m.QKNorm:
		p += 2 * d
	}
	if m.AttnSinks {
		p += float64(m.Heads) / tf
	}
	return p
}

// mlaParams counts DeepSeek-V3's attention: query down-projection and norm,
// query up-projection, joint KV down-projection (latent plus the shared
// RoPE key), KV norm, KV up-projection and output (DeepSeek-V2 paper,
// arXiv:2405.04434, section 2.1).
func (m *Model) mlaParams(t int) float64 {
	a, h, tf := m.MLA, float64(m.Hidden), float64(t)
	heads := float64(m.Heads) / tf
	qk := float64(a.QKNopeDim + a.QKRopeDim)
	var p float64
	if a.QLoRARank > 0 {
		qr := float64(a.QLoRARank)
		p += h*qr + qr + qr*heads*qk
	} else {
		p += h * heads * qk
	}
	kr := float64(a.KVLoRARank)
	p += h*(kr+float64(a.QKRopeDim)) + kr
	p += kr * heads * float64(a.QKNopeDim+a.VDim)
	p += heads * float64(a.VDim) * h
	return p
}

// mlpParams is a dense MLP of inner width f on one TP rank.
func (m *Model) mlpParams(f, t int, bias bool) float64 {
	h, ff := float64(m.Hidden), float64(f)/float64(t)
	if m.MLP == SwiGLU {
		p := 3 * h * ff
		if bias {
			p += 2*ff + h
		}
		return p
	}
	p := 2 * h * ff
	if bias {
		p += ff + h
	}
	return p
}

// expertParams is one routed expert on one TP rank (experts are split
// t ways as Megatron's expert tensor parallelism does by default).
func (m *Model) expertParams(t int) float64 {
	return m.mlpParams(m.MoE.ExpertFFN, t, m.MoE.ExpertBias)
}

func (m *Model) moeParams(t int) float64 {
	return m.moeSharedParams(t) + float64(m.MoE.Experts)*m.expertParams(t)
}

// moeSharedParams is the part of an MoE MLP outside the routed experts on
// one TP rank: the router (replicated) and the shared experts (split t
// ways like a dense MLP, Megatron-Core's SharedExpertMLP).
func (m *Model) moeSharedParams(t int) float64 {
	e := m.MoE
	router := float64(m.Hidden) * float64(e.Experts)
	if e.RouterBias {
		router += float64(e.Experts)
	}
	if e.Shared > 0 {
		router += float64(e.Shared) * m.mlpParams(e.SharedFFN, t, false)
	}
	if e.SharedGate {
		router += float64(m.Hidden)
	}
	return router
}

// nonExpertLayerParams is one layer on one TP rank without its routed
// experts: what a layer holds outside expert parallelism.
func (m *Model) nonExpertLayerParams(t int, moe bool) float64 {
	if !moe {
		return m.layerParams(t, false)
	}
	return m.attentionParams(t) + float64(m.normsPerLayer())*m.normWidth() + m.moeSharedParams(t)
}

// embeddingParams is the input embedding on one TP rank.
func (m *Model) embeddingParams(t int) float64 {
	p := float64(m.Vocab) * float64(m.Hidden) / float64(t)
	if m.LearnedPositions {
		p += float64(m.MaxSeq) * float64(m.Hidden)
	}
	return p
}

func (m *Model) finalNormParams() float64 { return m.normWidth() }

// outputParams is the output projection on one TP rank. A tied output
// layer adds no parameters to the count, but a pipeline whose last stage
// is not the first holds its own copy (Megatron's shared embedding on the
// last stage), so copyTied asks for that copy.
func (m *Model) outputParams(t int, copyTied bool) float64 {
	if m.TiedEmbeddings && !copyTied {
		return 0
	}
	return float64(m.Vocab) * float64(m.Hidden) / float64(t)
}
