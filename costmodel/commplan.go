package costmodel

import "math"

// The collectives of one training step, per parallel dimension, and how
// much of each is hidden behind compute. Each function adds the exposed
// time to the stage and records the collective into the set, so the step
// time and the traffic table come from the same numbers.

// Names of the traffic lines.
const (
	nameTPFwd      = "tp: layer outputs, forward"
	nameTPBwd      = "tp: input gradients, backward"
	nameTPRec      = "tp: recompute forward"
	nameTPRegather = "tp: sequence-parallel input re-gather, backward"
	nameTPEmbed    = "tp: embedding output"
	nameTPHead     = "tp: output-layer input gather"
	nameCPFwd      = "cp: K/V ring, forward"
	nameCPBwd      = "cp: K/V and gradient ring, backward"
	nameCPRec      = "cp: K/V ring, recompute"
	nameCPAGFwd    = "cp: K/V all-gather, forward"
	nameCPRSBwd    = "cp: K/V gradient reduce-scatter, backward"
	nameCPAGRec    = "cp: K/V all-gather, recompute"
	namePP         = "pp: stage-boundary activations and gradients"
	namePPGather   = "pp: all-gather after scatter/gather"
	namePPEmbed    = "pp: tied embedding gradients"
	nameDPAR       = "dp: gradient all-reduce"
	nameDPRS       = "dp: gradient reduce-scatter"
	nameDPAG       = "dp: updated weight all-gather"
	nameZ3Fwd      = "zero-3: weight all-gather, forward"
	nameZ3Bwd      = "zero-3: weight all-gather, backward"
	nameZ3RS       = "zero-3: gradient reduce-scatter"

	overlapGEMM     = "layer GEMMs"
	overlapWGrad    = "weight-gradient GEMMs"
	overlapAttn     = "attention kernels"
	overlapBackward = "backward compute"
	overlapForward  = "forward compute"
)

// exposedAfter is the part of a collective of time t that a window of
// compute cannot hide.
func exposedAfter(t, window float64) float64 { return max(t-window, 0) }

// tpLayerComm is one layer's tensor-parallel collectives for one
// micro-batch: two all-reduces of the b x s x h activation per pass, or
// with sequence parallelism an all-gather and a reduce-scatter of the
// same volume in their place (Korthikanti et al. 2022, sec. 4.2.2). They
// are exposed unless TPCommOverlap hides them behind the pass's GEMMs.
func (e *Evaluator) tpLayerComm(in *stepInput) layerComm {
	p := in.p
	var c layerComm
	if p.TP == 1 {
		return c
	}
	g := in.pl.tp
	c.opA, c.perPass = AllReduce, 2
	c.a = e.cost(AllReduce, in.act, g)
	if p.SP {
		c.opA, c.opB = AllGather, ReduceScatter
		c.a, c.b = e.cost(AllGather, in.act*e.tpGatherShare(p), g), e.cost(ReduceScatter, in.act, g)
		c.regather = c.a
	}
	pass := c.perPass * (c.a.time + c.b.time)
	c.fwd, c.bwd = pass, pass
	switch {
	case e.a.TPCommOverlap && e.a.AsyncTP && p.SP:
		c.fwd, c.bwd = e.asyncTPExposed(c, in.dense, p.TP)
	case e.a.TPCommOverlap:
		c.fwd = e.tpExposed(pass, in.dense.fwd.gemm)
		c.bwd = e.tpExposed(pass, in.dense.bwd.gemm)
	}
	if p.Recompute.Checkpointed() {
		// OpSAC saves the reduce-scatter outputs but reruns the
		// all-gathers (and without sp the all-reduces): taken as the
		// whole forward pass, as under full recompute.
		c.rec = c.fwd
	}
	return c
}

// tpGatherShare is the bytes of a tensor-parallel all-gather relative to
// the 16-bit activation: the FP8 input bytes over the activation bytes
// when the all-gathers carry FP8 (Assumptions.FP8TPAllGather), else 1.
func (e *Evaluator) tpGatherShare(p Plan) float64 {
	if rc := p.Precision.Recipe(); e.a.FP8TPAllGather && p.Precision == FP8CS {
		return rc.InputBytes / 2
	}
	return 1
}

