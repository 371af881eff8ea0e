package costmodel

import (
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/hardware"
)

// DeepSpeed ZeRO-3 as its v0.3 releases of 2021 run it
// (Assumptions.ZeRO3PerMatrix; microsoft/DeepSpeed v0.3.13 to v0.3.16,
// deepspeed/runtime/zero/partition_parameters.py and stage3.py):
//
//   - one collective per partitioned weight matrix: _allgather_param
//     gathers each parameter with its own torch.distributed.all_gather and
//     _reduce_scatter_gradient reduces each gradient with its own
//     reduce_scatter (biases and norms, under
//     stage3_param_persistence_threshold = 1e5 elements, stay whole);
//   - in torch.distributed's list form, one tensor view per rank, made in
//     a Python loop over the world size (flat_tensor.narrow for the
//     gather, param.grad.view(-1).narrow for the reduce-scatter), and
//     ProcessGroupNCCL copies each rank's slice out of (all-gather) or
//     into (reduce-scatter) its flat NCCL buffer with one copy per rank
//     on the communication stream, so every call costs dp host
//     operations and dp copy kernels;
//   - fetch_sub_module waits for the gather it needs with
//     _synchronize_communication, which ends in torch.cuda.synchronize(),
//     and _allgather_param calls torch.cuda.synchronize() before it
//     builds its views: the GPU is idle while the host loops over the
//     ranks, and a collective still in flight (a gradient
//     reduce-scatter) overlaps only the sub-module running when it was
//     issued;
//   - sub-modules release their gathered weights after use unless they
//     are used again within stage3_max_reuse_distance parameters
//     (release_sub_module), so under full recompute the recomputed
//     forward gathers every matrix again and the backward gathers those
//     whose reuse lies further than that;
//   - the next sub-module's weights are prefetched only while fewer than
//     stage3_max_live_parameters are gathered (prefetch_next_sub_modules):
//     a matrix that follows one of that many parameters or more is
//     gathered on demand, with nothing to hide behind (a prefetch issued
//     at a parameter-less sub-module between two matrices, a norm or
//     the softmax, hides behind that small module alone: counted as on
//     demand).
//
// The two limits are those of the ZeRO-3 configuration DeepSpeed
// published with its Megatron-LM integration (DeepSpeedExamples
// 2cd968f2, 2021-03-08, Megatron-LM-v1.1.5-ZeRO3/examples/
// ds_zero_stage_3_config.json: stage3_max_live_parameters and
// stage3_max_reuse_distance 1e8, stage3_prefetch_bucket_size 2.5e7,
// reduce_bucket_size 5e7, overlap_comm and contiguous_gradients on; the
// launch script passes the same 5e7 as --zero-reduce-bucket-size). The
// ZeRO-3 rows of Narayanan et al. 2021 (Table 2) ran DeepSpeed
// integrated in Megatron-LM and state no ZeRO-3 settings; these are
// assumed. The library's own defaults are 1e9 (v0.3.13
// deepspeed/runtime/zero/constants.py).
const (
	dsMaxLiveParams    = 1e8
	dsMaxReuseDistance = 1e8
	dsReduceBucket     = 5e7
)

// dsHostOp is the host time of one eager PyTorch tensor operation on a
// CUDA tensor, the per-rank narrow of DeepSpeed's list-form collectives:
// 3.3 µs, PyTorch's operator micro-benchmark of a view-returning op
// (torch.split, CUDA tensors, "Forward Execution Time (us): 3.333",
// pytorch/pytorch#32194, 2020).
const dsHostOp = 3.3e-6

