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
func BenchmarkEvaluate(b *testing.B) { benchEvaluate(b, "llama3-405b", 128) }

// BenchmarkEvaluateMoE is the hot loop on DeepSeek-V3's candidates on
// 256 H100s, expert parallel degrees included.
func BenchmarkEvaluateMoE(b *testing.B) { benchEvaluate(b, "deepseek-v3", 256) }

func benchEvaluate(b *testing.B, name string, gpus int) {
	m := model(b, name)
	c, err := clusterFor(gpu(b, "h100-sxm"), gpus, 8)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := newCountSearch(m, c, costmodel.DefaultAssumptions(), pretraining, Space{})
	if err != nil {
		b.Fatal(err)
	}
	var plans []costmodel.Plan
	for p := range cs.space.Candidates(m, pretraining, gpus, &Counts{}) {
		plans = append(plans, p)
	}
	sameLayout := func(p, q costmodel.Plan) bool {
		return p.TP == q.TP && p.CP == q.CP && p.PP == q.PP && p.EP == q.EP && p.ETP == q.ETP
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
				if i == 0 || !sameLayout(p, plans[(i-1)%len(plans)]) {
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
func benchSearch(b *testing.B, o Options) { benchSearchOf(b, "llama3-405b", o) }

func benchSearchOf(b *testing.B, name string, o Options) {
	m := model(b, name)
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

// BenchmarkMoEHeadline is `planner search --model deepseek-v3 --gpus 256`
// without the printing.
func BenchmarkMoEHeadline(b *testing.B) {
	benchSearchOf(b, "deepseek-v3", Options{Job: pretraining, GPUs: 256})
}

// BenchmarkMoEFewest is `planner search --model qwen3-235b-a22b --gpu
// h100`: the fewest whole nodes.
func BenchmarkMoEFewest(b *testing.B) {
	benchSearchOf(b, "qwen3-235b-a22b", Options{Job: pretraining, Objective: FewestGPUs})
}