// tpExposed is the part of a pass's tensor-parallel collectives of time t
// that overlap with the pass's GEMMs (time g) leaves exposed:
// t - share x min(t, g), share = TPOverlapShare. Overlap splits each GEMM
// into chunks that wait for their data and shares the SMs and memory
// with the collective (Wang et al. 2022, "Overlap Communication with
// Dependent Computation via Decomposition"; Transformer Engine
// userbuffers implement it), so it may hide a share of the collective,
// not all of it; a fit over the Megatron-Core and NeMo rows finds all.
// torchtitan's AsyncTP has its own model (asyncTPExposed).
func (e *Evaluator) tpExposed(t, g float64) float64 {
	return t - e.a.TPOverlapShare*min(t, g)
}

// tpPass records one pass of a layer's TP collectives over layers layers,
// splitting the pass's exposed time between its collectives by their time.
func (st *stageTime) tpPass(set *commSet, in *stepInput, name string, layers, exposed float64, swap bool) {
	c := in.tp
	total := c.a.time + c.b.time
	ops := [2]Collective{c.opA, c.opB}
	costs := [2]commCost{c.a, c.b}
	if swap {
		ops[0], ops[1], costs[0], costs[1] = ops[1], ops[0], costs[1], costs[0]
	}
	overlap := ""
	if exposed < c.perPass*total {
		overlap = overlapGEMM
	}
	for i := range 2 {
		if costs[i].time == 0 {
			continue
		}
		st.addComm(set, commItem{name: name, kind: CommTP, op: ops[i], g: in.pl.tp, msg: in.act,
			calls: c.perPass * layers, cost: costs[i], exposed: layers * exposed * costs[i].time / total,
			overlap: overlap, source: srcTPComm}, true, in.m)
	}
}

// tpComm adds stage r's tensor-parallel collectives: the layers' passes,
// the sequence-parallel re-gather of the column-parallel input for the
// weight gradient (overlapped with those GEMMs by Megatron-LM), the
// vocabulary-parallel embedding's all-reduce (reduce-scatter under SP) on
// the first stage, and under SP the gather before the output layer on the
// last. rec is the layers the recompute reruns (all of them but under
// a block partial recompute, stageRecomputed).
func (e *Evaluator) tpComm(in *stepInput, st *stageTime, set *commSet, r int, layers, rec float64) {
	p := in.p
	if p.TP == 1 {
		return
	}
	c := in.tp
	st.tpPass(set, in, nameTPFwd, layers, c.fwd, false)
	st.tpPass(set, in, nameTPBwd, layers, c.bwd, true)
	if p.Recompute.Checkpointed() {
		st.tpPass(set, in, nameTPRec, rec, c.rec, false)
	}
	g := in.pl.tp
	if p.SP {
		st.addComm(set, commItem{name: nameTPRegather, kind: CommTP, op: AllGather, g: g, msg: in.act,
			calls: c.perPass * layers, cost: c.regather, overlap: overlapWGrad, source: srcTPComm}, true, in.m)
	}
	if r == 0 {
		op := AllReduce
		if p.SP {
			op = ReduceScatter
		}
		k := e.cost(op, in.act, g)
		st.addComm(set, commItem{name: nameTPEmbed, kind: CommTP, op: op, g: g, msg: in.act, calls: 1,
			cost: k, exposed: k.time, source: srcEmbComm}, true, in.m)
	}
	if r == p.PP-1 && p.SP {
		for _, op := range [2]Collective{AllGather, ReduceScatter} {
			k := e.cost(op, in.act, g)
			st.addComm(set, commItem{name: nameTPHead, kind: CommTP, op: op, g: g, msg: in.act, calls: 1,
				cost: k, exposed: k.time, source: srcTPComm}, true, in.m)
		}
	}
}

// cpLayerComm is one layer's context-parallel exchange of keys and values
// for one micro-batch (cpRing or cpAllGather).
func (e *Evaluator) cpLayerComm(in *stepInput) layerComm {
	p := in.p
	if p.CP == 1 {
		return layerComm{}
	}
	m, sh := e.m, in.sh
	width := 2 * sh.kv * float64(m.HeadDim)
	if a := m.MLA; a != nil {
		width = sh.heads * float64(a.QKNopeDim+a.QKRopeDim+a.VDim)
	}
	local := sh.tokens * width * in.r.e // this rank's keys and values
	block := in.dense.core.total() / float64(p.CP)
	blockBwd := in.dense.coreBwd.total() / float64(p.CP)
	var c layerComm
	if e.a.CPAllGather {
		c = e.cpAllGather(in, local, block, blockBwd)
	} else {
		c = e.cpRing(in, local, block, blockBwd)
	}
	if p.recomputesCore() {
		c.rec = c.fwd
	}
	return c
}

