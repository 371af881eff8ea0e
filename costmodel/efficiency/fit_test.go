package efficiency

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// errorBound is the largest in-fit median and 90th-percentile error the
// refit may show per format; Ada's L2-resident rows get their own.
func errorBound(a hardware.Arch, f Format) (median, p90 float64) {
	switch {
	case a == hardware.Ada:
		return 0.27, 0.95
	case f == BF16:
		return 0.12, 0.40
	case f == FP8:
		return 0.08, 0.20
	case f == FP8Block:
		return 0.15, 0.40
	}
	return 0.22, 0.50
}

// TestFitsReproduce refits every (generation, format) on testdata and
// fails when the constants in gemmFits drift from the refit (predictions
// on the fit rows differ by more than 0.5% at the median or the stored
// errors by more than 0.005) or the error exceeds errorBound.
func TestFitsReproduce(t *testing.T) {
	data := gemmSamples(t)
	for _, fit := range gemmFits {
		sets := fitSets(t, data, fitGPUs[fit.arch], fit.format)
		p, err := FitGEMM(sets, gemmStart)
		if err != nil {
			t.Fatal(err)
		}
		var now, stored []GEMM
		for _, s := range sets {
			now, stored = append(now, p.Apply(s.Base)), append(stored, fit.p.Apply(s.Base))
		}
		e := setErrors(now, sets)
		t.Logf("%-15v %-9v rows %5d  rms %.3f  median %.3f  p90 %.3f  (ceiling %.3f, KHalf %.0f, launch %.2f us, HBM %.2f)",
			fit.arch, fit.format, e.Rows, e.RMS, e.Median, e.P90, p.Ceiling, p.KHalf, p.Launch*1e6, p.HBMEff)
		for i, s := range sets {
			g := ErrorsOf(now[i], s.Samples)
			b := ErrorsOf(now[i], trainingShapes(s.Samples))
			t.Logf("    %-9s rows %5d  rms %.3f  median %.3f  p90 %.3f | training shapes %4d rows  median %.3f  p90 %.3f",
				s.GPU, g.Rows, g.RMS, g.Median, g.P90, b.Rows, b.Median, b.P90)
		}
		if d := predictionDrift(now, stored, sets); d > 0.005 {
			t.Errorf("%v %v: constants drift from the refit: median prediction change %.4f; refit %#v", fit.arch, fit.format, d, p)
		}
		if math.Abs(e.Median-fit.err.Median) > 0.005 || math.Abs(e.P90-fit.err.P90) > 0.005 || e.Rows != fit.err.Rows {
			t.Errorf("%v %v: stored errors %+v, refit %+v", fit.arch, fit.format, fit.err, e)
		}
		if med, p90 := errorBound(fit.arch, fit.format); e.Median > med || e.P90 > p90 {
			t.Errorf("%v %v: median %.3f, p90 %.3f exceed the bound %.2f, %.2f", fit.arch, fit.format, e.Median, e.P90, med, p90)
		}
	}
}

// trainingShapes keeps the rows shaped like training GEMMs: m (tokens
// of a micro-batch) at least 1024 and n, k at least 1024.
func trainingShapes(rows []Sample) []Sample {
	var out []Sample
	for _, r := range rows {
		if r.M >= 1024 && r.N >= 1024 && r.K >= 1024 {
			out = append(out, r)
		}
	}
	return out
}

// predictionDrift is the median |a/b - 1| of two curves' predictions.
func predictionDrift(a, b []GEMM, sets []Set) float64 {
	var rel []float64
	for i, s := range sets {
		for _, r := range s.Samples {
			rel = append(rel, abs(a[i].Measured(r)/b[i].Measured(r)-1))
		}
	}
	return summarize(rel).Median
}

// TestLeaveOneGPUOut fits a generation on one GPU and predicts another
// GPU's rows: H100 to H200 (and back), B200 to GB200 (and back), and the
// Blackwell fit on B300 (Blackwell Ultra). A held-out median error under
// 1.5x the in-fit bound says the curve carries across parts through their
// datasheet peak, bandwidth and SM count.
func TestLeaveOneGPUOut(t *testing.T) {
	data := gemmSamples(t)
	cases := []struct {
		train []string
		test  string
	}{
		{[]string{"h100-sxm"}, "h200"}, {[]string{"h200"}, "h100-sxm"},
		{[]string{"b200"}, "gb200"}, {[]string{"gb200"}, "b200"},
		{[]string{"b200", "gb200"}, "b300"},
	}
	for _, c := range cases {
		g := lookup(t, c.test)
		for _, f := range measuredFormats {
			sets := fitSets(t, data, c.train, f)
			held := data[gemmKey{c.test, f}]
			if len(sets) == 0 || len(held) == 0 {
				continue
			}
			p, err := FitGEMM(sets, gemmStart)
			if err != nil {
				t.Fatal(err)
			}
			e := ErrorsOf(p.Apply(baseGEMM(g, f)), held)
			t.Logf("fit %v -> %-8s %-9v rows %4d  rms %.3f  median %.3f  p90 %.3f", c.train, c.test, f, e.Rows, e.RMS, e.Median, e.P90)
			if med, _ := errorBound(g.Arch, f); e.Median > 1.5*med {
				t.Errorf("fit %v -> %s %v: held-out median %.3f over %.3f", c.train, c.test, f, e.Median, 1.5*med)
			}
		}
	}
}
