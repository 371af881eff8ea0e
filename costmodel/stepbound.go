package costmodel

import "github.com/gpu-planner/planner/hardware"

// MicroBatchWork is the time one micro-batch spends in every layer on
// one GPU of each stage, summed over the stages, exactly as stepTime
// costs it: the kernels of every layer (forward, backward and what the
// recompute policy repeats) with the exposed tensor-, context- and
// expert-parallel collectives of each layer, and the kernels of the embedding and output
// layer. It leaves out the pipeline, data-parallel and end-layer
// collectives. It depends on the plan's tp, cp, sequence parallelism,
// micro-batch, recompute, ep and etp and, through the placement of the
// tp and cp groups, on pp and dp; not on vpp, the layer split or ZeRO, so a search
// can compute it once for many plans. A partial full recompute with the
// block method is the exception: it reruns the first layers of each
// model chunk only, which depend on vpp and the split (skippedRecompute).
func (e *Evaluator) MicroBatchWork(p Plan) hardware.Seconds {
	in := e.newStepInput(p)
	comm := in.tp.fwd + in.tp.bwd + in.tp.rec + in.cp.fwd + in.cp.bwd + in.cp.rec
	moe := e.m.MoELayers()
	w := float64(e.m.Layers-moe) * (layerWork(p, in.dense) + comm)
	if moe > 0 {
		ep := in.ep.fwd + in.ep.bwd + in.ep.rec
		w += float64(moe) * (layerWork(p, in.moe) + comm + ep)
	}
	w += in.first.fwd.total() + in.first.bwd.total() + in.last.fwd.total() + in.last.bwd.total()
	if p.partialRecompute() {
		w -= e.skippedRecompute(&in)
	}
	return hardware.Seconds(w)
}

// skippedRecompute is the work layerWork and the recompute collectives
// count for the layers a partial full recompute does not rerun: with the
// block method, all but the first RecomputeLayers of each model chunk
// (stageRecomputed), which makes MicroBatchWork depend on the layer split
// and vpp too.
func (e *Evaluator) skippedRecompute(in *stepInput) float64 {
	p, k := in.p, e.m.kinds()
	var rec, recMoE int
	for r := range p.PP {
		a, b := p.stageRecomputed(k, r)
		rec, recMoE = rec+a, recMoE+b
	}
	moe := e.m.MoELayers()
	comm := in.tp.rec + in.cp.rec
	dense := float64(e.m.Layers - moe - (rec - recMoE))
	skipped := float64(moe - recMoE)
	return dense*(in.dense.fwd.total()+comm) + skipped*(in.moe.fwd.total()+comm+in.ep.rec)
}

// layerWork is one layer's kernels for one micro-batch: forward,
// backward, and the recomputed forward (all of it under full recompute,
// the recomputed modules under selective), as stage adds them.
func layerWork(p Plan, c layerCost) float64 {
	w := c.fwd.total() + c.bwd.total()
	switch p.Recompute {
	case Full:
		w += c.fwd.total()
	case Selective:
		w += c.selective(p.modules()).total()
	case OpSAC:
		w += c.sac.total()
	}
	return w
}

// StepTimeLowerBound is a lower bound on Performance(p).StepTime from the
// plan's MicroBatchWork w:
//
//	step >= w x (m + (pp-1)/v) / pp
//
// The step is m x t_crit + tail_crit + bubble (stepTime), where the
// critical stage's m x t_crit + tail is at least m x t_max, t_max the
// largest per-micro-batch time of any stage, and the bubble at least
// (W - t_max)/v with W the per-micro-batch times summed over the stages.
// So step >= t_max (m - 1/v) + W/v >= W/pp (m - 1/v) + W/v, and W >= w:
// every stage's time holds its layers' kernels and exposed tp and cp
// collectives. The other collectives, stage imbalance, the optimizer and
// the idle rounds of a short interleaved pipeline only add to it. The bound is scaled down by a relative 1e-9 so that the
// different order of the sums cannot put it above the step.
func StepTimeLowerBound(p Plan, w hardware.Seconds) hardware.Seconds {
	m, v, pp := float64(p.MicroBatches()), 1.0, float64(p.PP)
	if p.Interleaved() {
		v = float64(p.VPP)
	}
	return w * hardware.Seconds((m+(pp-1)/v)/pp*(1-1e-9))
}
