package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// Meta's Llama 3 405B layouts on 16,384 H100s (Dubey et al. 2024, Table
// 4): tp 8, cp 1, pp 16, dp 128 at 8,192 tokens, 16 sequences per
// data-parallel rank (global batch 2,048); and for long context tp 8,
// cp 16, pp 16, dp 8 at 131,072 tokens, global batch 128.
var metaLayouts = []struct {
	name   string
	job    Job
	layout Space
	dp     int
}{
	{"pre-training", pretraining, Space{TP: []int{8}, PP: []int{16}, CP: []int{1}, MidExtra: []int{0}, EndShift: []int{0}, MicroBatch: []int{1}}, 128},
	{"long context", Job{Seq: 131072, GlobalBatch: 128}, Space{TP: []int{8}, PP: []int{16}, CP: []int{16}, MidExtra: []int{0}, EndShift: []int{0}, MicroBatch: []int{1}}, 8},
}

// TestMetaLayoutsFit: both layouts fit on 80 GB H100s in some ZeRO stage
// and recompute policy, with the 126 layers split as Meta split them (7
// on the first and last stages, 8 on the others).
func TestMetaLayoutsFit(t *testing.T) {
	m := model(t, "llama3-405b")
	for _, c := range metaLayouts {
		r := search(t, m, Options{Job: c.job, GPUs: 16384, Space: c.layout})
		if len(r.Plans) == 0 {
			t.Errorf("%s: Meta's layout does not fit; nearest %+v", c.name, r.Misses)
			continue
		}
		p := r.Plans[0].Plan
		if p.DP != c.dp || p.FirstStageLayers != 7 || p.LastStageLayers != 7 || r.Plans[0].Headroom < 0 {
			t.Errorf("%s: best of Meta's layout is %s", c.name, r.Plans[0].PlanString)
		}
	}
}

// metaAssumptions are the defaults with the two settings Meta's run
// shows (Dubey et al. 2024, sec. 3.3.2): "asynchronous point-to-point
// communication in PP", and a memory budget that holds Meta's layout
// without recompute ("we could pre-train Llama 3 on sequences of 8K
// tokens without activation checkpointing", after deallocating every
// tensor no longer needed "based on detailed memory allocation
// profiling"). The model puts that layout at 80.8 GB, 94.5% of the 85.5 GB
// an 80 GB H100 reports; the default budget keeps 10% free and would force
// recompute on the layout Meta ran, so the check budgets 95%.
func metaAssumptions() costmodel.Assumptions {
	a := costmodel.DefaultAssumptions()
	a.OverlapP2P = true
	a.HBMFraction = 0.95
	return a
}

// TestMetaLayoutsNearBest: Meta's layouts, with the interleaving, ZeRO
// stage and recompute the search picks for them, come within 10% of the
// best throughput the search finds on the same 16,384 GPUs, under Meta's
// settings (metaAssumptions).
//
// For its own layouts the search picks what Meta describes: one-layer
// chunks (v 8), ZeRO-2 ("shards optimizer states and gradients") and no
// recompute. They reach 154.8 tokens/s per GPU at 8,192 tokens (Meta
// measured 152.4: 400 TFLOP/s under PaLM's count) and 88.1 at 131,072.
// The best plans found are 9.2% and 8.0% faster (ratios 0.916 and 0.926):
// tp8-pp16v8[7,7]-cp2-dp64-zero1-sp-none-mb1 and
// tp8-pp16v8[7,7]-cp32-dp4-zero1-sp-none-mb1. Both trade data for
// context parallelism, which doubles the micro-batches per pipeline (32
// instead of 16) and halves the activations per GPU: the bubble halves
// (678 to 318 ms, 1.20 to 0.58 s) and ZeRO-1 fits, so the gradients are
// reduced once per step instead of once per micro-batch, each time with
// the last layer's share exposed (378 to 105 ms, 378 to 24 ms). Those two
// parts account for the whole gap; the rest of the step is alike. Meta
// names the first cost itself: MFU fell from 43% at DP 64 to 41% at DP 128
// "due to the lower batch size per DP group". Context parallelism over
// 4,096 tokens per rank is nearly free in the model (the ring's key/value
// exchange hides behind attention; with GQA it is small, as Meta notes of
// its own all-gather variant, whose exchange Meta leaves exposed and the
// model does not), which is why the search prefers it; Meta kept cp 1 at
// 8,192 tokens without saying why. The gap is thus bounded by what Meta's
// layout spends in the bubble and the reduce-scatter tail, 16% and 14% of
// its step, of which the best plans save about half; the tolerance of 10%
// holds that cause and fails if anything else opens the gap, as the
// breakdown check below does part by part.
func TestMetaLayoutsNearBest(t *testing.T) {
	m, g, a := model(t, "llama3-405b"), gpu(t, "h100-sxm"), metaAssumptions()
	for _, c := range metaLayouts {
		meta, err := Search(m, g, 0, a, Options{Job: c.job, GPUs: 16384, Space: c.layout})
		if err != nil {
			t.Fatal(err)
		}
		best, err := Search(m, g, 0, a, Options{Job: c.job, GPUs: 16384})
		if err != nil {
			t.Fatal(err)
		}
		if len(meta.Plans) == 0 || len(best.Plans) == 0 {
			t.Fatalf("%s: nothing fits", c.name)
		}
		x, y := meta.Plans[0], best.Plans[0]
		p := x.Plan
		if p.VPP != 8 || p.ZeRO != 2 || p.Recompute != costmodel.NoRecompute {
			t.Errorf("%s: the best of Meta's layout is %s; Meta ran one-layer chunks, ZeRO-2, no recompute", c.name, x.PlanString)
		}
		ratio := x.Performance.TokensPerSecond / y.Performance.TokensPerSecond
		t.Logf("%s: Meta's %s reaches %.1f%% of %s", c.name, x.PlanString, 100*ratio, y.PlanString)
		if ratio < 0.90 {
			t.Errorf("%s: Meta's %s reaches %.1f%% of the best %s: %v", c.name, x.PlanString, 100*ratio, y.PlanString, Why(y, x))
		}
		bx, by := x.Performance.Breakdown, y.Performance.Breakdown
		explained := (bx.Bubble + bx.ExposedDPGrads) - (by.Bubble + by.ExposedDPGrads)
		if gap := bx.Total - by.Total; explained < gap {
			t.Errorf("%s: bubble and gradient reduction explain %v of the %v gap:\n Meta %+v\n best %+v", c.name, explained, gap, bx, by)
		}
	}
}

