package costmodel

// The activations a transformer layer saves for its backward pass, tensor
// by tensor, following Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", arXiv:2205.05198, section
// 4.1). For their GPT layer (LayerNorm, GeLU MLP of 4h, dropout, eager
// attention) the list sums to s*b*h*(34 + 5*a*s/h) bytes; for other
// architectures the same list, built from the model's dimensions, gives
// that architecture's constant.

// splitKind says how a saved tensor divides over tensor-parallel ranks.
type splitKind uint8

const (
	// replicated: every TP rank holds the whole tensor (MoE router
	// inputs after the token all-gather, MLA's low-rank latents).
	replicated splitKind = iota
	// seqSplit: the norm and dropout regions, split along the sequence
	// only under sequence parallelism.
	seqSplit
	// tpSplit: inside the tensor-parallel region, split by heads or by
	// FFN columns.
	tpSplit
	// kvSplit: key and value heads, split t ways until each rank holds
	// one head, then replicated.
	kvSplit
	// expertRows: the tokens dispatched to a GPU's experts, t x k x
	// etp/tp rows of width h (actShape.setExperts).
	expertRows
	// expertCols: the experts' MLP intermediates, those rows of width
	// fe/etp: a 1/tp share of the tokens x k x fe (times the busiest
	// expert's load factor).
	expertCols
	// rsSplit: the output of a sequence-parallel reduce-scatter, split
	// t ways; absent without sequence parallelism or tensor
	// parallelism (opSACTensors).
	rsSplit
)

// elemKind is the storage of one element of a saved tensor.
type elemKind uint8

const (
	elemAct  elemKind = iota // activation dtype: 2 bytes (bf16/fp16), 4 in fp32 training
	elemMask                 // dropout mask: 1 byte
	elemFP32                 // fp32 statistics: log-sum-exp, router logits, logits
	// elemLowIn: a linear's input saved only for its weight gradient,
	// in the recipe's SavedInputBytes under a Transformer Engine
	// low-precision recipe, else in the activation dtype.
	elemLowIn
	// elemActLowIn: a linear's input that another op also saves in the
	// activation dtype (FlashAttention's output, the router's input):
	// the activation dtype plus the linear's low-format copy.
	elemActLowIn
)

// tensorSpec is one tensor saved per layer and micro-batch.
type tensorSpec struct {
	name      string
	block     string  // "attention" or "mlp"
	width     float64 // elements per token, before TP splitting
	widthSym  string  // width in the paper's symbols, for formulas
	quadratic bool    // width is per key: multiply by the sequence length
	elem      elemKind
	split     splitKind
	// mods: the Megatron recompute modules that drop the tensor
	// (RecomputeModules; core_attn is Korthikanti et al.'s selective).
	mods RecomputeModules
	// feeds: the matrices whose weight gradient alone needs the tensor
	// (their input); under LoRA a tensor that feeds no adapted matrix is
	// not saved (lorakernels.go).
	feeds LoRATargets
}

// layerTensors lists the saved tensors of one layer of m.
func layerTensors(m *Model, attn Attention, moe, weighted bool) []tensorSpec {
	h := float64(m.Hidden)
	ts := []tensorSpec{
		{name: "attention norm input", block: "attention", width: h, widthSym: "h", split: seqSplit},
		{name: "QKV projection input (norm output)", block: "attention", width: h, widthSym: "h", elem: elemLowIn, split: seqSplit, feeds: TargetQ | TargetK | TargetV | TargetQKV, mods: ModLayerNorm},
	}
	ts = append(ts, qkvTensors(m)...)
	ts = append(ts, coreTensors(m, attn)...)
	// FlashAttention keeps its output for the backward (Dao et al. 2022,
	// algorithm 2: D = rowsum(dO o O)); eager attention does not.
	outElem := elemLowIn
	if attn == Flash {
		outElem = elemActLowIn
	}
	ts = append(ts, tensorSpec{name: "output projection input (attention output)", block: "attention",
		width: float64(m.Heads * m.vHeadDim()), widthSym: "a·dv", elem: outElem, split: tpSplit, feeds: TargetO})
	if m.Dropout {
		ts = append(ts, tensorSpec{name: "attention dropout mask", block: "attention", width: h, widthSym: "h", elem: elemMask, split: seqSplit})
	}
	ts = append(ts,
		tensorSpec{name: "MLP norm input", block: "mlp", width: h, widthSym: "h", split: seqSplit},
		tensorSpec{name: "MLP input (norm output)", block: "mlp", width: h, widthSym: "h", elem: mlpInputElem(m, moe), split: seqSplit, feeds: TargetGate | TargetUp, mods: ModLayerNorm})
	if moe {
		ts = append(ts, moeTensors(m, weighted)...)
	} else {
		ts = append(ts, withMods(mlpTensors(m, float64(m.FFN), "f", "MLP"), ModMLP)...)
	}
	if m.Dropout {
		ts = append(ts, tensorSpec{name: "MLP dropout mask", block: "mlp", width: h, widthSym: "h", elem: elemMask, split: seqSplit})
	}
	return ts
}

