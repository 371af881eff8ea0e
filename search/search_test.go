package search

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// bruteForce ranks every candidate on gpus GPUs with the reference
// evaluation: every stage (Evaluator.Peak), no bound, no pruning.
func bruteForce(t *testing.T, m *costmodel.Model, job Job, gpus int, restrict Space, k int) ([]Ranked, int) {
	r, fits, _ := bruteForceCounts(t, m, job, gpus, restrict, k)
	return r, fits
}

// bruteForceCounts is bruteForce with the structural rejections of the
// candidate iterator.
func bruteForceCounts(t *testing.T, m *costmodel.Model, job Job, gpus int, restrict Space, k int) ([]Ranked, int, Counts) {
	t.Helper()
	job = job.withTuneDefaults()
	c, err := clusterFor(gpu(t, "h100-sxm"), gpus, 8)
	if err != nil {
		t.Fatal(err)
	}
	e, err := costmodel.NewEvaluator(m, c, costmodel.DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	var fits []Ranked
	var counts Counts
	for p := range DefaultSpace(m, job, gpus, 8).Restrict(restrict).Candidates(m, job, gpus, &counts) {
		counts.Evaluated++
		peak := e.Peak(p)
		if peak.Total > e.Budget() || !e.HostFits(p) {
			continue
		}
		fits = append(fits, Ranked{Plan: p, GPUs: gpus, MicroBatches: p.MicroBatches(), PeakStage: peak.Stage,
			Peak: peak.Total, Headroom: e.Budget() - peak.Total, Performance: e.Performance(p)})
	}
	// An uneven split whose balanced twin (same vpp) fits with a peak no
	// higher and a speed no lower is dominated.
	balanced := func(p costmodel.Plan) bool {
		f, l, _ := layerSplit(m.Layers, p.PP, p.VPP, 0, 0)
		return p.FirstStageLayers == f && p.LastStageLayers == l
	}
	twin := func(p costmodel.Plan) costmodel.Plan {
		p.FirstStageLayers, p.LastStageLayers, _ = layerSplit(m.Layers, p.PP, p.VPP, 0, 0)
		return p
	}
	even := map[costmodel.Plan]Ranked{}
	for _, r := range fits {
		if balanced(r.Plan) {
			even[r.Plan] = r
		}
	}
	var all []Ranked
	for _, r := range fits {
		if b, ok := even[twin(r.Plan)]; ok && !balanced(r.Plan) &&
			r.Peak >= b.Peak && r.Performance.TokensPerSecond <= b.Performance.TokensPerSecond {
			counts.reject(RejectDominated, 1)
			continue
		}
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b Ranked) int {
		if better(&a, &b) {
			return -1
		}
		return 1
	})
	return named(all[:min(k, len(all))]), len(all), counts
}

