package efficiency

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// attentionBound is the largest in-fit median and 90th-percentile error
// of the attention refit; Ada's L2-resident rows get their own.
func attentionBound(a hardware.Arch) (median, p90 float64) {
	if a == hardware.Ada {
		return 0.15, 0.75
	}
	return 0.08, 0.20
}

// TestAttentionFitsReproduce refits every attention (generation, format)
// and fails on drift from attentionFits or errors over attentionBound.
func TestAttentionFitsReproduce(t *testing.T) {
	data := attentionSamples(t)
	for _, fit := range attentionFits {
		sets := attentionSets(t, data, fitGPUs[fit.arch], fit.format)
		p, err := FitAttention(sets, attentionStart)
		if err != nil {
			t.Fatal(err)
		}
		e := attentionSetErrors(p, sets)
		t.Logf("%-15v %-5v rows %4d  rms %.3f  median %.3f  p90 %.3f  (ceiling %.3f, KHalf %.0f keys, launch %.1f us, HBM %.2f)",
			fit.arch, fit.format, e.Rows, e.RMS, e.Median, e.P90, p.Ceiling, p.KHalf, p.Launch*1e6, p.HBMEff)
		var rel []float64
		for _, s := range sets {
			now, stored := p.ApplyAttention(s.Base), fit.p.ApplyAttention(s.Base)
			g := AttentionErrors(now, s.Samples)
			t.Logf("    %-9s rows %4d  rms %.3f  median %.3f  p90 %.3f", s.GPU, g.Rows, g.RMS, g.Median, g.P90)
			for _, r := range s.Samples {
				rel = append(rel, abs(now.Measured(r)/stored.Measured(r)-1))
			}
		}
		if d := summarize(rel).Median; d > 0.005 || math.Abs(e.Median-fit.err.Median) > 0.005 || e.Rows != fit.err.Rows {
			t.Errorf("%v %v: constants drift from the refit (median change %.4f); refit %#v, %+v", fit.arch, fit.format, d, p, e)
		}
		if med, p90 := attentionBound(fit.arch); e.Median > med || e.P90 > p90 {
			t.Errorf("%v %v: median %.3f, p90 %.3f exceed %.2f, %.2f", fit.arch, fit.format, e.Median, e.P90, med, p90)
		}
	}
}

// TestAttentionLeaveOneGPUOut: fit H100, predict H200; fit B200, predict
// GB200; fit Blackwell, predict B300; and back.
func TestAttentionLeaveOneGPUOut(t *testing.T) {
	data := attentionSamples(t)
	for _, c := range []struct {
		train []string
		test  string
	}{
		{[]string{"h100-sxm"}, "h200"}, {[]string{"h200"}, "h100-sxm"},
		{[]string{"b200"}, "gb200"}, {[]string{"gb200"}, "b200"}, {[]string{"b200", "gb200"}, "b300"},
	} {
		g := lookup(t, c.test)
		for _, f := range []Format{BF16, FP8} {
			p, err := FitAttention(attentionSets(t, data, c.train, f), attentionStart)
			if err != nil {
				t.Fatal(err)
			}
			e := AttentionErrors(p.ApplyAttention(baseAttention(g, f)), data[gemmKey{c.test, f}])
			t.Logf("fit %v -> %-8s %-5v rows %4d  rms %.3f  median %.3f  p90 %.3f", c.train, c.test, f, e.Rows, e.RMS, e.Median, e.P90)
			if med, _ := attentionBound(g.Arch); e.Median > 2*med {
				t.Errorf("fit %v -> %s %v: held-out median %.3f over %.3f", c.train, c.test, f, e.Median, 2*med)
			}
		}
	}
}

func TestAttentionForErrors(t *testing.T) {
	_, _, err := AttentionFor(lookup(t, "a100-80gb"), FP8)
	if err == nil || !strings.Contains(err.Error(), "a100-80gb") || !strings.Contains(err.Error(), "valid: bf16") {
		t.Errorf("FP8 attention on A100: error %v", err)
	}
	if _, _, err := AttentionFor(lookup(t, "b200"), NVFP4); err == nil || !strings.Contains(err.Error(), "nvfp4") {
		t.Errorf("NVFP4 attention: error %v", err)
	}
	_, ev, err := AttentionFor(lookup(t, "mi300x"), BF16)
	if err != nil || !ev.Extrapolated || ev.Fitted != "h100_sxm+h200_sxm" {
		t.Errorf("MI300X: %+v %v", ev, err)
	}
}

// TestCausalHalvesWork: at 16k tokens a causal forward does about half
// the work of an unmasked one, and Flops counts it so.
func TestCausalHalvesWork(t *testing.T) {
	a, _, err := AttentionFor(lookup(t, "h100-sxm"), BF16)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Forward(16, 16384, 16384, 128, 128, true) / a.Forward(16, 16384, 16384, 128, 128, false)
	if r < 0.48 || r > 0.53 {
		t.Errorf("causal / full time %.3f, want about 0.5", r)
	}
	if f := Flops(1, 4, 4, 1, 1, true) / Flops(1, 4, 4, 1, 1, false); f != 0.5 {
		t.Errorf("causal FLOPs ratio %g", f)
	}
	if a.Forward(0, 1, 1, 128, 128, true) != 0 || a.Backward(1, 0, 1, 128, 128, false) != 0 {
		t.Error("an empty call takes no time")
	}
}