const srcZeRO3v03 = "DeepSpeed v0.3.13 ZeRO-3: per-parameter all_gather and reduce_scatter in list form " +
	"(partition_parameters.py), release after use unless reused within stage3_max_reuse_distance, prefetch below " +
	"stage3_max_live_parameters, torch.cuda.synchronize() in each fetch (stage3.py); limits 1e8 (DeepSpeedExamples " +
	"Megatron-LM-v1.1.5-ZeRO3 ds_zero_stage_3_config.json); a view and a ProcessGroupNCCL copy per rank, " +
	"3.3 µs of host time an op (pytorch/pytorch#32194)"

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
// included, a few calls' worth) spread over those calls, each call
// costed in list form (listFormCall). The forward gathers overlap the
// forward and the other gathers the backward and recompute, as
// dpCommOver overlaps them, except the on-demand share (onDemandShare),
// which is exposed whole; the reduce-scatters overlap the backward only.
// After the step the persistent norms and biases are gathered again
// (zero3Persist).
func (e *Evaluator) zero3PerMatrix(in *stepInput, st *stageTime, set *commSet, t dpTarget, layers, fwdWin, bwdWin float64) {
	p, g := in.p, t.g
	fwd := e.m.denseMatrices(p.TP)
	bwd := [4]float64{fwd[3], fwd[2], fwd[1], fwd[0]}
	L := max(layers, 1)
	calls := float64(len(fwd)) * L
	call := func(op Collective, bytes float64) commCost {
		return listFormCall(e.cost(op, bytes/calls, g), op, bytes/calls, float64(g.size), in.r)
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
	small, smallMsg, smallCalls := e.persistentGrads(in, g, L)
	parts := [4]struct {
		name               string
		kind               CommKind
		op                 Collective
		msg, calls, demand float64
		cost               commCost
	}{{nameZ3Rec, CommDPParams, AllGather, w, rec * calls, demF, ag}, {t.names.z3bwd, CommDPParams, AllGather, w, again * calls, demB, ag},
		{t.names.z3rs, CommDPGrads, ReduceScatter, gr, calls, 0, rs}, {nameZ3SmallRS, CommDPGrads, ReduceScatter, smallMsg, smallCalls, 0, small}}
	// The gathers that are prefetched hide behind the recompute and the
	// backward; a reduce-scatter only behind the backward of its own
	// matrix, as the next fetch's torch.cuda.synchronize() waits for it.
	var hidden float64
	for _, q := range parts[:2] {
		hidden += q.calls * q.cost.time * (1 - q.demand)
	}
	tRS := parts[2].calls*parts[2].cost.time + parts[3].calls*parts[3].cost.time
	xRS := max(tRS-st.bwd.total()*(L-1)/L, tRS/L)
	x := max(hidden-max(bwdWin-(tRS-xRS), 0), hidden/L)
	for i, q := range parts {
		if q.calls <= 0 {
			continue
		}
		tq := q.calls * q.cost.time
		exp := tq * q.demand
		if i >= 2 {
			exp = xRS * tq / tRS
		} else if hidden > 0 {
			exp += x * tq * (1 - q.demand) / hidden
		}
		st.addComm(set, commItem{name: q.name, kind: q.kind, op: q.op, g: g, msg: q.msg, calls: q.calls,
			cost: q.cost, exposed: exp, overlap: overlapBackward, source: srcZeRO3v03}, true, in.m)
	}
	e.zero3Persist(in, st, set, g, layers)
}

// liveWeights is the most parameters DeepSpeed v0.3 holds gathered at
// once when the matrices run in order (cyclically): the running matrix
// and, while it holds fewer than dsMaxLiveParams, the next one it
// prefetches (prefetch_next_sub_modules).
func liveWeights(order []float64) float64 {
	var most float64
	for i, n := range order {
		live := n
		if n < dsMaxLiveParams {
			live += order[(i+1)%len(order)]
		}
		most = max(most, live)
	}
	return most
}

// matrixGather is ZeRO-3's working set as DeepSpeed v0.3 runs it: the
// gathered weights of liveWeights; in the backward the full 16-bit
// gradient of the matrix being differentiated beside the previous one's,
// held until its reduce-scatter has run (a matrix over reduce_bucket_size
// is reduced from its own gradient, stage3.py
// reduce_independent_p_g_buckets_and_remove_grads; partition_previous_reduced_grads
// frees it at the next bucket); and the two contiguous gradient buckets
// of reduce_bucket_size elements that overlap_comm alternates
// (ipg_buffer):
//
//	W x liveWeights + G x (2 x largest matrix + 2 x dsReduceBucket)
func (e *Evaluator) matrixGather(p Plan, sb StateBytes) hardware.Bytes {
	mats := e.m.denseMatrices(p.TP)
	largest := slices.Max(mats[:])
	return hardware.Bytes(sb.Weight*liveWeights(mats[:]) + sb.Grad*(2*largest+2*dsReduceBucket))
}

// matrixGatherLine itemizes matrixGather.
func (e *Evaluator) matrixGatherLine(s StageMemory, sb StateBytes) Line {
	return Line{Name: "ZeRO-3 gathered matrices and gradients (per matrix, DeepSpeed v0.3)", Group: GroupStates, Bytes: s.GatherBuffers,
		Formula: fmt.Sprintf("%g B x live matrices + %g B x (2 largest matrix gradients + 2 x %.0e-element buckets)", sb.Weight, sb.Grad, dsReduceBucket),
		Source:  srcZeRO3v03}
}

// listFormCall is one DeepSpeed v0.3 collective of s bytes over n ranks
// in torch.distributed's list form (PyTorch 1.8
// torch/lib/c10d/ProcessGroupNCCL.cpp), on the NCCL collective c:
//
//	all-gather      n x t_op + max(c + n x launch, 2n x t_op) + 3s / HBM
//	reduce-scatter  4n x t_op + c + launch + 2s / HBM
//
// The gather's host loop makes one view per rank (narrow) before the
// collective, then ProcessGroupNCCL copies each rank's slice out of its
// flat buffer, one index and one copy_ per rank launched while the
// collective runs and run after it on the GPU, at least one kernel
// launch each (the GEMM curve's Launch: 2.9 µs on Ampere); the buffer
// was zeroed first (torch.zeros) and each slice is read and written
// once. The reduce-scatter's loop makes two (view, narrow) and
// ProcessGroupNCCL copies every slice into its flat buffer (index,
// copy_) before the collective, the host slower than the copies it
// launches. t_op is dsHostOp; HBM the rate of memory-bound kernels.
func listFormCall(c commCost, op Collective, s, n float64, r rates) commCost {
	host := n * dsHostOp
	if op == ReduceScatter {
		c.time += 4*host + r.gemm.Launch + 2*s/r.mem
		return c
	}
	c.time = host + max(c.time+n*r.gemm.Launch, 2*host) + 3*s/r.mem
	return c
}