// TestSearchEqualsBruteForce: the lower bounds, PeakFast, the micro-batch
// pruning, the order in which dominated splits are found and the workers
// change nothing: the search ranks the same plans, with the same numbers,
// as evaluating every stage of every candidate, and finds as many plans
// that fit.
func TestSearchEqualsBruteForce(t *testing.T) {
	cases := []struct {
		model    string
		job      Job
		gpus     int
		restrict Space
	}{
		{"llama3-405b", pretraining, 128, Space{}},
		{"llama3-70b", Job{Seq: 8192, GlobalBatch: 512}, 64, Space{}},
		{"deepseek-v3", Job{Seq: 4096, GlobalBatch: 1024}, 512, Space{MicroBatch: []int{1, 2}}},
		{"mixtral-8x7b", Job{Seq: 4096, GlobalBatch: 256, Schedule: costmodel.GPipe}, 32, Space{}},
		{"llama3-70b", Job{Seq: 4096, GlobalBatch: 64, Task: costmodel.QLoRA}, 8, Space{}},
		{"llama3-70b", Job{Seq: 4096, GlobalBatch: 64, Task: costmodel.LoRA, BaseDType: costmodel.BaseFP8}, 8, Space{}},
		{"llama3-70b", Job{Seq: 8192, GlobalBatch: 64, Task: costmodel.FullFineTune, Offload: costmodel.OffloadOptimizer}, 8, Space{}},
		{"llama3-70b", Job{Seq: 8192, GlobalBatch: 64, Task: costmodel.FullFineTune, Offload: costmodel.OffloadParams}, 8, Space{}},
	}
	for _, c := range cases {
		m := model(t, c.model)
		want, fits, counts := bruteForceCounts(t, m, c.job, c.gpus, c.restrict, 10)
		var first Counts
		for _, workers := range []int{1, 2, 3} {
			r := search(t, m, Options{Job: c.job, GPUs: c.gpus, Space: c.restrict, Workers: workers})
			if workers == 1 {
				first = r.Counts
			} else if r.Counts != first {
				t.Errorf("%s on %d: counts with %d workers %+v, with one %+v", c.model, c.gpus, workers, r.Counts, first)
			}
			// The speed bound leaves some plans that fit unranked
			// (TestSpeedBoundRanksAlike counts them); none is ranked that
			// the brute force does not rank.
			rc := r.Counts.Rejected
			if r.Counts.Fit > fits || r.Counts.Fit < len(want) {
				t.Errorf("%s on %d, %d workers: %d plans ranked, brute force %d fit", c.model, c.gpus, workers, r.Counts.Fit, fits)
			}
			if !slices.Equal(r.Plans, want) {
				t.Errorf("%s on %d, %d workers: ranking differs from brute force:\n got %v\nwant %v", c.model, c.gpus, workers, planStrings(r.Plans), planStrings(want))
			}
			if r.Counts.Considered != r.Counts.Fit+r.Counts.RejectedTotal() || r.Counts.Considered != counts.Considered {
				t.Errorf("%s: counts do not add up: %+v", c.model, r.Counts)
			}
			// The structural reasons are the iterator's; what it yields
			// either fits or is over the budget, by bound or in full.
			for _, reason := range []Reason{RejectLayout, RejectSplit, RejectDuplicate, RejectSequence, RejectBatch} {
				if rc[reason] != counts.Rejected[reason] {
					t.Errorf("%s: %d rejected for %s, the iterator %d", c.model, rc[reason], reason.Key(), counts.Rejected[reason])
				}
			}
			if got := r.Counts.Fit + rc[RejectStates] + rc[RejectMemory] + rc[RejectDominated] + rc[RejectSlower]; got != counts.Evaluated {
				t.Errorf("%s: %d fit or over the budget, the iterator yields %d", c.model, got, counts.Evaluated)
			}
		}
		if fits == 0 {
			t.Errorf("%s on %d: nothing fits; the case tests nothing", c.model, c.gpus)
		}
	}
}

func planStrings(rs []Ranked) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.PlanString)
	}
	return out
}

// TestDeterministic: the same search gives byte-identical JSON, whatever
// the number of workers.
func TestDeterministic(t *testing.T) {
	m := model(t, "llama3-405b")
	var first []byte
	for _, w := range []int{1, 2, 4, 1} {
		r := search(t, m, Options{Job: pretraining, Objective: FewestGPUs, Frontier: true, MaxGPUs: 512, Workers: w})
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("%d workers: output differs", w)
		}
	}
}

// TestFewestGPUsIsMinimal: the fewest-GPUs answer fits, and one node fewer
// has no plan that fits (searched without any pruning).
func TestFewestGPUsIsMinimal(t *testing.T) {
	m := model(t, "llama3-405b")
	r := search(t, m, Options{Job: pretraining, Objective: FewestGPUs})
	if r.GPUs == 0 || len(r.Plans) == 0 || r.Plans[0].GPUs != r.GPUs || r.Plans[0].Headroom < 0 {
		t.Fatalf("fewest: %d GPUs, %d plans", r.GPUs, len(r.Plans))
	}
	if r.GPUs%8 != 0 || r.MinGPUs > r.GPUs {
		t.Errorf("fewest %d GPUs is not whole nodes or is below the states bound %d", r.GPUs, r.MinGPUs)
	}
	if _, fits := bruteForce(t, m, pretraining, r.GPUs-8, Space{}, 1); fits != 0 {
		t.Errorf("%d plans fit on %d GPUs, fewer than the answer %d", fits, r.GPUs-8, r.GPUs)
	}
	g := search(t, m, Options{Job: pretraining, Objective: FewestGPUs, Granularity: SingleGPUs})
	if g.GPUs > r.GPUs || g.GPUs < r.GPUs-7 {
		t.Errorf("single-GPU granularity: %d GPUs; whole nodes: %d", g.GPUs, r.GPUs)
	}
}

