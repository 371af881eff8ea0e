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

// work evaluates the splits w, w+n, w+2n, ... (each with its ZeRO
// stages) into o. Every worker walks all splits (enumerating them is
// cheap); worker 0 counts the grid points the layout axes reject. It
// allocates nothing per plan.
func (cs *countSearch) work(w, n int, o *outcome) {
	bounded := o.misses.k == 0
	layoutCounts := &o.counts
	if w != 0 {
		layoutCounts = &Counts{}
	}
	i := -1
	for g := range cs.space.splits(cs.m, cs.job, cs.gpus, layoutCounts) {
		if i++; i%n != w {
			continue
		}
		states := statesCheck{e: cs.e, budget: cs.budget}
		for l := range cs.space.zeros(g, &o.counts) {
			if bounded && states.over(l) {
				cs.space.rejectVariants(l, RejectStates, &o.counts)
				continue
			}
			cs.variants(l, bounded, o)
		}
	}
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
func (cs *countSearch) variants(l costmodel.Plan, bounded bool, o *outcome) {
	skip := false
	var skipRec costmodel.Recompute
	var skipSP bool
	for p := range cs.space.Variants(l, &o.counts) {
		if skip && p.Recompute == skipRec && p.SP == skipSP {
			o.counts.reject(RejectMemory, 1)
			continue
		}
		peak := cs.evaluate(p, o)
		skip = bounded && peak > cs.budget*(1+monotoneMargin)
		skipRec, skipSP = p.Recompute, p.SP
	}
}

// monotoneMargin is the relative excess over the budget beyond which a
// larger micro-batch is not evaluated: a million times the rounding error
// of float64 sums of a few dozen terms.
const monotoneMargin = 1e-9

// evaluate computes one candidate's peak stage and, when it fits, its
// speed, and returns the peak.
func (cs *countSearch) evaluate(p costmodel.Plan, o *outcome) hardware.Bytes {
	o.counts.Evaluated++
	peak := cs.e.PeakFast(p)
	if peak.Total > cs.budget {
		o.counts.reject(RejectMemory, 1)
		m := Miss{Plan: p, GPUs: cs.gpus, PeakStage: peak.Stage, Peak: peak.Total, Over: peak.Total - cs.budget}
		o.misses.offer(&m)
		return peak.Total
	}
	o.counts.Fit++
	r := Ranked{Plan: p, GPUs: cs.gpus, MicroBatches: p.MicroBatches(), PeakStage: peak.Stage,
		Peak: peak.Total, Headroom: cs.budget - peak.Total, Performance: cs.e.Performance(p)}
	o.top.offer(&r)
	return peak.Total
}