// cpRing is Megatron-Core's ring attention (Liu et al. 2023, "Ring
// Attention with Blockwise Transformers"; Megatron-Core
// context_parallel docs): cp-1 exchanges of a block of keys and values
// forward, each hidden only behind the attention of the block already
// held, so a step exposes max(0, exchange - block) where block is 1/cp of
// the rank's attention; backward exchanges the keys and values and their
// gradients (two messages) behind one block of the backward kernel.
func (e *Evaluator) cpRing(in *stepInput, local, block, blockBwd float64) layerComm {
	c := layerComm{opA: SendRecv, opB: SendRecv, perPass: float64(in.p.CP - 1)}
	c.a = e.cost(SendRecv, local, in.pl.cp)
	c.b = c.a
	c.fwd = c.perPass * exposedAfter(c.a.time, block)
	c.bwd = c.perPass * exposedAfter(2*c.a.time, blockBwd)
	return c
}

// cpAllGather gathers every rank's keys and values before the attention
// and reduce-scatters their gradients after its backward (Dubey et al.
// 2024, sec. 3.3.2: the all-gather "is exposed in the critical path"; it
// overlaps at most the attention of the rank's own block, which needs no
// remote data).
func (e *Evaluator) cpAllGather(in *stepInput, local, block, blockBwd float64) layerComm {
	cp := float64(in.p.CP)
	c := layerComm{opA: AllGather, opB: ReduceScatter, perPass: 1}
	c.a = e.cost(AllGather, cp*local, in.pl.cp)
	c.b = e.cost(ReduceScatter, cp*local, in.pl.cp)
	c.fwd = exposedAfter(c.a.time, block)
	c.bwd = exposedAfter(c.b.time, blockBwd)
	return c
}

// cpComm records stage's context-parallel traffic over its layers: the
// forward exchange, the backward one (twice the messages on the ring),
// and the recompute forward's over the recLayers layers recomputed.
func (e *Evaluator) cpComm(in *stepInput, st *stageTime, set *commSet, layers, recLayers float64) {
	p, c := in.p, in.cp
	if p.CP == 1 {
		return
	}
	item := func(name string, op Collective, k commCost, calls, exposed float64) commItem {
		return commItem{name: name, kind: CommCP, op: op, g: in.pl.cp, msg: k.bytes / busFactor(op, p.CP),
			calls: calls * layers, cost: k, exposed: exposed * layers, overlap: overlapAttn, source: srcCPComm}
	}
	fwd, bwd, rec, bwdCalls := nameCPFwd, nameCPBwd, nameCPRec, 2*c.perPass
	if c.opA == AllGather {
		fwd, bwd, rec, bwdCalls = nameCPAGFwd, nameCPRSBwd, nameCPAGRec, c.perPass
	}
	st.addComm(set, item(fwd, c.opA, c.a, c.perPass, c.fwd), true, in.m)
	st.addComm(set, item(bwd, c.opB, c.b, bwdCalls, c.bwd), true, in.m)
	if p.recomputesCore() {
		it := item(rec, c.opA, c.a, c.perPass, c.rec)
		it.calls, it.exposed = c.perPass*recLayers, c.rec*recLayers
		st.addComm(set, it, true, in.m)
	}
}

// ppComm adds the pipeline's point-to-point traffic: per micro-batch and
// model chunk one activation forward and one gradient backward, each 1/tp
// of the activation per rank (Megatron's scatter/gather, inherent under
// SP) followed without SP by an all-gather over tp; and the all-reduce
// of tied embedding gradients between the first and last stage.
func (e *Evaluator) ppComm(in *stepInput, st *stageTime, set *commSet, r int) {
	p := in.p
	if p.PP == 1 {
		return
	}
	pair := group{size: 2, local: 1}
	if in.pl.pp.local >= 2 {
		pair.local = 2
	}
	chunks := float64(p.VPP)
	k := e.cost(SendRecv, in.act/float64(p.TP), pair)
	exposed := func(c commCost, calls float64) (float64, string) {
		if e.a.OverlapP2P {
			return 0, overlapForward
		}
		return calls * c.time, ""
	}
	x, ov := exposed(k, 2*chunks)
	st.addComm(set, commItem{name: namePP, kind: CommPP, op: SendRecv, g: pair, msg: in.act / float64(p.TP),
		calls: 2 * chunks, cost: k, exposed: x, overlap: ov, source: srcPPComm}, true, in.m)
	if p.TP > 1 && !p.SP {
		ag := e.cost(AllGather, in.act, in.pl.tp)
		x, ov := exposed(ag, 2*chunks)
		st.addComm(set, commItem{name: namePPGather, kind: CommPP, op: AllGather, g: in.pl.tp, msg: in.act,
			calls: 2 * chunks, cost: ag, exposed: x, overlap: ov, source: srcPPComm}, true, in.m)
	}
	if e.m.TiedEmbeddings && (r == 0 || r == p.PP-1) && !p.Task.Adapted() {
		msg := float64(e.m.Vocab) * float64(e.m.Hidden) / float64(p.TP) * in.sb.Grad
		c := e.cost(AllReduce, msg, pair)
		st.addComm(set, commItem{name: namePPEmbed, kind: CommPP, op: AllReduce, g: pair, msg: msg, calls: 1,
			cost: c, exposed: c.time, source: srcEmbComm}, false, in.m)
	}
}