// TestFrontier: counts and throughput both increase along the frontier,
// which starts at the fewest GPUs, whose ranking is the one a search of
// that count alone gives; each point is the best plan of its count.
func TestFrontier(t *testing.T) {
	m := model(t, "llama3-405b")
	r := search(t, m, Options{Job: pretraining, Objective: FewestGPUs, Frontier: true, MaxGPUs: 2048, Top: 3})
	if at := search(t, m, Options{Job: pretraining, GPUs: r.GPUs, Top: 3}); !slices.Equal(r.Plans, at.Plans) {
		t.Errorf("frontier's plans on %d GPUs %v, a search of that count %v", r.GPUs, planStrings(r.Plans), planStrings(at.Plans))
	}
	for _, p := range r.Frontier[1:3] {
		if at := search(t, m, Options{Job: pretraining, GPUs: p.GPUs, Top: 1}); len(at.Plans) == 0 || at.Plans[0].PlanString != p.PlanString {
			t.Errorf("frontier point %s on %d GPUs is not the best of its count", p.PlanString, p.GPUs)
		}
	}
	f := r.Frontier
	if len(f) < 3 || f[0].GPUs != r.GPUs {
		t.Fatalf("frontier of %d points from %d GPUs; fewest %d", len(f), f[0].GPUs, r.GPUs)
	}
	for i := 1; i < len(f); i++ {
		if f[i].GPUs <= f[i-1].GPUs || f[i].Performance.TokensPerSecond <= f[i-1].Performance.TokensPerSecond {
			t.Errorf("point %d (%d GPUs, %g tokens/s) does not improve on %d GPUs, %g", i, f[i].GPUs,
				f[i].Performance.TokensPerSecond, f[i-1].GPUs, f[i-1].Performance.TokensPerSecond)
		}
	}
	if lo := (r.MinGPUs + 7) / 8 * 8; r.Searched != [2]int{lo, 2048} || r.CountsSearched != (2048-lo)/8+1 || r.GPUs < lo {
		t.Errorf("searched %v in %d counts", r.Searched, r.CountsSearched)
	}
}

// TestNothingFits: 405B on one node does not fit; the result names the
// nearest misses, by how much they are over, and costmodel's levers.
func TestNothingFits(t *testing.T) {
	r := search(t, model(t, "llama3-405b"), Options{Job: pretraining, GPUs: 8})
	if len(r.Plans) != 0 || r.GPUs != 0 || r.Counts.Fit != 0 {
		t.Fatalf("405B fits on 8 GPUs: %v", planStrings(r.Plans))
	}
	if len(r.Misses) != 5 || r.Misses[0].Over <= 0 || r.Misses[0].Over > r.Misses[4].Over {
		t.Fatalf("misses %+v", r.Misses)
	}
	if len(r.Levers) == 0 || !strings.Contains(r.Levers[len(r.Levers)-1].Change+r.Levers[0].Change, "--") {
		t.Errorf("levers %+v", r.Levers)
	}
	if r.MinGPUs <= 8 {
		t.Errorf("states bound %d GPUs; 405B x 16 B = 6.5 TB needs more than 8", r.MinGPUs)
	}
}

func TestBadOptions(t *testing.T) {
	m := model(t, "llama3-405b")
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Job: pretraining, GPUs: 0}, "gpus=0"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{ZeRO: []int{5}}}, "zero=5"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{TP: []int{3}}}, "tp=3 does not divide the 128 attention heads"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{PP: []int{127}}}, "pp=127 is not in [1, 126]"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{PP: []int{6}}}, "pp=6 does not divide 128 GPUs"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{CP: []int{3}}}, "cp=3 does not split seq=8192"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{MicroBatch: []int{3}}}, "mbs=3 does not divide the global batch of 2048"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{MicroBatch: []int{}}}, "the mbs axis is empty"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{VPP: []int{70}}}, "vpp=70 leaves no pp a split of the 126 layers"},
		{Options{Job: Job{Seq: 4096, GlobalBatch: 64, Schedule: costmodel.GPipe}, GPUs: 128, Space: Space{VPP: []int{1, 2}}}, "vpp=2 needs the interleaved 1F1B schedule"},
		{Options{Job: pretraining, GPUs: 128, Space: Space{MidExtra: []int{0, 83}}}, "mid-extra=83 leaves no layer for the first or last stage at any pp (at most 82"},
		{Options{Job: Job{Seq: 0, GlobalBatch: 8}, GPUs: 128}, "seq=0"},
		{Options{Job: pretraining, Objective: FewestGPUs, MaxGPUs: -1}, "max-gpus=-1"},
	}
	for _, tt := range tests {
		_, err := Search(m, gpu(t, "h100-sxm"), 0, costmodel.DefaultAssumptions(), tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v; want %q", tt.o.Space, err, tt.want)
		}
	}
	_, err := Search(m, gpu(t, "a100"), 0, costmodel.DefaultAssumptions(), Options{Job: Job{Seq: 4096, GlobalBatch: 8, Precision: costmodel.FP8}, GPUs: 8})
	if err == nil || !strings.Contains(err.Error(), "no FP8") {
		t.Errorf("fp8 on A100: %v", err)
	}
}

