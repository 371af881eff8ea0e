package calibration

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/samber/lo"
)

// moeResults are the compared mixture-of-experts rows.
func moeResults(cmp Comparison) []Result {
	return lo.Filter(cmp.Results, func(r Result, _ int) bool { return r.MoE() })
}

// denseSource summarizes the dense rows of one source.
func denseSource(cmp Comparison, id string) Summary {
	return summarize(id, lo.Filter(cmp.Results, func(r Result, _ int) bool { return !r.MoE() && r.Row.Source() == id }))
}

// TestMoERows: Megatron-Bridge's mixture-of-experts rows of catalog
// models on catalog GPUs are cases with the row's expert parallelism,
// ETP 1, the catalog model, outside the fit.
func TestMoERows(t *testing.T) {
	c := caseByID(t, "r0301")
	if c.Model.Name != "qwen3-235b-a22b" || c.Plan.EP != 32 || c.Plan.ETP != 1 || c.Plan.TP != 2 || c.Plan.PP != 8 ||
		c.Plan.VPP != 4 || c.Plan.DP != 16 || !c.EPCommOverlap || InFit(c) {
		t.Errorf("r0301: %s %s overlap %v in fit %v", c.Model.Name, c.Plan, c.EPCommOverlap, InFit(c))
	}
	a := c.Assumptions(DefaultForMemory())
	if a.MoELoadImbalance != 1 || a.MoECapacityFactor != 0 || !a.EPCommOverlap || !a.MoEWeightedActivation {
		t.Errorf("r0301 assumptions: imbalance %g capacity %g overlap %v weighted activation %v",
			a.MoELoadImbalance, a.MoECapacityFactor, a.EPCommOverlap, a.MoEWeightedActivation)
	}
	for id, overlap := range map[string]bool{"r0296": false, "r0286": true, "r0284": false, "r0244": true, "r0294": false, "r0451": false, "r0443": false} {
		if c := caseByID(t, id); c.EPCommOverlap != overlap {
			t.Errorf("%s: %s %s overlap %v, want %v", id, c.Model.Name, c.Plan, c.EPCommOverlap, overlap)
		}
	}
	// DeepEP (r0286) and HybridEP (r0296) send a token once per node;
	// the alltoall dispatcher (r0300) every copy.
	for id, dedup := range map[string]bool{"r0286": true, "r0296": true, "r0300": false} {
		c := caseByID(t, id)
		if c.EPNodeDedup != dedup || c.Assumptions(DefaultForMemory()).EPNodeDedup != dedup {
			t.Errorf("%s: %s %s node dedup %v, want %v", id, c.Model.Name, c.Plan, c.EPNodeDedup, dedup)
		}
	}
}

// TestMoERecipeRecomputeModules: the recipes' recompute_modules become
// selective recompute of exactly those modules (bridgemoe.go,
// bridgeMoERecipes), by release, and the framework's default recompute
// the recipe replaced is no longer among the case's assumptions.
func TestMoERecipeRecomputeModules(t *testing.T) {
	for id, want := range map[string]costmodel.RecomputeModules{
		"r0286": costmodel.ModMLAUpProj | costmodel.ModMLP,    // DeepSeek-V3, B200, pp 8 v 2
		"r0284": costmodel.ModMLP,                             // DeepSeek-V3, GB200, pp 4 v 4, 26.04.01
		"r0443": costmodel.ModMLAUpProj,                       // DeepSeek-V3, GB200, 25.11
		"r0291": costmodel.ModLayerNorm | costmodel.ModMoEAct, // gpt-oss-120b, H100
		"r0296": 0,                                            // Qwen3-30B-A3B: recompute_granularity None
	} {
		c := caseByID(t, id)
		got := c.Plan.RecomputeModules
		if want == 0 && c.Plan.Recompute != costmodel.NoRecompute || want != 0 && (c.Plan.Recompute != costmodel.Selective || got != want) {
			t.Errorf("%s: %s recompute %s modules %v, want %v", id, c.Model.Name, c.Plan.Recompute, got, want)
		}
		for _, a := range c.Assumed {
			if want != 0 && strings.HasPrefix(a, "recompute=") {
				t.Errorf("%s: the recipe sets the recompute, yet the assumptions keep the default %q", id, a)
			}
		}
	}
}