// mlpInputElem is how the MLP norm's output is saved: a dense MLP's
// first linear alone keeps it (elemLowIn); in an MoE layer the router,
// a 16-bit linear, keeps it whole, and shared experts add their own
// low-format copy.
func mlpInputElem(m *Model, moe bool) elemKind {
	switch {
	case !moe:
		return elemLowIn
	case m.MoE.Shared > 0:
		return elemActLowIn
	}
	return elemAct
}

// vHeadDim is the width of one head's values (and attention output).
func (m *Model) vHeadDim() int {
	if m.MLA != nil {
		return m.MLA.VDim
	}
	return m.HeadDim
}

// qkvTensors are the queries, keys and values the attention core reads,
// plus what MLA's latents and QK-norm add.
func qkvTensors(m *Model) []tensorSpec {
	if a := m.MLA; a != nil {
		heads := float64(m.Heads)
		qk := float64(a.QKNopeDim + a.QKRopeDim)
		var ts []tensorSpec
		if a.QLoRARank > 0 {
			qr := float64(a.QLoRARank)
			ts = append(ts,
				tensorSpec{name: "query latent (q norm input)", block: "attention", width: qr, widthSym: "r_q", split: replicated},
				tensorSpec{name: "query up-projection input", block: "attention", width: qr, widthSym: "r_q", elem: elemLowIn, split: replicated, mods: ModMLAUpProj})
		}
		kr := float64(a.KVLoRARank)
		return append(ts,
			tensorSpec{name: "KV latent (kv norm input)", block: "attention", width: kr, widthSym: "r_kv", split: replicated},
			tensorSpec{name: "KV up-projection input", block: "attention", width: kr, widthSym: "r_kv", elem: elemLowIn, split: replicated, mods: ModMLAUpProj},
			tensorSpec{name: "queries Q", block: "attention", width: heads * qk, widthSym: "a·dqk", split: tpSplit, mods: ModMLAUpProj},
			tensorSpec{name: "keys K", block: "attention", width: heads * qk, widthSym: "a·dqk", split: tpSplit, mods: ModMLAUpProj},
			tensorSpec{name: "values V", block: "attention", width: heads * float64(a.VDim), widthSym: "a·dv", split: tpSplit, mods: ModMLAUpProj})
	}
	q, kv := float64(m.Heads*m.HeadDim), float64(m.KVHeads*m.HeadDim)
	ts := []tensorSpec{
		{name: "queries Q", block: "attention", width: q, widthSym: "a·d", split: tpSplit},
		{name: "keys K", block: "attention", width: kv, widthSym: "kv·d", split: kvSplit},
		{name: "values V", block: "attention", width: kv, widthSym: "kv·d", split: kvSplit},
	}
	if m.QKNorm {
		ts = append(ts,
			tensorSpec{name: "query norm input", block: "attention", width: q, widthSym: "a·d", split: tpSplit},
			tensorSpec{name: "key norm input", block: "attention", width: kv, widthSym: "kv·d", split: kvSplit})
	}
	return ts
}

// coreTensors are what the attention core itself saves. Eager attention
// keeps the softmax output (2as²b), and with dropout its 1-byte mask
// (as²b) and the dropped-out probabilities (2as²b): 5as²b in all.
// FlashAttention recomputes scores in the backward pass and keeps only the
// fp32 log-sum-exp of each query row (Dao et al. 2022, algorithm 2); its
// dropout mask is regenerated from the RNG state.
func coreTensors(m *Model, attn Attention) []tensorSpec {
	a := float64(m.Heads)
	if attn == Flash {
		return []tensorSpec{{name: "softmax log-sum-exp (FlashAttention)", block: "attention", width: a, widthSym: "a",
			elem: elemFP32, split: tpSplit, mods: ModCoreAttn}}
	}
	ts := []tensorSpec{{name: "softmax output", block: "attention", width: a, widthSym: "a", quadratic: true, split: tpSplit, mods: ModCoreAttn}}
	if m.Dropout {
		ts = append(ts,
			tensorSpec{name: "softmax dropout mask", block: "attention", width: a, widthSym: "a", quadratic: true, elem: elemMask, split: tpSplit, mods: ModCoreAttn},
			tensorSpec{name: "softmax dropout output", block: "attention", width: a, widthSym: "a", quadratic: true, split: tpSplit, mods: ModCoreAttn})
	}
	return ts
}