// dpComm adds the data-parallel traffic of the stage's params parameters
// over the dp x cp group:
//
//   - ZeRO-0 (DDP): one all-reduce of the gradients per step;
//   - ZeRO-1: a reduce-scatter of the gradients and an all-gather of the
//     updated weights per step (Megatron's distributed optimizer);
//   - ZeRO-2: the reduce-scatter per micro-batch (sharded gradients cannot
//     accumulate locally), the all-gather per step;
//   - ZeRO-3 (FSDP): per micro-batch an all-gather of the weights before
//     the forward, another before the backward, and a reduce-scatter of
//     the gradients: 3x the weight bytes, 1.5x DDP's traffic.
//
// Each runs in calls of dpCalls, every call paying the collective's
// latency. Gradient reductions overlap the backward of the micro-batch
// that produces them when OverlapGradReduce is set, weight gathers the
// forward when OverlapParamGather is (ZeRO-3 always prefetches). The last
// layer's bucket (the first in forward order) cannot be hidden: at least
// 1/layers of each stays exposed.
func (e *Evaluator) dpComm(in *stepInput, st *stageTime, set *commSet, ps paramSplit, layers float64) {
	e.dpCommOver(in, st, set, dpTarget{ps: ps, g: in.pl.shard, names: &denseDPNames}, layers)
}

// dpTarget is what one data-parallel reduction serves: the parameters
// ps (trained, and frozen under LoRA) over group g, whose lines carry
// names.
type dpTarget struct {
	ps    paramSplit
	g     group
	names *dpNames
}

// dpNames are the traffic lines of one data-parallel group: all-reduce,
// reduce-scatter, all-gather, and ZeRO-3's forward and backward gathers
// and reduce-scatter.
type dpNames struct{ ar, rs, ag, z3fwd, z3bwd, z3rs string }

var denseDPNames = dpNames{nameDPAR, nameDPRS, nameDPAG, nameZ3Fwd, nameZ3Bwd, nameZ3RS}

