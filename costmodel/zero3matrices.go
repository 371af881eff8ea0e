package costmodel

// DeepSpeed ZeRO-3 as its v0.3 releases of 2021 run it
// (Assumptions.ZeRO3PerMatrix; microsoft/DeepSpeed at v0.3.15,
// deepspeed/runtime/zero/partition_parameters.py and stage3.py):
//
//   - one collective per partitioned weight matrix: _allgather_param
//     gathers each parameter with its own torch.distributed.all_gather and
//     _reduce_scatter_gradient reduces each gradient with its own
//     reduce_scatter (biases and norms, under
//     stage3_param_persistence_threshold = 1e5 elements, stay whole);
//   - in torch.distributed's list form, one tensor view per rank:
//     ProcessGroupNCCL copies each rank's slice out of (all-gather) or
//     into (reduce-scatter) its flat NCCL buffer with one copy per rank
//     on the communication stream, so every call runs dp copy kernels;
//   - sub-modules release their gathered weights after use unless they
//     are used again within stage3_max_reuse_distance = 1e9 parameters
//     (PartitionedParameterCoordinator.release_sub_module), so under full
//     recompute the recomputed forward gathers every matrix again and the
//     backward gathers those whose reuse lies further than that;
//   - the next sub-module's weights are prefetched only while fewer than
//     stage3_max_live_parameters = 1e9 are gathered
//     (prefetch_next_sub_modules): a matrix that follows one of 1e9
//     parameters or more is gathered on demand, with nothing to hide
//     behind.
const (
	dsMaxLiveParams    = 1e9
	dsMaxReuseDistance = 1e9
)

const srcZeRO3v03 = "DeepSpeed v0.3.15 ZeRO-3: per-parameter all_gather and reduce_scatter in list form " +
	"(partition_parameters.py), release after use unless reused within stage3_max_reuse_distance, prefetch below " +
	"stage3_max_live_parameters (stage3.py); ProcessGroupNCCL copies each rank's slice"

// denseMatrices are the weight matrices of one dense layer on one
// tensor-parallel rank, in forward order and in parameters: the fused
// query-key-value projection, the attention output, the MLP input (gate
// and up fused for SwiGLU) and output, as Megatron's GPT lays them out.
func (m *Model) denseMatrices(tp int) [4]float64 {
	h, t := float64(m.Hidden), float64(max(tp, 1))
	q := float64(m.Heads * m.HeadDim)
	kv := float64(m.KVHeads * m.HeadDim)
	in := float64(m.FFN) * h
	if m.MLP == SwiGLU {
		in *= 2
	}
	return [4]float64{h * (q + 2*kv) / t, q * h / t, in / t, float64(m.FFN) * h / t}
}

// onDemandShare is the share of the matrices' parameters gathered on
// demand when they run in order (cyclically, layer after layer): those
// whose predecessor holds dsMaxLiveParams or more.
func onDemandShare(order []float64) float64 {
	var all, demand float64
	for i, n := range order {
		all += n
		if order[(i+len(order)-1)%len(order)] >= dsMaxLiveParams {
			demand += n
		}
	}
	if all <= 0 {
		return 0
	}
	return demand / all
}

// backwardRegather is the share of a layer's parameters the backward
// gathers again after the recomputed forward: matrix j is released when
// the parameters used between its recompute and its backward (itself,
// and the later matrices of the layer twice: their recompute and their
// backward) reach dsMaxReuseDistance.
func backwardRegather(fwd [4]float64) float64 {
	var all, again, later float64
	for j := len(fwd) - 1; j >= 0; j-- {
		all += fwd[j]
		if fwd[j]+2*later >= dsMaxReuseDistance {
			again += fwd[j]
		}
		later += fwd[j]
	}
	if all <= 0 {
		return 0
	}
	return again / all
}

// nameZ3Rec is the recomputed forward's gather of zero3PerMatrix.
const nameZ3Rec = "zero-3: weight all-gather, recompute"

// zero3PerMatrix adds target t's ZeRO-3 traffic as DeepSpeed v0.3 runs
// it (above). With M matrices per layer and L layers, per micro-batch:
//
//	forward    M x L all-gathers of the weights
//	recompute  M x L more under full recompute
//	backward   the regathered share of M x L (all of them without recompute)
//	gradients  M x L reduce-scatters
//
// The bytes are the stage's weights and gradients (embeddings and norms
// included, a few calls' worth) spread over those calls. Each call costs
// the NCCL collective (cost) plus dp copy kernels, each at least the
// fixed time of one kernel launch (the GEMM curve's Launch for the GPU,
// measured in the efficiency package: 2.9 µs on Ampere).
// The forward gathers overlap the forward and the rest the backward and
// recompute, as dpCommOver overlaps them, except the on-demand share
// (onDemandShare), which is exposed whole.
func (e *Evaluator) zero3PerMatrix(in *stepInput, st *stageTime, set *commSet, t dpTarget, layers, fwdWin, bwdWin float64) {
	p, g := in.p, t.g
	fwd := e.m.denseMatrices(p.TP)
	bwd := [4]float64{fwd[3], fwd[2], fwd[1], fwd[0]}
	L := max(layers, 1)
	calls := float64(len(fwd)) * L
	copies := float64(g.size) * in.r.gemm.Launch
	call := func(op Collective, bytes float64) commCost {
		c := e.cost(op, bytes/calls, g)
		c.time += copies
		return c
	}
	w, gr := t.ps.weightBytes(in.sb)/calls, t.ps.trained*in.sb.Grad/calls
	ag, rs := call(AllGather, w*calls), call(ReduceScatter, gr*calls)
	demF, demB := onDemandShare(fwd[:]), onDemandShare(bwd[:])
	tf := calls * ag.time
	hid := tf * (1 - demF)
	st.addComm(set, commItem{name: t.names.z3fwd, kind: CommDPParams, op: AllGather, g: g, msg: w,
		calls: calls, cost: ag, exposed: tf*demF + max(hid-fwdWin, hid/L), overlap: overlapForward, source: srcZeRO3v03}, true, in.m)
	rec, again := 0.0, 1.0
	if p.Recompute == Full {
		rec, again = 1, backwardRegather(fwd)
	}
	parts := [3]struct {
		name               string
		kind               CommKind
		op                 Collective
		msg, calls, demand float64
		cost               commCost
	}{{nameZ3Rec, CommDPParams, AllGather, w, rec * calls, demF, ag}, {t.names.z3bwd, CommDPParams, AllGather, w, again * calls, demB, ag},
		{t.names.z3rs, CommDPGrads, ReduceScatter, gr, calls, 0, rs}}
	var hidden float64
	for _, q := range parts {
		hidden += q.calls * q.cost.time * (1 - q.demand)
	}
	x := max(hidden-bwdWin, hidden/L)
	for _, q := range parts {
		if q.calls <= 0 {
			continue
		}
		tq := q.calls * q.cost.time
		exp := tq * q.demand
		if hidden > 0 {
			exp += x * tq * (1 - q.demand) / hidden
		}
		st.addComm(set, commItem{name: q.name, kind: q.kind, op: q.op, g: g, msg: q.msg, calls: q.calls,
			cost: q.cost, exposed: exp, overlap: overlapBackward, source: srcZeRO3v03}, true, in.m)
	}
}
