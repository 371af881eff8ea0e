package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestRecipes: every precision parses back from its name, has a cited
// recipe, and the low-precision ones read fewer bytes per GEMM input than
// bf16; "fp8" keeps meaning Transformer Engine's delayed scaling.
func TestRecipes(t *testing.T) {
	for _, p := range Precisions() {
		q, err := ParsePrecision(p.String())
		r := p.Recipe()
		if err != nil || q != p || r.Source == "" || r.GEMMFormat == "" {
			t.Errorf("%v: parse %v %v, recipe %+v", p, q, err, r)
		}
		if p.LowPrecisionGEMM() && (r.InputBytes >= 2 || r.CastReads < 1 || r.CastWrites < 1 || r.LowGEMMs == "") {
			t.Errorf("%v: recipe %+v", p, r)
		}
	}
	if p, _ := ParsePrecision("FP8"); p != FP8 || !strings.Contains(p.Recipe().Source, "DelayedScaling") {
		t.Errorf("fp8 parses to %v (%s)", p, p.Recipe().Source)
	}
	if _, err := ParsePrecision("fp6"); err == nil || !strings.Contains(err.Error(), "mxfp8") {
		t.Errorf("fp6: %v, want the valid recipes listed", err)
	}
	// MXFP8 carries one E8M0 byte per 32 values on each of two copies.
	if got := MXFP8.Recipe().WeightCopyBytes; got != 2*(1+1.0/32) {
		t.Errorf("mxfp8 weight copies %g B/param", got)
	}
	if NVFP4.PeakFormat() != "fp4" || FP8Blockwise.PeakFormat() != "fp8" || BF16.PeakFormat() != "bf16" {
		t.Error("peak formats")
	}
}

// TestRecipeMemoryAndTime: an fp8 recipe adds its weight copies as a
// named memory line (2 bytes per layer parameter for delayed scaling) and
// current scaling's extra amax read makes a step slower than delayed
// scaling's, both faster than bf16 on H100.
func TestRecipeMemoryAndTime(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	g, _ := hardware.LookupGPU("h100")
	c, _ := hardware.ClusterForGPUs(g, 8, 8)
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 8, VPP: 1, MicroBatch: 1, GlobalBatch: 64, Seq: 8192, ZeRO: 1,
		Attention: Flash, Recompute: NoRecompute}
	a := DefaultAssumptions()
	step := map[Precision]float64{}
	for _, pr := range []Precision{BF16, FP8, FP8CS} {
		p.Precision = pr
		rep, err := Estimate(m, c, p, a)
		if err != nil {
			t.Fatal(err)
		}
		step[pr] = float64(rep.Performance.StepTime)
		var line hardware.Bytes
		for _, l := range rep.Memory.Lines {
			if strings.Contains(l.Name, "weight copies") {
				line = l.Bytes
			}
		}
		// Llama 3.1 8B: 6.98 B of its 8.03 B parameters are in layers.
		want := hardware.Bytes(pr.Recipe().WeightCopyBytes * 6.98e9)
		if math.Abs(float64(line-want)) > 0.01*float64(want)+1 {
			t.Errorf("%v: weight-copy line %v, want %v", pr, line, want)
		}
	}
	if !(step[FP8] < step[FP8CS] && step[FP8CS] < step[BF16]) {
		t.Errorf("steps bf16 %.3f, fp8 %.3f, fp8-cs %.3f s", step[BF16], step[FP8], step[FP8CS])
	}
}

// TestWgradCast: under Transformer Engine's recipes a linear layer casts
// twice, its input in the forward and its output gradient in the
// backward, each writing the copy and its transpose; the weight-gradient
// GEMM reads those transposes. torchao's rowwise recipe casts the input
// (3 bytes per element) in the forward and, in the backward, the
// gradient (3 bytes), both weight-gradient operands again column-wise (5
// bytes each: torchao's roofline, 8 bytes per tensor in all), and
// rescales both backward GEMMs' 16-bit outputs (read and write, 4
// bytes): on a square m x k input with a k x k weight, m = 2k, the
// backward moves 3 + 5 + 5 + 4 + 4/2 = 19 bytes per input element
// against the forward's 3. rowwise_with_gw_hp casts only the gradient in
// the backward (3 bytes, as the forward's input).
func TestWgradCast(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	g, _ := hardware.LookupGPU("h100")
	c, _ := hardware.ClusterForGPUs(g, 8, 8)
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	for pr, want := range map[Precision]float64{FP8: 1, FP8CS: 1, MXFP8: 1, NVFP4: 1, FP8Blockwise: 1, FP8Rowwise: 19.0 / 3, FP8RowwiseGWHP: 1} {
		var lc layerCost
		q := pass{r: e.rates(Plan{Precision: pr}), c: &lc, t: 8192}
		q.linear(4096, 4096) // square: the input and its gradient are the same size
		if got := lc.bwd.mem / lc.fwd.mem; math.Abs(got-want) > 1e-9 {
			t.Errorf("%v: backward casts %.3g times the forward's, want %g", pr, got, want)
		}
	}
}

// TestWgradHighPrecision: torchao's rowwise_with_gw_hp runs the data
// gradient in FP8 and the weight gradient on the 16-bit curve
// (torchao/float8/config.py, ROWWISE_WITH_GW_HP).
func TestWgradHighPrecision(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	g, _ := hardware.LookupGPU("h100")
	c, _ := hardware.ClusterForGPUs(g, 8, 8)
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	r := e.rates(Plan{Precision: FP8RowwiseGWHP})
	var lc layerCost
	q := pass{r: r, c: &lc, t: 8192}
	q.linear(4096, 14336)
	want := (r.gemm.Time(8192, 4096, 14336) + r.half.Time(4096, 14336, 8192)) / r.gemmShare
	if math.Abs(lc.bwd.gemm-want) > 1e-12 {
		t.Errorf("backward GEMMs %.4g s, want FP8 data gradient + bf16 weight gradient %.4g s", lc.bwd.gemm, want)
	}
	if r.half.Time(4096, 14336, 8192) <= r.gemm.Time(4096, 14336, 8192) {
		t.Errorf("the bf16 weight-gradient GEMM is not slower than the FP8 one")
	}
}