// TestTPBeyondNode: tp stays within the NVLink domain by default and goes
// beyond it when asked.
func TestTPBeyondNode(t *testing.T) {
	m := model(t, "llama3-405b")
	for _, p := range search(t, m, Options{Job: pretraining, GPUs: 256, Top: 50}).Plans {
		if p.Plan.TP > 8 {
			t.Fatalf("default space ranks %s, tp beyond the 8-GPU domain", p.PlanString)
		}
	}
	r := search(t, m, Options{Job: pretraining, GPUs: 256, Space: Space{TP: []int{16, 32}}})
	if len(r.Plans) == 0 || r.Plans[0].Plan.TP < 16 {
		t.Fatalf("--tp 16,32: %v", planStrings(r.Plans))
	}
}

// TestSpeedBoundRanksAlike: skipping plans whose speed bound cannot reach
// the ranking changes no result: the ranked plans, the frontier and the
// explanation are those of evaluating every candidate, and the plans it
// skips are among those the full evaluation leaves unranked (over the
// budget, dominated, or below the top). It does skip some.
func TestSpeedBoundRanksAlike(t *testing.T) {
	cases := []struct {
		model string
		o     Options
	}{
		{"llama3-405b", Options{Job: pretraining, GPUs: 128}},
		{"llama3-405b", Options{Job: pretraining, GPUs: 16384, Top: 3}},
		{"llama3-405b", Options{Job: pretraining, Objective: FewestGPUs, Frontier: true, MaxGPUs: 1024, Top: 2}},
		{"llama3-70b", Options{Job: Job{Seq: 8192, GlobalBatch: 512}, GPUs: 64}},
		{"deepseek-v3", Options{Job: Job{Seq: 4096, GlobalBatch: 1024}, GPUs: 512, Space: Space{MicroBatch: []int{1, 2}}}},
		{"mixtral-8x7b", Options{Job: Job{Seq: 4096, GlobalBatch: 256, Schedule: costmodel.GPipe}, GPUs: 32, Top: 1}},
	}
	skipped := 0
	for _, c := range cases {
		m := model(t, c.model)
		full := c.o
		full.exhaustive = true
		a, b := search(t, m, c.o), search(t, m, full)
		if !slices.Equal(a.Plans, b.Plans) || !slices.Equal(a.Frontier, b.Frontier) || !slices.Equal(a.Why, b.Why) {
			t.Errorf("%s %+v: with the bound %v, without %v", c.model, c.o, planStrings(a.Plans), planStrings(b.Plans))
		}
		ra, rb := a.Counts.Rejected, b.Counts.Rejected
		reached := func(c Counts) int {
			return c.Fit + c.Rejected[RejectDominated] + c.Rejected[RejectSlower] + c.Rejected[RejectMemory]
		}
		same := rb[RejectSlower] == 0 && a.Counts.Considered == b.Counts.Considered && reached(a.Counts) == reached(b.Counts)
		for _, r := range []Reason{RejectLayout, RejectSplit, RejectDuplicate, RejectSequence, RejectBatch, RejectStates} {
			same = same && ra[r] == rb[r]
		}
		if !same || a.Counts.Fit > b.Counts.Fit || a.Counts.Evaluated > b.Counts.Evaluated {
			t.Errorf("%s: counts with the bound %+v, without %+v", c.model, a.Counts, b.Counts)
		}
		skipped += ra[RejectSlower]
	}
	if skipped == 0 {
		t.Error("the bound skipped nothing")
	}
	t.Logf("%d plans skipped by the speed bound", skipped)
}