// TestFewerGPUsNeverFaster: under a fixed global batch, a smaller GPU
// count's best plan is never faster than a larger count's unless the
// model says why: the larger count's best plan idles longer in the
// pipeline bubble, recomputes more, exposes more communication per step,
// or computes slower on the stage that sets the step (fewer micro-batches
// per pipeline, fewer layouts that divide the batch and layer splits
// that load one stage more are what a larger count costs).
func TestFewerGPUsNeverFaster(t *testing.T) {
	r := search(t, model(t, "llama3-405b"), Options{Job: pretraining, Objective: FewestGPUs, Frontier: true, MaxGPUs: 1024, Top: 1})
	best := bestPerCount(t, r)
	inversions := 0
	for i, small := range best {
		for _, large := range best[i+1:] {
			if small.Performance.TokensPerSecond <= large.Performance.TokensPerSecond {
				continue
			}
			inversions++
			if !slower(large, small) {
				t.Errorf("%d GPUs (%s, %.0f tokens/s) beat %d GPUs (%s, %.0f) with no bubble, recompute or communication to explain it",
					small.GPUs, small.PlanString, small.Performance.TokensPerSecond, large.GPUs, large.PlanString, large.Performance.TokensPerSecond)
			}
		}
	}
	t.Logf("%d counts, %d inversions, each explained", len(best), inversions)
}

// bestPerCount searches every count of a frontier's range on its own.
func bestPerCount(t *testing.T, r *Result) []Ranked {
	var out []Ranked
	m := model(t, "llama3-405b")
	for n := r.Searched[0]; n <= r.Searched[1]; n += 8 {
		if c := search(t, m, Options{Job: r.Job, GPUs: n, Top: 1}); len(c.Plans) > 0 {
			out = append(out, c.Plans[0])
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d counts fit", len(out))
	}
	return out
}

// slower reports whether a loses time to b in a part of the step that
// grows with the GPU count: a larger share of the step in the bubble,
// recompute or exposed communication, or a slower compute phase (the
// stage that sets the step does more than its share of the work, or runs
// smaller, less efficient kernels).
func slower(a, b Ranked) bool {
	pa, pb := a.Performance, b.Performance
	share := func(p costmodel.Performance, t float64) float64 { return t / float64(p.StepTime) }
	return share(pa, float64(pa.Breakdown.Bubble)) > share(pb, float64(pb.Breakdown.Bubble)) ||
		extraFLOPs(pa) > extraFLOPs(pb) ||
		share(pa, float64(pa.ExposedComm)) > share(pb, float64(pb.ExposedComm)) ||
		computeRate(pa) < computeRate(pb)
}

// computeRate is the model FLOP/s per GPU while the slowest stage
// computes: the average GPU's model FLOPs over the compute time of the
// stage that sets the step.
func computeRate(p costmodel.Performance) float64 {
	if p.Breakdown.Compute == 0 {
		return 0
	}
	return float64(p.ModelFLOPsPerGPU) * float64(p.StepTime) / float64(p.Breakdown.Compute)
}

// TestMoreZeRONeverMoreStates: on every stage of every layout the search
// considers, a higher ZeRO stage never holds more model states per GPU
// (weights, gradients, master weights, moments; ZeRO-3's gather buffers
// are a working set, not states).
func TestMoreZeRONeverMoreStates(t *testing.T) {
	for _, name := range []string{"llama3-405b", "deepseek-v3", "mixtral-8x7b"} {
		m := model(t, name)
		c, err := clusterFor(gpu(t, "h100-sxm"), 256, 8)
		if err != nil {
			t.Fatal(err)
		}
		e, err := costmodel.NewEvaluator(m, c, costmodel.DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		job := Job{Seq: 4096, GlobalBatch: 1024}
		s := DefaultSpace(m, job, 256, 8).Restrict(Space{ZeRO: []int{0}})
		checked := 0
		for l := range s.Layouts(m, job, 256, &Counts{}) {
			for r := range l.PP {
				prev := e.Stage(l, r).ModelStates()
				for z := 1; z <= 3; z++ {
					q := l
					q.ZeRO = z
					if cur := e.Stage(q, r).ModelStates(); cur > prev {
						t.Fatalf("%s %s stage %d: ZeRO-%d holds %v, ZeRO-%d %v", name, q, r, z, cur, z-1, prev)
					} else {
						prev = cur
					}
					checked++
				}
			}
		}
		if checked < 100 {
			t.Errorf("%s: %d checks", name, checked)
		}
	}
}
