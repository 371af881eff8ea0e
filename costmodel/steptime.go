package costmodel

import "github.com/gpu-planner/planner/hardware"

// StepTime is the breakdown of one optimizer step on the pipeline stage
// that sets its length. The parts add up to Total.
type StepTime struct {
	// Compute is the forward and backward kernels of every micro-batch
	// (no recompute), split into matrix multiplies, attention kernels,
	// memory-bound kernels and, for MoE layers, the time the GPU waits
	// on the host's token-count synchronization (moeHostSync).
	Compute            hardware.Seconds `json:"compute_s"`
	ComputeGEMM        hardware.Seconds `json:"compute_gemm_s"`
	ComputeAttention   hardware.Seconds `json:"compute_attention_s"`
	ComputeMemoryBound hardware.Seconds `json:"compute_memory_bound_s"`
	ComputeHostSync    hardware.Seconds `json:"compute_host_sync_s,omitempty"`
	// Recompute is the extra forward work of activation recomputation.
	Recompute hardware.Seconds `json:"recompute_s"`
	// Bubble is the pipeline's idle time: (the other stages' time per
	// micro-batch) / virtual stages; (pp-1)/(m v) of the busy time when
	// the stages are equal, and more when an interleaved pipeline has
	// fewer micro-batches than stages (stepTime).
	Bubble hardware.Seconds `json:"bubble_s"`
	// Exposed communication per kind: the part of each collective's time
	// not hidden behind compute.
	ExposedTP       hardware.Seconds `json:"exposed_tp_s"`
	ExposedCP       hardware.Seconds `json:"exposed_cp_s"`
	ExposedPP       hardware.Seconds `json:"exposed_pp_s"`
	ExposedDPGrads  hardware.Seconds `json:"exposed_dp_grads_s"`
	ExposedDPParams hardware.Seconds `json:"exposed_dp_params_s"`
	ExposedEP       hardware.Seconds `json:"exposed_ep_s,omitempty"`
	// Optimizer is the memory-bound optimizer update.
	Optimizer hardware.Seconds `json:"optimizer_s"`
	// Offload is the part of the host transfers and the CPU optimizer
	// step of an offloaded plan not hidden behind compute (offloadtime.go).
	Offload hardware.Seconds `json:"offload_s,omitempty"`
	// ActivationOffload is the part of the activation copies to and from
	// the host not hidden behind the next layer's compute (actoffload.go).
	ActivationOffload hardware.Seconds `json:"activation_offload_s,omitempty"`
	Total             hardware.Seconds `json:"total_s"`
	// Stage is the pipeline stage the breakdown is for, MicroBatches the
	// micro-batches it runs per step.
	Stage        int `json:"stage"`
	MicroBatches int `json:"micro_batches"`
	// LayerForward and LayerBackward are one transformer layer and one
	// micro-batch on that stage: its kernels and exposed tensor- and
	// context-parallel communication; backward includes recompute.
	LayerForward  hardware.Seconds `json:"layer_forward_s"`
	LayerBackward hardware.Seconds `json:"layer_backward_s"`
}

// exposed sums the exposed communication of every kind.
func (s StepTime) exposed() hardware.Seconds {
	return s.ExposedTP + s.ExposedCP + s.ExposedPP + s.ExposedDPGrads + s.ExposedDPParams + s.ExposedEP
}

// stepInput is what every stage of a plan shares.
type stepInput struct {
	p           Plan
	r           rates
	sh          layerShape
	pl          placement
	sb          StateBytes
	dense, moe  layerCost
	first, last layerCost
	m, v        float64 // micro-batches per step, virtual stages in the bubble
	act         float64 // activation message of one micro-batch: tokens x h x e
	tp, cp      layerComm
	ep          epLayer
	acts        layerActs // saved bytes per layer, with activation offload only
	kinds       layerKinds
}

// layerComm is one layer's tensor- or context-parallel collectives for one
// micro-batch and their exposed time per pass.
type layerComm struct {
	a, b          commCost // the pass's collectives: all-reduce, or all-gather and reduce-scatter
	opA, opB      Collective
	perPass       float64  // calls of each per pass
	fwd, bwd, rec float64  // exposed seconds per layer: forward, backward, recompute
	regather      commCost // SP: the backward re-gather, hidden by the weight-gradient GEMMs
}

// stageTime is one pipeline stage: per micro-batch and per step.
type stageTime struct {
	fwd, bwd, rec kernelCost
	exposed       [numCommKinds]float64 // per micro-batch
	tail          [numCommKinds]float64 // per step, after the last micro-batch
	optimizer     float64
	offload       float64 // per step: exposed host transfers and CPU optimizer step
	actOffload    float64 // per step: exposed activation copies
	perMB         float64 // one micro-batch: kernels + exposed communication
	// Exposed network bytes per micro-batch and per step, and the
	// slowest tier with exposed traffic.
	netMB, netTail float64
	tier           hardware.Tier
}