// mlpTensors are a dense MLP of inner width f: GeLU keeps its input and
// output (8sbh each at f = 4h); SwiGLU keeps the gate and up projections'
// output (the SwiGLU input, 2f wide) and the product fed to the down
// projection (f wide).
func mlpTensors(m *Model, f float64, sym, what string) []tensorSpec {
	if m.MLP == SwiGLU {
		return []tensorSpec{
			{name: what + " gate and up projections output", block: "mlp", width: 2 * f, widthSym: "2" + sym, split: tpSplit},
			{name: what + " down projection input", block: "mlp", width: f, widthSym: sym, elem: elemLowIn, split: tpSplit, feeds: TargetDown},
		}
	}
	return []tensorSpec{
		{name: what + " GeLU input", block: "mlp", width: f, widthSym: sym, split: tpSplit},
		{name: what + " GeLU output (down projection input)", block: "mlp", width: f, widthSym: sym, elem: elemLowIn, split: tpSplit, feeds: TargetDown},
	}
}

// moeTensors are a mixture-of-experts MLP as Megatron-Core's MoELayer
// saves it (megatron/core/transformer/moe: router, token dispatcher,
// grouped MLP): the fp32 router logits, the permutation's index map
// (int32 per token and choice), the tokens dispatched to this GPU's
// experts (tokens x top-k x etp/tp rows, dropless, or capacity factor x
// that), the experts' MLP tensors over those rows at width fe/etp, what
// the routing weights need for backward, and the shared experts. A
// combine that weights the expert outputs by the router's probabilities
// keeps those outputs for the probabilities' gradient and the
// probabilities, k per token, for the outputs' (a plain PyTorch MoE;
// Megatron-Core's unfused moe_utils.unpermute, permuted_tokens *
// permuted_probs); with weighted (Assumptions.MoEWeightedActivation) the expert
// activation applies the probabilities instead, as Megatron-Core does
// (moe/experts.py: activation_func_with_probs, the fused
// weighted_bias_swiglu_impl), and the combine is an unweighted sum that
// keeps nothing, so only the permuted probabilities (fp32) are kept.
// With etp = tp and no expert parallelism the dispatched tokens are the
// whole tp group's top-k copies, unsplit, and the intermediates a 1/tp
// share, as before expert parallelism.
func moeTensors(m *Model, weighted bool) []tensorSpec {
	e := m.MoE
	h, k := float64(m.Hidden), float64(e.TopK)
	ts := []tensorSpec{
		{name: "router logits", block: "mlp", width: float64(e.Experts), widthSym: "E", elem: elemFP32, split: seqSplit},
		{name: "token permutation index map (int32)", block: "mlp", width: k, widthSym: "k", elem: elemFP32, split: seqSplit},
		{name: "dispatched tokens (expert inputs, top-k copies)", block: "mlp", width: k * h, widthSym: "k·h", elem: elemLowIn, split: expertRows, feeds: TargetGate | TargetUp},
	}
	for i, t := range mlpTensors(m, k*float64(e.ExpertFFN), "k·fe", "expert") {
		t.split = expertCols
		if i == 1 { // the activation's output, the down projection's input
			t.mods = ModMoEAct
		}
		ts = append(ts, t)
	}
	if weighted {
		ts = append(ts, tensorSpec{name: "routing probabilities (fp32, for the weighted activation)", block: "mlp", width: k, widthSym: "k", elem: elemFP32, split: seqSplit})
	} else {
		ts = append(ts,
			tensorSpec{name: "expert outputs (for the combine)", block: "mlp", width: k * h, widthSym: "k·h", split: seqSplit},
			tensorSpec{name: "routing probabilities (for the combine)", block: "mlp", width: k, widthSym: "k", split: seqSplit})
	}
	if e.Shared > 0 {
		ts = append(ts, withMods(mlpTensors(m, float64(e.Shared*e.SharedFFN), "fs", "shared expert"), ModSharedExperts)...)
	}
	return withMods(ts, ModMoE)
}

// withMods adds the recompute modules mods to every tensor of ts.
func withMods(ts []tensorSpec, mods RecomputeModules) []tensorSpec {
	for i := range ts {
		ts[i].mods |= mods
	}
	return ts
}