// TestMoEAccuracy prints every compared mixture-of-experts row, its
// predicted memory at the whole HBM (--hbm-fraction 1), the table by
// model and GPU, and holds the median and signed median to their guards
// (today's figures plus a small margin; the targets are 15% and +-8%).
func TestMoEAccuracy(t *testing.T) {
	cmp := comparison(t)
	rs := moeResults(cmp)
	if len(rs) < 20 {
		t.Fatalf("%d mixture-of-experts rows compared, want at least 20", len(rs))
	}
	fits := 0
	for _, r := range rs {
		peak, budget, err := r.memory(DefaultForMemory())
		if err != nil {
			t.Fatal(err)
		}
		verdict := "fits"
		if peak <= budget {
			fits++
		} else {
			verdict = "DOES NOT FIT"
		}
		t.Logf("%s %-15s %-8s %-48s %-6v measured %6.0f predicted %6.0f tok/s/GPU %+6.1f%%  peak %v of %v: %s",
			r.Row.ID(), r.Model.Name, r.Cluster.GPU.Name, r.Plan, r.Plan.Precision, r.Measured, r.Predicted, 100*r.Err,
			peak, budget, verdict)
	}
	t.Logf("memory: %d of %d configurations that ran are predicted to fit at the whole HBM", fits, len(rs))
	by := lo.GroupBy(rs, func(r Result) string { return fmt.Sprintf("%-16s %s", r.Model.Name, r.Cluster.GPU.Name) })
	keys := lo.Keys(by)
	slices.Sort(keys)
	for _, k := range keys {
		s := summarize(k, by[k])
		t.Logf("%-26s rows %d  median |error| %5.1f%%  signed median %+6.1f%%", k, s.Rows, 100*s.Median, 100*s.Signed)
	}
	s := cmp.MoE
	t.Logf("mixture-of-experts rows: %d compared, %d not modeled; median |error| %.1f%% (target %.0f%%), signed median %+.1f%% (target +-%.0f%%)",
		s.Rows, s.Skipped, 100*s.Median, 100*TargetMoEMedian, 100*s.Signed, 100*TargetMoESigned)
	if s.Median > GuardMoEMedian || s.Signed > GuardMoESigned || s.Signed < -GuardMoESigned {
		t.Errorf("mixture-of-experts rows: median %.1f%% (guard %.0f%%), signed %+.1f%% (guard +-%.0f%%)",
			100*s.Median, 100*GuardMoEMedian, 100*s.Signed, 100*GuardMoESigned)
	}
	// Every configuration that ran is predicted to fit (the sources do
	// not report their memory, so the budget is the whole HBM).
	if fits < len(rs) {
		t.Errorf("only %d of %d mixture-of-experts configurations that ran are predicted to fit", fits, len(rs))
	}
}

// TestMoEHostSyncFit: the host-sync latency (costmodel.DefaultMoEHostSync)
// is one number fitted across the mixture-of-experts rows whose recipes
// run without CUDA graphs over the attention, as the value that leaves
// them unbiased: their signed median is within 1% of zero, halving the
// latency makes them more than 2% optimistic and raising it by half more
// than 2% pessimistic. Their median |error| is flat around it (14-17%
// from 0.55 to 1.65 ms), so it only has to stay within a point of the
// best of those probes. The rows with graphs do not depend on it.
func TestMoEHostSyncFit(t *testing.T) {
	rows := load(t)
	at := func(f float64) (Summary, []Result) {
		base := DefaultForMemory()
		base.MoEHostSync = hardware.Seconds(f * float64(costmodel.DefaultMoEHostSync))
		var ng, g []Result
		for _, r := range moeResults(Compare(rows, base)) {
			if caseByID(t, r.Row.ID()).GraphsHideHostSync {
				g = append(g, r)
			} else {
				ng = append(ng, r)
			}
		}
		return summarize("no CUDA graphs", ng), g
	}
	fit, g1 := at(1)
	if math.Abs(fit.Signed) > 0.01 {
		t.Errorf("default %v: signed median %+.1f%%, want within 1%% of zero", costmodel.DefaultMoEHostSync, 100*fit.Signed)
	}
	for _, f := range []float64{0, 0.5, 1.5} {
		s, g := at(f)
		t.Logf("MoEHostSync x %.1f: %d rows without CUDA graphs, median %.1f%%, signed %+.1f%%", f, s.Rows, 100*s.Median, 100*s.Signed)
		if s.Median < fit.Median-moeHostSyncMedianSlack {
			t.Errorf("MoEHostSync x %.1f: median %.1f%% beats the default's %.1f%% by more than %.1f points", f, 100*s.Median, 100*fit.Median, 100*moeHostSyncMedianSlack)
		}
		if (f < 1 && s.Signed < 0.02) || (f > 1 && s.Signed > -0.02) {
			t.Errorf("MoEHostSync x %.1f: signed median %+.1f%%, want beyond %s2%%", f, 100*s.Signed, map[bool]string{true: "+", false: "-"}[f < 1])
		}
		for i := range g {
			if g[i].Predicted != g1[i].Predicted {
				t.Errorf("%s (CUDA graphs) depends on MoEHostSync", g[i].Row.ID())
			}
		}
	}
	t.Logf("default %v: median %.1f%%, signed %+.1f%% over %d rows", costmodel.DefaultMoEHostSync, 100*fit.Median, 100*fit.Signed, fit.Rows)
}

