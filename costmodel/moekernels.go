package costmodel

// setExperts fills the expert shape of plan p with the busiest expert
// at f times the balanced load. The etp x ep x edp regrouping of the
// tp x cp x dp GPUs (Megatron-Core's MoE parallel folding) leaves each
// GPU experts/ep local experts of width fe/etp, and the tokens a GPU
// routes are its tp group's tokens x etp/tp; each local expert then
// receives
//
//	tokens per expert = tokens x etp/tp x ep x top-k / experts x f
//
// rows: tokens x top-k / experts for the whole model (Fedus et al. 2021,
// Switch Transformer, sec. 2.2: tokens per expert = tokens x k /
// experts, times the capacity factor), the ep ranks' share landing on
// this GPU's experts.
func (sh *layerShape) setExperts(m *Model, p Plan, f float64) {
	x := m.MoE
	if x == nil {
		return
	}
	etp, ep := float64(max(p.ETP, 1)), float64(max(p.EP, 1))
	sh.expTokens = sh.tokens * etp / sh.tp
	sh.expGroups = float64(x.Experts) / ep
	sh.expRows = sh.expTokens * ep * float64(x.TopK) / float64(x.Experts) * f
	sh.expFFN = float64(x.ExpertFFN) / etp
	sh.expSort = ep > 1 && sh.expGroups > 1
}

// groupedGEMMShare is the share of the dense GEMM curve's speed that a
// grouped expert GEMM reaches on the same tiles: 0.80, fitted on the
// bf16 MoE layer forwards NVIDIA AIConfigurator measured (TRT-LLM's
// fused CUTLASS MoE on H100, H200, B200, GB200 and B300, 4,096 to
// 16,384 tokens; testdata/moe/moe_layers.csv, TestMoELayersAgainstMeasured
// prints the fit). A grouped kernel walks a per-group problem list, sets
// up each expert's operands and reuses less of the L2 across groups than
// one dense product. The fp8 rows stay out of the fit: TRT-LLM quantizes
// the activations inside its permutation kernel, where Transformer
// Engine runs a separate quantize that the planner prices on its own.
const groupedGEMMShare = 0.80

// moeKernels is a mixture-of-experts MLP (Megatron-Core's MoELayer): the
// router over the tokens this GPU routes, the permutation of each
// token's top-k copies to their experts and back (read h, write k·h;
// read k·h, write h), with expert parallelism and several local experts
// the regrouping of the received tokens by local expert after the
// dispatch all-to-all and back before the combine (Megatron-Core
// MoEAlltoAllTokenDispatcher, sort_chunks_by_idxs when
// num_local_experts > 1: read and write k·h each way, and again for the
// gradients in backward), the local experts'
// MLPs as grouped GEMMs (groupedMatmul) of expRows x h by h x fe/etp
// (SwiGLU: gate and up fused, 2fe/etp wide) and back, and the shared
// experts, a dense MLP split over tp.
func (e *Evaluator) moeKernels(q pass, sh layerShape) {
	x, h := e.m.MoE, float64(e.m.Hidden)
	k := float64(x.TopK)
	routed := q
	routed.t = sh.expTokens
	routed.linear(h, float64(x.Experts))
	routed.elementwise(2*h*(1+k), 2*h*(1+k))
	if sh.expSort {
		routed.elementwise(4*h*k, 4*h*k)
	}
	groupedMLPKernels(q, e.m, sh.expGroups, sh.expRows, sh.expFFN, h)
	if x.Shared > 0 {
		before := q.c.fwd
		mlpKernels(q, e.m, float64(x.Shared*x.SharedFFN)/sh.tp, h)
		q.c.mark(ModSharedExperts, before)
	}
}

// groupedMLPKernels is groups experts of inner width f per rank over
// rows tokens each: up (and gate) projection, activation, down.
func groupedMLPKernels(q pass, m *Model, groups, rows, f, h float64) {
	ew := q
	ew.t = groups * rows
	if m.MLP == SwiGLU {
		q.groupedLinear(groups, rows, h, 2*f)
	} else {
		q.groupedLinear(groups, rows, h, f)
	}
	before := q.c.fwd
	if m.MLP == SwiGLU {
		ew.elementwise(3*f*q.r.gluX, 5*f*q.r.gluX)
	} else {
		ew.elementwise(2*f, 3*f)
	}
	q.c.mark(ModMoEAct, before)
	q.groupedLinear(groups, rows, f, h)
}
