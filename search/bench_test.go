package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// The benchmarks behind the README's "Search speed": run them with
//
//	go test ./search -run '^$' -bench . -benchmem -count 5

// BenchmarkEvaluate measures the hot loop: one op is one candidate of
// Llama 3 405B on 128 H100s evaluated (peak stage; when it fits, speed
// and ranking). "full" computes every candidate; "bounded" skips those
// whose speed bound cannot reach the ten best of their layout, as the
// search does. allocs/op is the allocation per evaluated plan.
func BenchmarkEvaluate(b *testing.B) {
	m := model(b, "llama3-405b")
	c, err := clusterFor(gpu(b, "h100-sxm"), 128, 8)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := newCountSearch(m, c, costmodel.DefaultAssumptions(), pretraining, Space{})
	if err != nil {
		b.Fatal(err)
	}
	var plans []costmodel.Plan
	for p := range cs.space.Candidates(m, pretraining, 128, &Counts{}) {
		plans = append(plans, p)
	}
	for _, bounded := range []bool{false, true} {
		name := map[bool]string{false: "full", true: "bounded"}[bounded]
		b.Run(name, func(b *testing.B) {
			o := outcome{top: newTopK(10)}
			dom := newDominance(m.Layers)
			speed := newSpeedBound(cs, bounded, false, 10)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := plans[i%len(plans)]
				if i == 0 || p.TP != plans[(i-1)%len(plans)].TP || p.CP != plans[(i-1)%len(plans)].CP || p.PP != plans[(i-1)%len(plans)].PP {
					dom.reset(p)
					speed.reset()
				}
				cs.evaluate(p, dom, &speed, &o)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "plans/s")
		})
	}
}

// benchSearch runs one search per op and reports its candidates.
func benchSearch(b *testing.B, o Options) {
	m := model(b, "llama3-405b")
	g := gpu(b, "h100-sxm")
	var r *Result
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if r, err = Search(m, g, 0, costmodel.DefaultAssumptions(), o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Counts.Considered), "candidates/op")
	b.ReportMetric(float64(r.Counts.Evaluated), "evaluated/op")
	b.ReportMetric(float64(r.CountsSearched), "gpu-counts/op")
}

// BenchmarkHeadline is `planner search --model llama3-405b --gpus 128`
// without the printing.
func BenchmarkHeadline(b *testing.B) {
	benchSearch(b, Options{Job: pretraining, GPUs: 128})
}

// BenchmarkFewest is the fewest whole nodes for Llama 3 405B.
func BenchmarkFewest(b *testing.B) {
	benchSearch(b, Options{Job: pretraining, Objective: FewestGPUs})
}

// BenchmarkFrontier is the fewest-GPUs search with the Pareto frontier
// of every whole-node count up to 16,384 H100s.
func BenchmarkFrontier(b *testing.B) {
	benchSearch(b, Options{Job: pretraining, Objective: FewestGPUs, Frontier: true, MaxGPUs: 16384})
}
