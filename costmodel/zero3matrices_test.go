package costmodel

import (
	"math"
	"testing"
)

// TestDenseMatricesReuse: under the limits of DeepSpeed's 2021
// Megatron ZeRO-3 configuration (stage3_max_live_parameters and
// stage3_max_reuse_distance 1e8), GPT-175B's matrices (h 12288: 453 M,
// 151 M, 604 M, 604 M parameters, 12 h^2 in all) and the 530B model's
// (h 20480: 1.26 B, 0.42 B, 1.68 B, 1.68 B) each reach the limits alone:
// every one is gathered on demand and gathered again in the backward.
// GPT-2 XL's (h 1600: 7.7 M, 2.6 M, 10.2 M, 10.2 M) stay under them:
// all are prefetched and kept from the recompute to the backward.
func TestDenseMatricesReuse(t *testing.T) {
	for _, c := range []struct {
		model         string
		h             float64
		again, fwd, b float64
	}{
		{"gpt3-175b", 12288, 1, 1, 1},
		{"megatron-530b", 20480, 1, 1, 1},
		{"gpt2-xl", 1600, 0, 0, 0},
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
// calls a layer each pass, adds the recomputed forward's gather and
// gathers every matrix again in the backward; every call carries dp
// copy kernels and host operations, so doubling dp lengthens each call
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
	if fwd.Calls != 4*96 || rec.Calls != 4*96 || bwd.Calls != 4*96 || lines[nameZ3RS].Calls != 4*96 {
		t.Errorf("calls: forward %v, recompute %v, backward %v, reduce-scatter %v; want 384 each",
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

// TestMatrixGatherMemory: Narayanan et al. 2021 (Table 2, footnote) ran
// the 530B model under ZeRO-3 with micro-batch 4 on 640 A100 80GB GPUs.
// Held per matrix (the largest 1.68 B parameters: 3.36 GB of weights, and
// two such gradients with two 5e7-element buckets: 6.91 GB) the working
// set is 10.3 GB, against 30.2 GB for one whole layer's weights twice
// and its gradients, and the peak fits the card's HBM.
func TestMatrixGatherMemory(t *testing.T) {
	a := DefaultAssumptions()
	a.ZeRO3PerMatrix = true
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 640, Attention: Eager, MicroBatch: 4, GlobalBatch: 2560, Seq: 2048, ZeRO: 3, Recompute: Full, Precision: FP16}
	e, p := evalPlan(t, "megatron-530b", "a100-80gb", 8, a, p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	h2 := 20480.0 * 20480
	want := 2*4*h2 + 2*(2*4*h2+2*dsReduceBucket)
	if got := float64(r.Stages[0].GatherBuffers); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("gathered working set %.4g B, want %.4g B", got, want)
	}
	if r.Memory.Total > r.Memory.Capacity {
		t.Errorf("peak %v over the %v of HBM the run had", r.Memory.Total, r.Memory.Capacity)
	}
}

// TestListFormCall: each rank adds host operations (one view for the
// gather, two views and the pre-copy's index and copy for the
// reduce-scatter) and its slice's copy, so the fixed part of a call
// grows linearly with the ranks while the NCCL collective's bytes do
// not.
func TestListFormCall(t *testing.T) {
	r := rates{mem: 1.8e12}
	r.gemm.Launch = 2.9e-6
	c := commCost{time: 10e-3}
	for _, n := range []float64{768, 1536} {
		rs := listFormCall(c, ReduceScatter, 0, n, r)
		if want := 10e-3 + 4*n*dsHostOp + r.gemm.Launch; math.Abs(rs.time-want) > 1e-12 {
			t.Errorf("n=%v: reduce-scatter %.4g s, want %.4g s", n, rs.time, want)
		}
		ag := listFormCall(c, AllGather, 0, n, r)
		if want := n*dsHostOp + max(10e-3+n*r.gemm.Launch, 2*n*dsHostOp); math.Abs(ag.time-want) > 1e-12 {
			t.Errorf("n=%v: all-gather %.4g s, want %.4g s", n, ag.time, want)
		}
	}
}

// TestZeRO3StepFlatInDP: Narayanan et al. 2021 (Table 2) measured
// GPT-175B under ZeRO-3 at 66.8 s a step on both 768 GPUs (micro-batch
// 2) and 1,536 (micro-batch 1), the global batch 1,536: halving each
// GPU's compute did not shorten the step. With every gather on demand and
// each call's per-rank costs growing with dp, the predicted step does not
// fall either.
func TestZeRO3StepFlatInDP(t *testing.T) {
	a := DefaultAssumptions()
	a.ZeRO3PerMatrix = true
	step := func(dp, mbs int) float64 {
		p := Plan{TP: 1, PP: 1, CP: 1, DP: dp, MicroBatch: mbs, GlobalBatch: 1536, Seq: 2048, ZeRO: 3, Recompute: Full,
			Precision: FP16, Attention: Eager}
		e, p := evalPlan(t, "megatron-175b", "a100-80gb", 8, a, p)
		return float64(e.Performance(p).StepTime)
	}
	if s768, s1536 := step(768, 2), step(1536, 1); s1536 < s768 {
		t.Errorf("step %.1f s at dp 1536, %.1f s at dp 768: want no shorter", s1536, s768)
	}
}
