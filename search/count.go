package search

import (
	"sync"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// countSearch is the search on one GPU count: its evaluator (the cluster
// of that count) and its space.
type countSearch struct {
	m      *costmodel.Model
	job    Job
	gpus   int
	e      *costmodel.Evaluator
	space  Space
	budget hardware.Bytes
	// exhaustive computes the speed of every plan that fits (no
	// speedBound), for tests that compare. whole: one worker searches
	// the count, in order (the frontier), so the speed bound may use its
	// whole ranking.
	exhaustive, whole bool
}

func newCountSearch(m *costmodel.Model, c hardware.Cluster, a costmodel.Assumptions, job Job, restrict Space) (*countSearch, error) {
	e, err := costmodel.NewEvaluator(m, c, a)
	if err != nil {
		return nil, err
	}
	return &countSearch{m: m, job: job, gpus: c.GPUs(), e: e, budget: e.Budget(),
		space: DefaultSpace(m, job, c.GPUs(), c.GPUsPerNode).Restrict(restrict)}, nil
}

// outcome is what one count's search (or one worker's share) found.
type outcome struct {
	top    topK
	misses nearest
	counts Counts
}

// run evaluates every candidate over the given number of workers and
// returns the k best plans and the counts. With misses > 0 it evaluates
// every candidate without the lower bound and keeps that many nearest
// misses instead (the search for a count where nothing fits).
func (cs *countSearch) run(workers, k, misses int) outcome {
	parts := make([]outcome, max(1, workers))
	var wg sync.WaitGroup
	for w := range parts {
		parts[w] = outcome{top: newTopK(k), misses: nearest{k: misses}}
		wg.Go(func() { cs.work(w, len(parts), &parts[w]) })
	}
	wg.Wait()
	var out outcome
	var tops [][]Ranked
	var ms []Miss
	for _, p := range parts {
		out.counts.add(p.counts)
		tops = append(tops, p.top.items)
		ms = append(ms, p.misses.items...)
	}
	out.top = topK{k: k, items: merge(k, tops...)}
	out.misses = nearest{k: misses}
	for i := range ms {
		out.misses.offer(&ms[i])
	}
	return out
}

// work evaluates the layouts (tp, cp, pp) w, w+n, w+2n, ..., each with
// all its expert layouts, splits and ZeRO stages, into o. Every worker walks all splits
// (enumerating them is cheap); worker 0 counts the grid points the layout
// axes reject. It allocates nothing per plan.
func (cs *countSearch) work(w, n int, o *outcome) {
	bounded := o.misses.k == 0
	layoutCounts := &o.counts
	if w != 0 {
		layoutCounts = &Counts{}
	}
	i := -1
	var group splitsCheck
	dom := newDominance(cs.m.Layers)
	speed := newSpeedBound(cs, !cs.exhaustive, n == 1 && cs.whole, o.top.k)
	var rejected variantCounts
	var outer [3]int // tp, cp, pp: one worker searches every ep and etp of it
	for g := range cs.space.splits(cs.m, cs.job, cs.gpus, layoutCounts) {
		if group.reset(cs, g) {
			if o := [3]int{g.TP, g.CP, g.PP}; i < 0 || o != outer {
				outer = o
				i++
				dom.reset(g)
				speed.reset()
			} else {
				speed.resetWork()
			}
		}
		if i%n != w {
			continue
		}
		if whole, ok := group.wholesale(g, bounded, &rejected); ok {
			// Every split of the layout is rejected alike: count this one
			// as the first was.
			o.counts.add(whole)
			continue
		}
		states := statesCheck{e: cs.e, budget: cs.budget}
		for l := range cs.space.zeros(g, &o.counts) {
			if bounded && (group.over(l) || states.over(l)) {
				rejected.add(cs.space, l, RejectStates, &o.counts)
				continue
			}
			cs.variants(l, bounded, dom, &speed, o)
		}
	}
}

// splitsCheck decides, for the ZeRO stages of one (tp, cp, pp, dp, ep, etp),
// whether the model states exceed the budget whatever the layer split
// (Evaluator.SplitLowerBound), once for all the splits a worker meets.
type splitsCheck struct {
	cs     *countSearch
	layout [5]int  // tp, cp, pp, ep, etp
	known  [4]int8 // by ZeRO stage: 0 unknown, 1 over the budget, 2 within
	// whole counts one split of a layout whose every variant fails the
	// batch check or, for every ZeRO stage, the split-independent states
	// bound; decided says whether it was worked out, all whether it
	// applies.
	whole        Counts
	decided, all bool
}

// wholesale returns the counts of split g when every variant of every
// split of its layout is rejected for one reason that no split changes:
// dp*mbs divides no global batch, or (with bounded) the model states
// exceed the budget at every ZeRO stage whatever the split. The zero
// stages and variants of each split are then counted as the first
// split's were, without walking them again.
func (c *splitsCheck) wholesale(g costmodel.Plan, bounded bool, rv *variantCounts) (Counts, bool) {
	if c.decided {
		return c.whole, c.all
	}
	c.decided = true
	s := &c.cs.space
	reason := RejectBatch
	if s.batchPossible(g.GlobalBatch, g.DP) {
		if !bounded {
			return Counts{}, false
		}
		for l := range s.zeros(g, &Counts{}) {
			if !c.over(l) {
				return Counts{}, false
			}
		}
		reason = RejectStates
	}
	for l := range s.zeros(g, &c.whole) {
		rv.add(*s, l, reason, &c.whole)
	}
	c.all = true
	return c.whole, true
}

// reset forgets the answers when split g starts another layout, and
// reports whether it did.
func (c *splitsCheck) reset(cs *countSearch, g costmodel.Plan) bool {
	if l := [5]int{g.TP, g.CP, g.PP, g.EP, g.ETP}; c.cs != cs || l != c.layout {
		*c = splitsCheck{cs: cs, layout: l}
		return true
	}
	return false
}

func (c *splitsCheck) over(p costmodel.Plan) bool {
	if c.known[p.ZeRO] == 0 {
		c.known[p.ZeRO] = 2 - boolInt(c.cs.e.SplitLowerBound(p) > c.cs.budget)
	}
	return c.known[p.ZeRO] == 1
}

// statesCheck decides, for the ZeRO stages of one split, whether the
// model states alone exceed the budget (Evaluator.PeakLowerBound), with
// as few bounds as possible: ZeRO 0, 1 and 2 shard ever more of the
// states and add nothing, so their bounds never increase from 0 to 2
// (ZeRO-3 adds gather buffers and is computed on its own). The first
// question about one of them computes ZeRO-2's bound, which settles all
// three when it is over the budget, the common case for a large model
// on few GPUs.
type statesCheck struct {
	e      *costmodel.Evaluator
	budget hardware.Bytes
	known  [4]int8 // 0 unknown, 1 over the budget, 2 within
}

func (c *statesCheck) over(p costmodel.Plan) bool {
	if p.ZeRO < 3 && c.known[2] == 0 {
		q := p
		q.ZeRO = 2
		c.settle(2, c.e.PeakLowerBound(q) > c.budget)
	}
	if c.known[p.ZeRO] == 0 {
		c.settle(p.ZeRO, c.e.PeakLowerBound(p) > c.budget)
	}
	return c.known[p.ZeRO] == 1
}

// settle records stage z's answer and what it implies for the stages
// below 3: over for z is over for every smaller stage, within for z is
// within for every larger one.
func (c *statesCheck) settle(z int, over bool) {
	if z == 3 {
		c.known[3] = 2 - boolInt(over)
		return
	}
	for k := range 3 {
		switch {
		case over && k <= z:
			c.known[k] = 1
		case !over && k >= z:
			c.known[k] = 2
		}
	}
}

func boolInt(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// variants evaluates the variants of layout l. With bounded set, once a
// micro-batch size is clearly over the budget, the larger sizes of the
// same recompute and SP are counted over it without evaluation: with the
// global batch fixed, every activation term is non-decreasing in the
// micro-batch size (tokens per micro-batch grow with it; the micro-batches
// in flight, min(pp-r, m) for 1F1B, fall no faster than it grows; GPipe
// holds all m, whose tokens are fixed), and the model states do not
// depend on it. "Clearly" leaves a relative margin far above rounding.
func (cs *countSearch) variants(l costmodel.Plan, bounded bool, dom *dominance, speed *speedBound, o *outcome) {
	skip := false
	var skipRec costmodel.Recompute
	var skipSP bool
	for p := range cs.space.Variants(l, &o.counts) {
		if skip && p.Recompute == skipRec && p.SP == skipSP {
			o.counts.reject(RejectMemory, 1)
			continue
		}
		peak := cs.evaluate(p, dom, speed, o)
		skip = bounded && peak > cs.budget*(1+monotoneMargin)
		skipRec, skipSP = p.Recompute, p.SP
	}
}

// monotoneMargin is the relative excess over the budget beyond which a
// larger micro-batch is not evaluated: a million times the rounding error
// of float64 sums of a few dozen terms.
const monotoneMargin = 1e-9

// evaluate computes, for a candidate whose speed bound can reach the
// ranking, its peak stage and, when it fits, its speed, and returns the
// peak (0 when not computed). A fitting plan that an evenly split plan
// dominates (dom) is rejected rather than ranked. A plan the speed bound
// excludes needs neither: it could not be ranked whether it fits or not.
func (cs *countSearch) evaluate(p costmodel.Plan, dom *dominance, speed *speedBound, o *outcome) hardware.Bytes {
	if speed.excludes(p, &o.top) {
		o.counts.reject(RejectSlower, 1)
		return 0
	}
	o.counts.Evaluated++
	peak := cs.e.PeakFast(p)
	if peak.Total > cs.budget || !cs.e.HostFits(p) {
		dom.record(p, peak.Total, 0)
		o.counts.reject(RejectMemory, 1)
		m := Miss{Plan: p, GPUs: cs.gpus, PeakStage: peak.Stage, Peak: peak.Total, Over: peak.Total - cs.budget}
		o.misses.offer(&m)
		return peak.Total
	}
	perf := cs.e.Performance(p)
	if dom.dominated(p, peak.Total, perf.TokensPerSecond) {
		o.counts.reject(RejectDominated, 1)
		return peak.Total
	}
	dom.record(p, peak.Total, perf.TokensPerSecond)
	o.counts.Fit++
	r := Ranked{Plan: p, GPUs: cs.gpus, MicroBatches: p.MicroBatches(), PeakStage: peak.Stage,
		Peak: peak.Total, Headroom: cs.budget - peak.Total, Performance: perf}
	o.top.offer(&r)
	speed.offered(perf.TokensPerSecond)
	return peak.Total
}