// total is the stage's time on its own: m micro-batches and the tail.
func (st *stageTime) total(m float64) float64 {
	t := m*st.perMB + st.optimizer + st.offload + st.actOffload
	for _, x := range st.tail {
		t += x
	}
	return t
}

// addComm adds a collective's exposed time to the stage (per micro-batch
// or per step) and records it with per-step counts.
func (st *stageTime) addComm(set *commSet, it commItem, perMicroBatch bool, m float64) {
	var net float64
	if t := it.calls * it.cost.time; it.exposed > 0 && t > 0 {
		net = it.calls * it.cost.network * min(it.exposed/t, 1)
		st.tier = max(st.tier, it.g.tier())
	}
	if perMicroBatch {
		st.exposed[it.kind] += it.exposed
		st.netMB += net
		it.calls *= m
		it.exposed *= m
	} else {
		st.tail[it.kind] += it.exposed
		st.netTail += net
	}
	set.add(it)
}

// newStepInput prepares the per-plan costs. p must be normalized.
func (e *Evaluator) newStepInput(p Plan) stepInput {
	in := stepInput{p: p, r: e.rates(p), sh: newLayerShape(e.m, p),
		pl: place(p, e.order, e.c.GPUsPerNode), sb: e.a.ModelStateBytes(p.Precision, p.Optimizer),
		m: float64(p.MicroBatches()), v: 1, kinds: e.m.kinds()}
	in.sh.setExperts(e.m, p, e.a.expertRowFactor())
	if p.Interleaved() {
		in.v = float64(p.VPP)
	}
	in.dense = e.layerCost(in.r, in.sh, false)
	if e.m.MoE != nil {
		in.moe = e.layerCost(in.r, in.sh, true)
		in.moe.fwd.host = float64(e.a.MoEHostSync)
	}
	in.first, in.last = e.stageEnds(in.r, in.sh)
	in.act = in.sh.tokens * float64(e.m.Hidden) * in.r.e
	in.tp = e.tpLayerComm(&in)
	in.cp = e.cpLayerComm(&in)
	in.ep = e.epLayerComm(&in)
	if p.OffloadActivationLayers > 0 {
		in.acts = e.layerActs(p)
	}
	return in
}

// rates are the kernel speeds of plan p on e's GPU: the efficiency
// curves of its precision (prepared by setCurves at the sustained clock)
// and the HBM bandwidth times its efficiency.
func (e *Evaluator) rates(p Plan) rates {
	g, a := e.c.GPU, e.a
	kc := &e.curves[p.Precision]
	r := rates{gemm: kc.gemm, half: kc.half, attn: kc.attn, gemmShare: a.GEMMEfficiency, attnShare: a.AttentionEfficiency,
		e: 2, mem: float64(g.MemBandwidth) * a.HBMEfficiency, k0: float64(a.KernelOverhead),
		normX: 1, ropeX: 1, gluX: 1, separate: a.SeparateProjections}
	if rc := p.Precision.Recipe(); rc.InputBytes > 0 {
		r.low, r.castReads, r.castWrites = rc.InputBytes, rc.CastReads, rc.CastWrites
		r.wgradCast, r.rescaleBwd, r.wgradHalf = rc.WgradCastBytes, rc.RescaleBackward, rc.WgradHighPrecision
		if a.CompiledAmax && p.Precision == FP8CS {
			r.castReads-- // the amax pass rides on the producer (Assumptions.CompiledAmax)
		}
	}
	if p.Precision == FP32 {
		r.e = 4
	}
	if p.Task.Adapted() {
		r.frozen, r.loraRank, r.loraTargets, r.nf4 = true, float64(p.LoRARank), p.LoRATargets, p.BaseDType == BaseNF4
	}
	if a.UnfusedElementwise {
		r.ropeX, r.gluX = eagerRoPE, eagerGLU
		if e.m.Norm == RMSNorm {
			r.normX = eagerRMSNorm
		}
	}
	return r
}

