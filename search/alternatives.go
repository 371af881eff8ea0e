package search

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/samber/lo"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// The three answers to a load that does not fit a given number of GPUs:
// store fewer bytes per parameter (or per cached token), take GPUs with
// more memory, or take more GPUs. Each comes with its best layout, so
// what it costs in GPUs and in speed reads side by side.
const (
	LowerBytes = "lower bytes per parameter"
	BiggerGPU  = "more memory per GPU"
	MoreGPUs   = "more GPUs"
)

// Alternative is one of the three answers.
type Alternative struct {
	Kind string `json:"kind"`
	// Change says what differs from the query: "weights fp8", "h200",
	// "16 GPUs".
	Change string `json:"change"`
	GPU    string `json:"gpu"`
	GPUs   int    `json:"gpus"`
	// Best is the top-ranked layout that holds the load; nil when this
	// kind of change cannot hold it.
	Best *ServeLayout `json:"best,omitempty"`
}

// alternatives computes the three answers against ref GPUs.
func alternatives(q ServeQuery, ref int) ([]Alternative, error) {
	var out []Alternative
	low, err := lowerBytes(q, ref)
	if err != nil {
		return nil, err
	}
	out = append(out, low)
	big, err := biggerGPUs(q, ref)
	if err != nil {
		return nil, err
	}
	out = append(out, big...)
	more, err := moreGPUs(q)
	if err != nil {
		return nil, err
	}
	return append(out, more), nil
}

// formats are the weight and KV-cache formats to try, gentlest first:
// an fp8 cache alone, fp8 weights, both, then int4 weights.
var formats = []struct{ weights, kv costmodel.DType }{
	{costmodel.DTypeBF16, costmodel.DTypeFP8},
	{costmodel.DTypeFP8, costmodel.DTypeBF16},
	{costmodel.DTypeFP8, costmodel.DTypeFP8},
	{costmodel.DTypeInt4, costmodel.DTypeBF16},
	{costmodel.DTypeInt4, costmodel.DTypeFP8},
}

// lowerBytes is the gentlest format, smaller than the query's in weights
// or cache and no larger in either, that holds the load on ref GPUs.
func lowerBytes(q ServeQuery, ref int) (Alternative, error) {
	alt := Alternative{Kind: LowerBytes, GPU: q.GPU.Name, GPUs: ref, Change: "none smaller holds it"}
	w, kv := q.Load.Weights, q.Load.KV
	for _, f := range formats {
		if f.weights.Bytes() > w.Bytes() || f.kv.Bytes() > kv.Bytes() || (f.weights == w && f.kv == kv) {
			continue
		}
		fq := q
		fq.Load.Weights, fq.Load.KV = f.weights, f.kv
		best, err := bestOn(fq, ref)
		if err != nil {
			return alt, err
		}
		if best != nil {
			alt.Change, alt.Best = formatChange(q.Load, f.weights, f.kv), best
			return alt, nil
		}
	}
	return alt, nil
}

func formatChange(s costmodel.ServePlan, w, kv costmodel.DType) string {
	switch {
	case w != s.Weights && kv != s.KV:
		return fmt.Sprintf("weights %v, KV cache %v", w, kv)
	case w != s.Weights:
		return fmt.Sprintf("weights %v", w)
	}
	return fmt.Sprintf("KV cache %v", kv)
}

// biggerGPUs are the catalog GPUs with more memory than the query's that
// hold the load on ref GPUs, smallest memory first.
func biggerGPUs(q ServeQuery, ref int) ([]Alternative, error) {
	gpus := lo.Filter(hardware.GPUs(), func(g hardware.GPU, _ int) bool { return g.HBM > q.GPU.HBM })
	slices.SortStableFunc(gpus, func(a, b hardware.GPU) int {
		return cmp.Or(cmp.Compare(a.HBM, b.HBM), cmp.Compare(a.Name, b.Name))
	})
	var out []Alternative
	for _, g := range gpus {
		gq := q
		gq.GPU, gq.GPUsPerNode = g, g.ScaleUpDomain
		if _, err := hardware.ClusterForGPUs(g, ref, g.ScaleUpDomain); err != nil {
			continue
		}
		best, err := bestOn(gq, ref)
		if err != nil {
			return nil, err
		}
		if best != nil {
			out = append(out, Alternative{Kind: BiggerGPU, Change: g.Name, GPU: g.Name, GPUs: ref, Best: best})
		}
	}
	if len(out) == 0 {
		out = append(out, Alternative{Kind: BiggerGPU, Change: "no catalog GPU holds it", GPUs: ref})
	}
	return out, nil
}

// moreGPUs is the fewest GPUs of the query's kind that hold the load.
func moreGPUs(q ServeQuery) (Alternative, error) {
	alt := Alternative{Kind: MoreGPUs, GPU: q.GPU.Name, Change: "no GPU count holds it"}
	n, err := fewest(q)
	if err != nil || n == 0 {
		return alt, err
	}
	best, err := bestOn(q, n)
	if err != nil {
		return alt, err
	}
	alt.GPUs, alt.Best, alt.Change = n, best, hardware.Plural(n, "GPU", "GPUs")
	return alt, nil
}

// bestOn is the top layout on n GPUs that holds the load, or nil.
func bestOn(q ServeQuery, n int) (*ServeLayout, error) {
	ls, err := layoutsOn(q, n)
	if err != nil || len(ls) == 0 || !ls[0].Holds {
		return nil, err
	}
	return &ls[0], nil
}
