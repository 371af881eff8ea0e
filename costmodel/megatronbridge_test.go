package costmodel

import "testing"

// megatronBridgeRows are Megatron-Bridge's published MoE pre-training
// benchmarks on H100 (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-
// archive.md @ 067f987df, release 26.04.01; the rows of
// /work/shared/calibration/measured-modern.csv named by id): the layout,
// the batch, the precision and the tokens/s/GPU measured. Megatron-Bridge
// force-balances the router in these runs (dropless), which is the
// planner's default MoELoadImbalance of 1. Recompute is set per recipe,
// not in the table; the test takes full recompute, which leaves the fit
// to the model states that expert parallelism divides, and Megatron's
// distributed optimizer (ZeRO-1) with fp32 main gradients.
var megatronBridgeRows = []struct {
	id, model           string
	gpus                int
	tp, pp, vpp, dp, ep int
	mbs, gbs            int
	precision           Precision
	measured            float64 // tokens/s/GPU
}{
	{"r0296", "qwen3-30b-a3b", 16, 1, 1, 1, 16, 16, 1, 1024, FP8, 8960},
	{"r0301", "qwen3-235b-a22b", 256, 2, 8, 4, 16, 32, 1, 8192, FP8, 1712},
	{"r0291", "gpt-oss-120b", 64, 1, 4, 1, 16, 8, 1, 1280, BF16, 5824},
}

// TestMegatronBridgeMoEFits: every published layout fits on its GPUs,
// the same layout without expert parallelism (ep 1) does not, and the
// log prints predicted against measured throughput (not a tolerance
// test: the expert kernels are priced by the dense GEMM roofline).
func TestMegatronBridgeMoEFits(t *testing.T) {
	a := DefaultAssumptions()
	a.GradAccumFP32 = true
	for _, row := range megatronBridgeRows {
		m, err := LookupModel(row.model)
		if err != nil {
			t.Fatal(err)
		}
		p := Plan{TP: row.tp, PP: row.pp, VPP: row.vpp, CP: 1, DP: row.dp, EP: row.ep, ETP: 1, ZeRO: 1,
			SP: row.tp > 1, Recompute: Full, MicroBatch: row.mbs, GlobalBatch: row.gbs, Seq: 4096,
			Precision: row.precision}
		r, err := Estimate(m, cluster(t, "h100-sxm", row.gpus), p, a)
		if err != nil {
			t.Fatalf("%s %s: %v", row.id, row.model, err)
		}
		if !r.Memory.Fits {
			t.Errorf("%s %s %s: predicted not to fit: %v over the %v budget", row.id, row.model, r.PlanString,
				-r.Memory.Headroom, r.Memory.Budget)
		}
		replicated := p
		replicated.EP = 1
		if q, err := Estimate(m, cluster(t, "h100-sxm", row.gpus), replicated, a); err != nil || q.Memory.Fits {
			t.Errorf("%s %s: ep 1 is predicted to fit (%v), so the test does not exercise expert parallelism", row.id, row.model, err)
		}
		got := r.Performance.TokensPerSecondPerGPU
		ov := a
		ov.EPCommOverlap = true
		o, err := Estimate(m, cluster(t, "h100-sxm", row.gpus), p, ov)
		if err != nil {
			t.Fatal(err)
		}
		hidden := o.Performance.TokensPerSecondPerGPU
		t.Logf("%s %-16s %-42s peak %v of %v; tokens/s/GPU measured %.0f, predicted %.0f (%+.0f%%; exposed ep %v of %v), with all-to-all overlap %.0f (%+.0f%%)",
			row.id, row.model, r.PlanString, r.Memory.Total, r.Memory.Budget, row.measured, got, 100*(got/row.measured-1),
			r.Performance.Breakdown.ExposedEP, r.Performance.StepTime, hidden, 100*(hidden/row.measured-1))
	}
}