// stepTime evaluates plan p: the breakdown, and into set (when not nil)
// the collectives of the slowest stage. Every stage is costed; the stage
// whose micro-batches and tail take longest sets the step:
//
//	step = m x t_crit + tail_crit + bubble
//	bubble = (sum over stages of t_r - t_crit) / v
//	       + (v-1)/v x max(0, sum over stages of t_r - m x t_crit)
//
// which is (m + (pp-1)/v) x t + tail for equal stages and m >= pp: the
// 1F1B bubble of (pp-1)/m divided by the virtual stages when interleaved
// (Narayanan et al. 2021, sec. 2.2); GPipe has the same bubble (Huang et
// al. 2019). The first term fills and drains the pipeline with one chunk
// of every other stage; with unequal chunks (lighter end chunks) each
// stage's average chunk stands in for the one it runs there, an error of
// at most the end chunks' deficit over v. The second term is the
// interleaved schedule short of micro-batches: a micro-batch returns to
// the first rank for its next chunk only after a round through all pp
// ranks, so with m < pp micro-batches each of the v-1 later rounds idles
// the rank for (pp-m) chunk times (a single micro-batch runs its pp*v
// chunks one after another, as without interleaving). Narayanan et al.
// require m to be a multiple of pp for this reason (sec. 2.2.2); Meta's
// schedule runs fewer (Dubey et al. 2024, sec. 3.3.2) at this cost.
func (e *Evaluator) stepTime(p Plan, set *commSet) stepResult {
	in := e.newStepInput(p)
	var crit, prev stageTime
	critR, critT, sum := 0, -1.0, 0.0
	prevLayers, prevMoE := -1, -1
	for r := range p.PP {
		// Middle stages with the same layers cost the same: reuse.
		layers, moe := p.stageLayers(e.m.kinds(), r)
		st := prev
		if r <= 1 || r == p.PP-1 || layers != prevLayers || moe != prevMoE {
			st = e.stage(&in, r, nil)
		}
		prev, prevLayers, prevMoE = st, layers, moe
		sum += st.perMB
		if t := st.total(in.m); t > critT {
			crit, critR, critT = st, r, t
		}
	}
	if set != nil {
		e.stage(&in, critR, set)
	}
	bubble := (sum - crit.perMB) / in.v
	if short := sum - in.m*crit.perMB; in.v > 1 && short > 0 {
		bubble += (in.v - 1) / in.v * short
	}
	return stepResult{StepTime: in.breakdown(&crit, critR, bubble),
		network: in.m*crit.netMB + crit.netTail, tier: crit.tier}
}

// stepResult is a breakdown with the exposed network traffic of the
// critical stage.
type stepResult struct {
	StepTime
	network float64
	tier    hardware.Tier
}

// breakdown assembles the StepTime of the critical stage.
func (in *stepInput) breakdown(st *stageTime, r int, bubble float64) StepTime {
	m := in.m
	var exp [numCommKinds]float64
	for k := range exp {
		exp[k] = m*st.exposed[k] + st.tail[k]
	}
	s := StepTime{
		Compute:            hardware.Seconds(m * (st.fwd.total() + st.bwd.total())),
		ComputeGEMM:        hardware.Seconds(m * (st.fwd.gemm + st.bwd.gemm)),
		ComputeAttention:   hardware.Seconds(m * (st.fwd.attn + st.bwd.attn)),
		ComputeMemoryBound: hardware.Seconds(m * (st.fwd.mem + st.bwd.mem)),
		ComputeHostSync:    hardware.Seconds(m * (st.fwd.host + st.bwd.host)),
		Recompute:          hardware.Seconds(m * st.rec.total()),
		Bubble:             hardware.Seconds(bubble),
		ExposedTP:          hardware.Seconds(exp[CommTP]), ExposedCP: hardware.Seconds(exp[CommCP]),
		ExposedPP: hardware.Seconds(exp[CommPP]), ExposedDPGrads: hardware.Seconds(exp[CommDPGrads]),
		ExposedDPParams: hardware.Seconds(exp[CommDPParams]), ExposedEP: hardware.Seconds(exp[CommEP]),
		Optimizer:         hardware.Seconds(st.optimizer),
		Offload:           hardware.Seconds(st.offload),
		ActivationOffload: hardware.Seconds(st.actOffload),
		Stage:             r, MicroBatches: int(m),
	}
	s.Total = s.Compute + s.Recompute + s.Bubble + s.exposed() + s.Optimizer + s.Offload + s.ActivationOffload
	rec := 0.0
	switch in.p.Recompute {
	case Full:
		rec = (in.dense.fwd.total() + in.tp.rec + in.cp.rec) * in.p.recomputedShare(in.kinds, r)
	case Selective:
		rec = in.dense.selective(in.p.modules()).total() + in.cp.rec
	case OpSAC:
		rec = in.dense.sac.total() + in.tp.rec + in.cp.rec
	}
	s.LayerForward = hardware.Seconds(in.dense.fwd.total() + in.tp.fwd + in.cp.fwd)
	s.LayerBackward = hardware.Seconds(in.dense.bwd.total() + rec + in.tp.bwd + in.cp.bwd)
	return s
}

