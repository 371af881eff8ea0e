package costmodel

// adapted is a linear layer kk x n of the base with a LoRA adapter when
// the plan targets it.
func (q pass) adapted(kk, n float64, t LoRATargets) {
	q.linear(kk, n)
	q.adapter(kk, n, t)
}

// adapter adds the kernels of a rank-r adapter beside a kk x n base
// matrix when the plan targets it (Hu et al. 2021, sec. 4.1: h = W0 x +
// B A x): forward x·A (t x kk by kk x r) and (xA)·B (r x n); backward
// the data and weight gradients of both, the trained part of the
// backward:
//
//	forward 2·t·r·(kk + n) FLOPs, backward 4·t·r·(kk + n)
func (q pass) adapter(kk, n float64, t LoRATargets) {
	if q.r.loraTargets&t == 0 || q.r.loraRank == 0 {
		return
	}
	r, m := q.r.loraRank, q.t
	q.r.matmul(&q.c.fwd, m, kk, r)
	q.r.matmul(&q.c.fwd, m, r, n)
	q.r.matmul(&q.c.bwd, m, n, r) // data gradient through B
	q.r.matmul(&q.c.bwd, r, m, n) // weight gradient of B
	q.r.matmul(&q.c.bwd, m, r, kk)
	q.r.matmul(&q.c.bwd, kk, m, r)
}

// dequantize is QLoRA's NF4-to-bf16 conversion of a kk x n weight before
// each of its matmuls, forward and backward (Dettmers et al. 2023, sec.
// 3): a memory-bound kernel reading NF4BitsPerParam/8 bytes and writing
// 2 bytes per weight. A bf16 or fp8 base needs none.
func (q pass) dequantize(kk, n float64) {
	if !q.r.nf4 {
		return
	}
	bytes := kk * n * (NF4BitsPerParam()/8 + 2)
	q.r.stream(&q.c.fwd, bytes)
	q.r.stream(&q.c.bwd, bytes)
}

// adaptedFLOPsPerToken is the model FLOPs of one token under LoRA: the
// forward, the backward's data gradients (the base's weight-gradient
// GEMMs, a third of the matmul FLOPs of a backward, are skipped), the
// attention core's backward, and the adapters' forward and backward,
//
//	3·fwd - 2·W_matmul + 6·P_adapters
//
// with W_matmul the active matmul weights and the output layer (the
// frozen weights' gradient FLOPs, 2 per weight), P_adapters per token.
func (e *Evaluator) adaptedFLOPsPerToken(p Plan, fwd float64) float64 {
	m := e.m
	par := m.Params()
	weights := par.Active - par.Embedding - par.OutputLayer - m.finalNormParams() + float64(m.Vocab)*float64(m.Hidden)
	q := p
	q.TP, q.ETP = 1, 1
	adapters := float64(m.Layers-m.MoELayers()) * m.adapterSum(q, false, 0)
	if m.MoELayers() > 0 {
		// A token passes through TopK of the routed experts' adapters.
		adapters += float64(m.MoELayers()) * m.adapterSum(q, true, float64(m.MoE.TopK))
	}
	return 3*fwd - 2*weights + 6*adapters
}
