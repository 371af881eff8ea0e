package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// balanceLayers fills FirstStageLayers and LastStageLayers when the
// layers do not divide evenly over the pipeline: the middle stages get
// ceil(L/pp) layers and the first and last stages give up the difference,
// as Llama 3 405B did (126 layers on 16 stages: "we reduce one Transformer
// layer each from the first and the last stages", Dubey et al. 2024,
// section 3.3.2). The first and last stages carry the embedding and the
// output layer, so they are the ones to lighten. A plan that names its
// split keeps it; a split that does not add up is an error.
func (p Plan) balanceLayers(layers int) (Plan, error) {
	f, l := p.FirstStageLayers, p.LastStageLayers
	switch {
	case p.PP > layers:
		return p, fmt.Errorf("costmodel: pp=%d exceeds the %d layers", p.PP, layers)
	case f == 0 && l == 0 && layers%(p.PP*p.VPP) == 0:
		return p, nil
	case p.VPP > 1:
		return p, fmt.Errorf("costmodel: %d layers do not divide into pp=%d x vpp=%d equal model chunks (interleaving needs equal chunks)",
			layers, p.PP, p.VPP)
	case p.PP == 1:
		return p, fmt.Errorf("costmodel: first/last stage layers (%d, %d) need pp > 1", f, l)
	case f == 0 && l == 0:
		mid := (layers + p.PP - 1) / p.PP
		d := mid*p.PP - layers
		p.FirstStageLayers, p.LastStageLayers = mid-(d+1)/2, mid-d/2
	case f == 0 || l == 0:
		set := f + l
		if (layers-set)%(p.PP-1) != 0 {
			return p, fmt.Errorf("costmodel: %d layers minus %d on one end stage do not divide over the other %d stages", layers, set, p.PP-1)
		}
		mid := (layers - set) / (p.PP - 1)
		if f == 0 {
			p.FirstStageLayers = mid
		} else {
			p.LastStageLayers = mid
		}
	}
	return p, p.checkSplit(layers)
}

// checkSplit verifies an uneven split: positive first and last stages and
// equal middle stages that account for every layer.
func (p Plan) checkSplit(layers int) error {
	f, l := p.FirstStageLayers, p.LastStageLayers
	rest := layers - f - l
	ok := f >= 1 && l >= 1 && rest >= 0
	if p.PP == 2 {
		ok = ok && rest == 0
	} else {
		ok = ok && rest >= p.PP-2 && rest%(p.PP-2) == 0
	}
	if !ok {
		return fmt.Errorf("costmodel: %d layers cannot be split %d on the first stage, %d on the last and equally over %d middle stages",
			layers, f, l, p.PP-2)
	}
	return nil
}

// uneven reports whether the first and last stages have their own counts.
func (p Plan) uneven() bool { return p.FirstStageLayers != 0 || p.LastStageLayers != 0 }

// stageRange is the half-open layer range [lo, hi) of stage r without
// interleaving.
func (p Plan) stageRange(layers, r int) (lo, hi int) {
	if !p.uneven() {
		n := layers / p.PP
		return r * n, (r + 1) * n
	}
	mid := 0
	if p.PP > 2 {
		mid = (layers - p.FirstStageLayers - p.LastStageLayers) / (p.PP - 2)
	}
	switch r {
	case 0:
		return 0, p.FirstStageLayers
	case p.PP - 1:
		return layers - p.LastStageLayers, layers
	}
	lo = p.FirstStageLayers + (r-1)*mid
	return lo, lo + mid
}

// stageLayers counts the layers pipeline rank r holds, and how many of
// them are mixture-of-experts layers (MoE layers follow the first
// `dense` dense layers). With interleaving, rank r holds model chunks r,
// r+pp, r+2pp, ... of layers/(pp*vpp) layers each.
func (p Plan) stageLayers(layers, dense, r int) (n, moe int) {
	count := func(lo, hi int) {
		n += hi - lo
		moe += hi - max(lo, min(hi, dense))
	}
	if p.VPP <= 1 {
		count(p.stageRange(layers, r))
		return n, moe
	}
	chunk := layers / (p.PP * p.VPP)
	for c := r; c < p.PP*p.VPP; c += p.PP {
		count(c*chunk, (c+1)*chunk)
	}
	return n, moe
}

// inFlight is the number of micro-batches whose activations pipeline rank
// r holds at its peak (the start of the first backward pass), in units of
// the rank's whole set of layers.
//
//   - 1F1B (Narayanan et al. 2021, section 2.2.1): rank r runs pp-r
//     forward passes before its first backward, so the first stage holds
//     pp micro-batches.
//   - Interleaved 1F1B with v model chunks per rank: Megatron-LM warms up
//     (pp-r-1)*2 + (v-1)*pp chunk forwards plus one, each chunk a 1/v share
//     of the rank's layers; for r = 0 that is pp*(1 + (pp-1)/(pp*v))
//     micro-batches, Korthikanti et al. 2022, section 4.2.3.
//   - GPipe (Huang et al. 2019): all m micro-batches.
//
// Never more than the m micro-batches of the step.
func (p Plan) inFlight(r, m int) float64 {
	switch {
	case p.PP == 1:
		return 1
	case p.Schedule == GPipe:
		return float64(m)
	case p.VPP > 1:
		chunks := min((p.PP-r-1)*2+(p.VPP-1)*p.PP+1, m*p.VPP)
		return float64(chunks) / float64(p.VPP)
	}
	return float64(min(p.PP-r, m))
}