// stage costs pipeline stage r and records its collectives into set.
func (e *Evaluator) stage(in *stepInput, r int, set *commSet) stageTime {
	p, m := in.p, e.m
	layers, moe := p.stageLayers(m.kinds(), r)
	dense := float64(layers - moe)
	var st stageTime
	st.fwd.add(in.dense.fwd, dense)
	st.fwd.add(in.moe.fwd, float64(moe))
	st.bwd.add(in.dense.bwd, dense)
	st.bwd.add(in.moe.bwd, float64(moe))
	recLayers, recMoE := layers, moe
	switch p.Recompute {
	case Full:
		st.rec = st.fwd
		if p.partialRecompute() {
			recLayers, recMoE = p.stageRecomputed(m.kinds(), r)
			st.rec = kernelCost{}
			st.rec.add(in.dense.fwd, float64(recLayers-recMoE))
			st.rec.add(in.moe.fwd, float64(recMoE))
		}
	case Selective:
		st.rec.add(in.dense.selective(p.modules()), dense)
		st.rec.add(in.moe.selective(p.modules()), float64(moe))
	case OpSAC:
		st.rec.add(in.dense.sac, dense)
		st.rec.add(in.moe.sac, float64(moe))
	}
	if r == 0 {
		st.fwd.add(in.first.fwd, 1)
		st.bwd.add(in.first.bwd, 1)
	}
	if r == p.PP-1 {
		st.fwd.add(in.last.fwd, 1)
		st.bwd.add(in.last.bwd, 1)
	}
	e.tpComm(in, &st, set, r, float64(layers), float64(recLayers))
	e.cpComm(in, &st, set, float64(layers), float64(recLayers))
	e.ppComm(in, &st, set, r)
	e.epComm(in, &st, set, float64(moe), float64(recMoE))
	ps := e.splitParams(p, r, layers, moe)
	e.dpComm(in, &st, set, ps, float64(layers))
	st.bwd.mem += e.bf16GradAccum(in, ps.trained)
	e.expertDPComm(in, &st, set, moe, float64(layers))
	st.optimizer = e.optimizerTime(in, ps.trained, p.ShardDegree())
	if moe > 0 {
		st.optimizer += e.optimizerTime(in, e.expertStageParams(p, moe), p.ExpertDP())
	}
	if p.Offload != NoOffload {
		st.optimizer = 0
		st.offload = e.offloadTime(in, &st, ps, float64(layers))
	}
	st.actOffload = e.actOffloadTime(in, r)
	st.perMB = st.fwd.total() + st.bwd.total() + st.rec.total()
	for _, x := range st.exposed {
		st.perMB += x
	}
	return st
}

// optimizerTime is the memory-bound update of the stage's parameters,
// pass by pass as Megatron-LM's mixed-precision optimizer runs it
// (megatron/optimizer/optimizer.py, MixedPrecisionOptimizer.step):
//
//   - copy 16-bit gradients to fp32 main gradients (read g, write 4);
//   - fp16 only: unscale and check for inf/nan (read 4);
//   - clip the gradient norm (read 4);
//   - Adam or momentum: read the fp32 gradient, read and write the
//     master weights and the moments (fp32 training: the weights);
//   - copy the master weights to the 16-bit model weights (read 4,
//     write the weight);
//   - zero the gradient buffers (write g per held gradient).
//
// The optimizer passes run over the ZeRO shard (ZeRO >= 1) of the
// params over shardDegree ranks (dp x cp, or the expert data parallel
// group for the routed experts); the zeroing over the gradients the rank
// holds (all of them below ZeRO-2).
func (e *Evaluator) optimizerTime(in *stepInput, params float64, shardDegree int) float64 {
	p, sb := in.p, in.sb
	shard := float64(shardDegree)
	opt, grads := params, params
	if p.ZeRO >= 1 {
		opt = params / shard
	}
	if p.ZeRO >= 2 {
		grads = params / shard
	}
	perParam := 4 + 4 + 2*sb.Moments // clip read, update's gradient read, moments
	if sb.Master > 0 {
		perParam += 2*sb.Master + 4 + sb.Weight // master read/write, copy to the model weights
		if sb.Grad < 4 {
			perParam += sb.Grad + 4 // cast to fp32 main gradients
		}
	} else {
		perParam += 2 * sb.Weight
	}
	if p.Precision == FP16 {
		perParam += 4 // unscale and inf check
	}
	return (opt*perParam + grads*sb.Grad) / in.r.mem
}
