package search

import (
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Ranked is one plan that fits, with its memory and its speed.
type Ranked struct {
	Plan       costmodel.Plan `json:"plan"`
	PlanString string         `json:"plan_string"`
	GPUs       int            `json:"gpus"`
	// MicroBatches per step and pipeline (gradient accumulation).
	MicroBatches int `json:"micro_batches"`
	// PeakStage is the pipeline stage with the most memory, Peak its
	// total per GPU and Headroom the budget left above it.
	PeakStage   int                   `json:"peak_stage"`
	Peak        hardware.Bytes        `json:"peak_bytes"`
	Headroom    hardware.Bytes        `json:"headroom_bytes"`
	Performance costmodel.Performance `json:"performance"`
}

// better is the ranking: more tokens per second; on a tie more headroom,
// then fewer bytes exposed on the network, then the plan string. It is a
// total order on distinct plans, so any merge of partial rankings gives
// the same result.
func better(a, b *Ranked) bool {
	pa, pb := &a.Performance, &b.Performance
	switch {
	case pa.TokensPerSecond != pb.TokensPerSecond:
		return pa.TokensPerSecond > pb.TokensPerSecond
	case a.Headroom != b.Headroom:
		return a.Headroom > b.Headroom
	case pa.ExposedNetworkBytes != pb.ExposedNetworkBytes:
		return pa.ExposedNetworkBytes < pb.ExposedNetworkBytes
	}
	// Only full ties reach the strings, which allocate.
	return a.Plan.String() < b.Plan.String()
}

// topK keeps the k best of the plans offered, best first, in a slice
// allocated once.
type topK struct {
	k     int
	items []Ranked
}

func newTopK(k int) topK { return topK{k: k, items: make([]Ranked, 0, k)} }

// offer inserts r if it is among the k best so far. It takes a pointer
// and searches with a plain loop so that nothing escapes: the hot loop
// offers every plan that fits.
func (t *topK) offer(r *Ranked) {
	if !t.wants(r) {
		return
	}
	lo, hi := 0, len(t.items)
	for lo < hi {
		mid := (lo + hi) / 2
		if better(r, &t.items[mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if len(t.items) == t.k {
		t.items = t.items[:t.k-1]
	}
	t.items = slices.Insert(t.items, lo, *r)
}

// wants reports whether r would enter the k best.
func (t *topK) wants(r *Ranked) bool {
	return t.k > 0 && (len(t.items) < t.k || better(r, &t.items[len(t.items)-1]))
}

// merge returns the k best of several rankings, best first.
func merge(k int, parts ...[]Ranked) []Ranked {
	t := newTopK(k)
	for _, p := range parts {
		for i := range p {
			t.offer(&p[i])
		}
	}
	return t.items
}

// Miss is a plan that does not fit, with how far it is over the budget.
type Miss struct {
	Plan       costmodel.Plan `json:"plan"`
	PlanString string         `json:"plan_string"`
	GPUs       int            `json:"gpus"`
	PeakStage  int            `json:"peak_stage"`
	Peak       hardware.Bytes `json:"peak_bytes"`
	Over       hardware.Bytes `json:"over_bytes"`
}

// nearer orders misses: fewer bytes over the budget, then the plan string.
func nearer(a, b *Miss) bool {
	if a.Over != b.Over {
		return a.Over < b.Over
	}
	return a.Plan.String() < b.Plan.String()
}

// nearest keeps the k nearest misses, nearest first.
type nearest struct {
	k     int
	items []Miss
}

func (n *nearest) offer(m *Miss) {
	if n.k == 0 || len(n.items) == n.k && !nearer(m, &n.items[len(n.items)-1]) {
		return
	}
	lo, hi := 0, len(n.items)
	for lo < hi {
		mid := (lo + hi) / 2
		if nearer(m, &n.items[mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if len(n.items) == n.k {
		n.items = n.items[:n.k-1]
	}
	n.items = slices.Insert(n.items, lo, *m)
}

// named fills the plan strings of a final ranking.
func named(rs []Ranked) []Ranked {
	for i := range rs {
		rs[i].PlanString = rs[i].Plan.String()
	}
	return rs
}

func namedMisses(ms []Miss) []Miss {
	for i := range ms {
		ms[i].PlanString = ms[i].Plan.String()
	}
	return ms
}