// embeddingInFlight is the micro-batches whose embedding output the first
// stage holds, and outputInFlight those whose logits the last stage holds:
// under 1F1B the last stage runs each micro-batch's backward right after
// its forward.
func (p Plan) embeddingInFlight(m int) float64 {
	if p.Schedule == GPipe && p.PP > 1 {
		return float64(m)
	}
	return float64(min(p.PP, m))
}

func (p Plan) outputInFlight(m int) float64 {
	if p.Schedule == GPipe && p.PP > 1 {
		return float64(m)
	}
	return 1
}

// PeakFast returns exactly what Peak returns, evaluating only the stages
// that can hold the peak. Stage r's memory depends on r through its layer
// composition (layers and MoE layers), the embedding on stage 0, the
// output layer on the last stage, and the micro-batches in flight, which
// no schedule increases with r (see inFlight). Among middle stages of the
// same composition the earliest therefore holds at least as much as the
// later ones, and Peak, which keeps the first of equal stages, never picks
// a later one. So stage 0, the last stage and the first middle stage of
// each run of equal compositions suffice: three stages for a model whose
// layers are all dense or all MoE.
func (e *Evaluator) PeakFast(p Plan) StageMemory {
	var best StageMemory
	la := e.layerActs(p)
	e.peakCandidates(p, func(r int) {
		if s := e.stageMemory(p, r, la); r == 0 || s.Total > best.Total {
			best = s
		}
	})
	return best
}

// PeakLowerBound is a lower bound on Peak(p).Total that needs no
// activation math: the largest model states of any stage (with ZeRO-3's
// gather buffers), their allocator fragmentation and the fixed runtime
// overheads. None of these depends on the micro-batch size, the recompute
// policy or sequence parallelism, so a plan whose bound exceeds the budget
// does not fit under any of them. The stages it looks at are those
// PeakFast looks at; middle stages of equal composition hold equal states.
func (e *Evaluator) PeakLowerBound(p Plan) hardware.Bytes {
	var bound hardware.Bytes
	e.peakCandidates(p, func(r int) {
		bound = max(bound, e.statesTotal(p, r))
	})
	return bound
}

// SplitLowerBound is a lower bound on PeakLowerBound(q) for every plan q
// that differs from p only in its layer split (FirstStageLayers,
// LastStageLayers, VPP): whatever the split, some stage holds at least
// ceil(layers/pp) layers, each with at least the parameters of the
// lighter kind of layer the model has (dense or MoE), before any
// embedding or output layer. One bound thus settles every split of a
// layout. It is scaled down by a relative 1e-12 so that rounding in the
// sums it stands for cannot put it above them.
func (e *Evaluator) SplitLowerBound(p Plan) hardware.Bytes {
	m := e.m
	perLayer, moe := m.layerParams(p.TP, false), false
	if k := m.MoELayers(); k == m.Layers || k > 0 && m.layerParams(p.TP, true) < perLayer {
		perLayer, moe = m.layerParams(p.TP, true), true
	}
	n := (m.Layers + p.PP - 1) / p.PP
	s := StageMemory{Layers: n, Params: float64(n) * perLayer}
	e.shardStates(p, &s, moe)
	e.overheads(p, &s)
	return s.Total * (1 - 1e-12)
}

// peakCandidates calls f, in increasing order, for stage 0, the first
// middle stage of each run of equal layer compositions, and the last
// stage. Middle stages hold equal layer counts (balanceLayers; equal
// chunks when interleaved), so when the layers are all dense or all MoE
// every middle stage has the composition of stage 1.
func (e *Evaluator) peakCandidates(p Plan, f func(r int)) {
	f(0)
	if p.PP == 1 {
		return
	}
	moe := e.m.MoELayers()
	if moe == 0 || moe == e.m.Layers {
		if p.PP > 2 {
			f(1)
		}
		f(p.PP - 1)
		return
	}
	prevN, prevMoE := -1, -1
	for r := 1; r < p.PP-1; r++ {
		n, m := p.stageLayers(e.m.Layers, e.m.Layers-moe, r)
		if n != prevN || m != prevMoE {
			prevN, prevMoE = n, m
			f(r)
		}
	}
	f(p.PP - 1)
}

// statesTotal is stage r's total with its activations left out: each term
// of Stage's total, summed in the same order, is no larger, so the result
// is no larger than Stage(p, r).Total in floating point as in exact
// arithmetic.
func (e *Evaluator) statesTotal(p Plan, r int) hardware.Bytes {
	s := e.stageStates(p, r)
	e.overheads(p, &s)
	return s.Total
}