// moeHostSyncMedianSlack is how far a probe's median |error| may beat
// the fitted host-sync latency's in TestMoEHostSyncFit.
const moeHostSyncMedianSlack = 0.01

// TestBridgeBlockRecompute: Megatron-Bridge's Llama 3 8B H100 FP8-CS
// recipe sets recompute_num_layers 5, which its scripts run as
// recompute_granularity full with recompute_method block; no row of
// the set is that run, so the test moves the B200 FP8-CS 8B row (r0447)
// to H100 and checks the case checkpoints the first 5 layers.
func TestBridgeBlockRecompute(t *testing.T) {
	var row Row
	for _, r := range load(t) {
		if r.ID() == "r0447" {
			row = r
		}
	}
	if row.ID() == "" {
		t.Fatal("r0447 missing")
	}
	cols := map[string]string{}
	for k, v := range row.cols {
		cols[k] = v
	}
	cols["gpu"], cols["gpu_mem_gb"] = "H100-SXM", "80"
	c, err := newCase(Row{cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Plan
	if p.Recompute != costmodel.Full || p.RecomputeMethod != costmodel.Block || p.RecomputeLayers != 5 ||
		!slices.Contains(c.Assumed, "recipe: recompute_num_layers 5 (recompute_granularity full, recompute_method block)") {
		t.Errorf("H100 FP8-CS 8B: plan %s, assumed %v", p, c.Assumed)
	}
	if c := caseByID(t, "r0447"); c.Plan.RecomputeLayers != 0 {
		t.Errorf("r0447 (B200): plan %s; its recipe recomputes nothing", c.Plan)
	}
}

// TestBridgeMoERecipeByRelease: every Megatron-Bridge MoE row takes the
// recipe of its own NeMo container (bridgemoe.go), so one layout's rows
// from different releases differ where the recipes do: Qwen3-30B-A3B on
// 8 B300s overlaps its all-to-alls and runs full-iteration CUDA graphs
// in 26.06 (r0244) but neither in 26.04.01 (r0294); Qwen3-235B-A22B on
// H100s overlaps them from 26.02 (r0301) but not in 25.09 (r0488).
func TestBridgeMoERecipeByRelease(t *testing.T) {
	for _, r := range bridgeMoERecipes {
		for _, rel := range strings.Fields(r.releases) {
			if bridgeReleaseCommits[rel] == "" {
				t.Errorf("recipe %s on %s: release %q has no source commit", r.model, r.gpu, rel)
			}
		}
	}
	cases, _ := Cases(load(t))
	for _, c := range cases {
		if !c.MoE() || !bridgeSource(&c) {
			continue
		}
		if bridgeRelease(c.Row) == "" || slices.ContainsFunc(c.Assumed, func(s string) bool { return strings.Contains(s, "not found") }) {
			t.Errorf("%s (%s, %s): no recipe of its release %q", c.Row.ID(), c.Model.Name, c.Cluster.GPU.Name, bridgeRelease(c.Row))
		}
	}
	for id, want := range map[string][2]bool{ // overlap, host syncs hidden by graphs
		"r0244": {true, true}, "r0294": {false, false}, "r0202": {true, true}, "r0301": {true, false}, "r0488": {false, false},
	} {
		c := caseByID(t, id)
		if got := [2]bool{c.EPCommOverlap, c.GraphsHideHostSync}; got != want {
			t.Errorf("%s (NeMo %s): overlap, graphs %v, want %v", id, bridgeRelease(c.Row), got, want)
		}
	}
}
