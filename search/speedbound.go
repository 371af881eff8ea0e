package search

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// speedBound skips the memory and step-time models for plans that cannot
// reach the ranking. A plan whose speed bound, the tokens of a step over
// costmodel.StepTimeLowerBound, is below K plans already offered to the
// ranking cannot enter it, whatever else is found. Which K plans count
// must not depend on how the layouts are shared among the workers, or the
// counts of the result would: when one worker searches a whole GPU count
// in enumeration order (the frontier), the K best it has ranked so far;
// otherwise the K best ranked of the plan's own layout (tp, cp, pp), which
// one worker searches whole.
//
// The bound needs the plan's MicroBatchWork, which depends only on tp, cp,
// pp, dp, ep, etp, sequence parallelism, micro-batch and recompute; the
// worker keeps it for each variant of the current layout and expert
// layout, so the bound costs a
// few operations for most plans.
// A dominated uneven split shares its balanced twin's bound (same pp, vpp
// and micro-batches) and comes after it, when the K-th best is no slower,
// so the bound skips it whenever it skips the twin: the ranking is the one
// the full evaluation gives (TestSpeedBoundRanksAlike).
type speedBound struct {
	e      *costmodel.Evaluator
	tokens float64 // per step
	on     bool
	// whole: the worker searches the whole count, in order (use its
	// ranking); otherwise best holds the K best of the current layout.
	whole bool
	k     int
	best  []float64 // tokens/s, fastest first
	// works holds MicroBatchWork for the current layout (tp, cp, pp and
	// so dp fixed) by recompute, sequence parallelism and micro-batch
	// (its index on the axis); 0 when not yet computed.
	works [3][2][]hardware.Seconds
	mbs   []int
}

func newSpeedBound(cs *countSearch, on, whole bool, k int) speedBound {
	b := speedBound{e: cs.e, tokens: float64(cs.job.GlobalBatch) * float64(cs.job.Seq), on: on && k > 0,
		whole: whole, k: k, best: make([]float64, 0, k), mbs: cs.space.MicroBatch}
	for i := range b.works {
		for j := range b.works[i] {
			b.works[i][j] = make([]hardware.Seconds, len(b.mbs))
		}
	}
	return b
}

// reset starts a layout.
func (b *speedBound) reset() {
	b.best = b.best[:0]
	b.resetWork()
}

// resetWork forgets the works when the expert layout (ep, etp) changes
// within a layout, keeping the layout's best.
func (b *speedBound) resetWork() {
	for i := range b.works {
		for j := range b.works[i] {
			clear(b.works[i][j])
		}
	}
}

// work is p's MicroBatchWork, computed once per layout and variant.
func (b *speedBound) work(p costmodel.Plan) hardware.Seconds {
	m := 0
	for m < len(b.mbs)-1 && b.mbs[m] != p.MicroBatch {
		m++
	}
	w := &b.works[p.Recompute][boolInt(p.SP)][m]
	if *w == 0 {
		*w = b.e.MicroBatchWork(p)
	}
	return *w
}

// excludes reports whether plan p cannot enter the ranking top.
func (b *speedBound) excludes(p costmodel.Plan, top *topK) bool {
	if !b.on {
		return false
	}
	var kth float64
	switch {
	case b.whole && len(top.items) == b.k:
		kth = top.items[b.k-1].Performance.TokensPerSecond
	case !b.whole && len(b.best) == b.k:
		kth = b.best[b.k-1]
	default:
		return false
	}
	return b.tokens/float64(costmodel.StepTimeLowerBound(p, b.work(p))) < kth
}

// offered notes the speed of a plan offered to the ranking.
func (b *speedBound) offered(tokensPerSecond float64) {
	if !b.on || b.whole {
		return
	}
	i := len(b.best)
	for i > 0 && b.best[i-1] < tokensPerSecond {
		i--
	}
	if i == b.k {
		return
	}
	if len(b.best) < b.k {
		b.best = append(b.best, 0)
	}
	copy(b.best[i+1:], b.best[i:len(b.best)-1])
	b.best[i] = tokensPerSecond
}