// dpCommOver is dpComm for target t.
func (e *Evaluator) dpCommOver(in *stepInput, st *stageTime, set *commSet, t dpTarget, layers float64) {
	p, g, ps, nm := in.p, t.g, t.ps, t.names
	if g.size <= 1 || ps.total <= 0 {
		return
	}
	L := max(layers, 1)
	bwdWin := (st.bwd.total() + st.rec.total()) * (L - 1) / L
	fwdWin := st.fwd.total() * (L - 1) / L
	grads, weights := ps.trained*in.sb.Grad, ps.weightBytes(in.sb)
	calls := e.dpCalls(p, ps.trained, layers, g.size)
	add := func(name string, kind CommKind, op Collective, msg float64, perMB bool, window float64, on bool, overlap string, src string) {
		c := e.cost(op, msg/calls, g)
		t := calls * c.time
		x := t
		if on {
			if kind == CommDPGrads && !perMB {
				window = interleavedGradWindow(p, t, window, st.bwd.total()+st.rec.total())
			}
			x = max(t-window, t/L)
		} else {
			overlap = ""
		}
		st.addComm(set, commItem{name: name, kind: kind, op: op, g: g, msg: msg / calls, calls: calls, cost: c,
			exposed: x, overlap: overlap, source: src}, perMB, in.m)
	}
	a := e.a
	switch p.ZeRO {
	case 0:
		add(nm.ar, CommDPGrads, AllReduce, grads, false, bwdWin, a.OverlapGradReduce, overlapBackward, srcDPComm)
	case 1, 2:
		if a.BF16OptimizerGrads && p.ZeRO == 1 {
			// The BF16_Optimizer all-reduces the stage's gradients (bf16grads.go).
			add(nm.ar, CommDPGrads, AllReduce, grads, false, bwdWin, a.OverlapGradReduce, overlapBackward, srcBF16Grads)
			add(nm.ag, CommDPParams, AllGather, ps.trained*in.sb.Weight, false, fwdWin, a.OverlapParamGather, overlapForward, srcBF16Grads)
			return
		}
		add(nm.rs, CommDPGrads, ReduceScatter, grads, p.ZeRO == 2, bwdWin, a.OverlapGradReduce, overlapBackward, srcDPComm)
		add(nm.ag, CommDPParams, AllGather, ps.trained*in.sb.Weight, false, fwdWin, a.OverlapParamGather, overlapForward, srcDPComm)
	case 3:
		if a.ZeRO3PerMatrix && e.m.MoE == nil {
			e.zero3PerMatrix(in, st, set, t, layers, fwdWin, bwdWin)
			return
		}
		add(nm.z3fwd, CommDPParams, AllGather, weights, true, fwdWin, true, overlapForward, srcZeRO3)
		ag, rs := e.cost(AllGather, weights/calls, g), e.cost(ReduceScatter, grads/calls, g)
		t := calls * (ag.time + rs.time)
		x := max(t-bwdWin, t/L)
		share := ag.time / (ag.time + rs.time)
		st.addComm(set, commItem{name: nm.z3bwd, kind: CommDPParams, op: AllGather, g: g, msg: weights / calls, calls: calls,
			cost: ag, exposed: x * share, overlap: overlapBackward, source: srcZeRO3}, true, in.m)
		st.addComm(set, commItem{name: nm.z3rs, kind: CommDPGrads, op: ReduceScatter, g: g, msg: grads / calls, calls: calls,
			cost: rs, exposed: x * (1 - share), overlap: overlapBackward, source: srcZeRO3}, true, in.m)
	}
}

// interleavedGradWindow is the backward time that hides a step's
// gradient reduction of time t on an interleaved pipeline stage (v model
// chunks over pp stages, b one micro-batch's backward over the stage,
// window the part of b that hides it without interleaving). Megatron-Core
// starts each chunk's reduction once that chunk's last micro-batch is
// through its backward (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving: backward_step_helper
// calls enable_grad_sync / grad_sync_func when
// is_last_microbatch_for_model_chunk), and the cooldown runs the backward
// in groups of pp micro-batches per chunk, the last chunk first
// (get_model_chunk_id), so c x pp chunk backwards (b/v each) follow
// chunk c's last one. The chunks' reductions (t/v each) queue on the
// network; the queue ends after the stage's last backward by
// max over c of ((c+1) t - c pp b - window) / v, largest at c = 0 or
// c = v-1 (it is linear in c). Without interleaving this is window.
func interleavedGradWindow(p Plan, t, window, b float64) float64 {
	v := float64(p.VPP)
	if p.VPP <= 1 || p.PP <= 1 {
		return window
	}
	first := (t - window) / v
	last := t - ((v-1)*float64(p.PP)*b+window)/v
	return t - max(first, last)
}

// dpCalls is how many calls each data-parallel collective of a stage
// takes: ZeRO-3 (FSDP) gathers and reduces one transformer layer at a
// time, each layer its own unit (Zhao et al. 2023, "PyTorch FSDP", sec.
// 3.2.1: one FlatParameter per wrapped module); below ZeRO-3, with the
// gradient reduction overlapped, the gradients and weights move in
// buckets of max(40 M, 1 M x dp) parameters, Megatron-Core's default
// bucket size (megatron/core/distributed/distributed_data_parallel_config.py,
// bucket_size), which grows with the group so that the per-call ring
// latency stays small; without overlap Megatron-Core keeps one bucket
// (distributed_data_parallel.py: "Set bucket_size to infinity if
// overlap_grad_reduce is False"). Every call pays the collective's
// latency.
func (e *Evaluator) dpCalls(p Plan, params, layers float64, shard int) float64 {
	switch {
	case p.ZeRO == 3:
		return max(layers, 1)
	case !e.a.OverlapGradReduce:
		return 1
	}
	bucket := max(40e6, 1e6*float64(shard))
	return max(math.Ceil(params/bucket), 1)
}
