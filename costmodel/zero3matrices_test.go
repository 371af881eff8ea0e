package costmodel

import (
	"math"
	"testing"
)

// TestDenseMatricesReuse: GPT-175B's layer (h 12288, FFN 4h) holds 453 M,
// 151 M, 604 M and 604 M parameters in its four matrices (12 h^2 in all);
// after the recomputed forward DeepSpeed keeps only the last (604 M used
// again at once, under stage3_max_reuse_distance 1e9), so the backward
// gathers 8 of the 12 h^2 again, and every matrix is prefetched (each
// predecessor under stage3_max_live_parameters 1e9). The 530B layer (h
// 20480) has matrices of 1.26 B, 0.42 B, 1.68 B, 1.68 B: all are gathered
// again, and only the one after the 0.42 B output projection is
// prefetched in the forward, the one before it in the backward.
func TestDenseMatricesReuse(t *testing.T) {
	for _, c := range []struct {
		model         string
		h             float64
		again, fwd, b float64
	}{
		{"gpt3-175b", 12288, 8.0 / 12, 0, 0},
		{"megatron-530b", 20480, 1, 8.0 / 12, 9.0 / 12},
	} {
		m, err := LookupModel(c.model)
		if err != nil {
			t.Fatal(err)
		}
		mats := m.denseMatrices(1)
		h2 := c.h * c.h
		for i, want := range [4]float64{3 * h2, h2, 4 * h2, 4 * h2} {
			if math.Abs(mats[i]/want-1) > 1e-12 {
				t.Errorf("%s: matrix %d has %.4g parameters, want %.4g", c.model, i, mats[i], want)
			}
		}
		if got := backwardRegather(mats); math.Abs(got-c.again) > 1e-12 {
			t.Errorf("%s: backward regathers %.3f of the layer, want %.3f", c.model, got, c.again)
		}
		bwd := []float64{mats[3], mats[2], mats[1], mats[0]}
		if f, b := onDemandShare(mats[:]), onDemandShare(bwd); math.Abs(f-c.fwd) > 1e-12 || math.Abs(b-c.b) > 1e-12 {
			t.Errorf("%s: on-demand share forward %.3f, backward %.3f; want %.3f, %.3f", c.model, f, b, c.fwd, c.b)
		}
	}
}

// TestZeRO3PerMatrixTraffic: with ZeRO3PerMatrix, GPT-175B on 1,536
// A100s (dp 1536, one micro-batch, full recompute) gathers per matrix, 4
// calls a layer each pass, and adds the recomputed forward's gather;
// every call carries dp copy kernels, so doubling dp lengthens each call
// while the bytes per GPU stay the same; the step is slower than with
// one collective per layer.
func TestZeRO3PerMatrixTraffic(t *testing.T) {
	a := DefaultAssumptions()
	a.ZeRO3PerMatrix = true
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 768, MicroBatch: 1, GlobalBatch: 768, Seq: 2048, ZeRO: 3, Recompute: Full, Precision: FP16}
	e, p := evalPlan(t, "gpt3-175b", "a100-80gb", 8, a, p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]TrafficLine{}
	for _, l := range r.Traffic {
		lines[l.Name] = l
	}
	fwd, rec, bwd := lines[nameZ3Fwd], lines[nameZ3Rec], lines[nameZ3Bwd]
	if fwd.Calls != 4*96 || rec.Calls != 4*96 || math.Abs(bwd.Calls-4*96*8.0/12) > 1e-9 || lines[nameZ3RS].Calls != 4*96 {
		t.Errorf("calls: forward %v, recompute %v, backward %v, reduce-scatter %v; want 384, 384, 256, 384",
			fwd.Calls, rec.Calls, bwd.Calls, lines[nameZ3RS].Calls)
	}
	floor := 768 * e.rates(p).gemm.Launch
	if per := float64(fwd.Time) / fwd.Calls; per <= floor {
		t.Errorf("one gather %.3g s, not above its %d copy kernels' %.3g s", per, 768, floor)
	}
	p2 := p
	p2.DP, p2.GlobalBatch, p2.MicroBatch = 1536, 1536, 1
	e2, p2 := evalPlan(t, "gpt3-175b", "a100-80gb", 8, a, p2)
	r2, err := e2.Estimate(p2)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r2.Traffic {
		if l.Name == nameZ3Fwd && (l.Time <= fwd.Time || math.Abs(float64(l.Bytes)/float64(fwd.Bytes)-1) > 1e-3) {
			t.Errorf("dp 1536: forward gathers %v in %v; dp 768: %v in %v (want the same bytes, longer)", l.Bytes, l.Time, fwd.Bytes, fwd.Time)
		}
	}
	off, _ := evalPlan(t, "gpt3-175b", "a100-80gb", 8, DefaultAssumptions(), p2)
	if s, s0 := e2.Performance(p2).StepTime, off.Performance(p2).StepTime; s <= s0 {
		t.Errorf("step %v with per-matrix collectives, %v with per-layer ones: want it slower", s, s0)
	}
}
