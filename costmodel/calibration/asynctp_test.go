package calibration

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// asyncTPPairs are torchtitan's vanilla and async TP runs of one
// configuration each (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md):
// Llama 3 70B bf16 and rowwise FP8, Llama 3 8B rowwise FP8 and bf16,
// the last pair the bf16 twins of r0133 and r0134 (fp8Pairs).
var asyncTPPairs = [][2]string{{"r0123", "r0124"}, {"r0127", "r0128"}, {"r0133", "r0134"}, {"r0133-bf16", "r0134-bf16"}}

// asyncTPCase is a pair's case: a calibration row, or the bf16 twin of
// one (fp8Pairs).
func asyncTPCase(t *testing.T, id string) Case {
	for _, p := range fp8Pairs {
		if p.twinPrecision != "" && p.fp8+"-bf16" == id {
			return twinCase(t, p, caseByID(t, p.fp8).Row)
		}
	}
	return caseByID(t, id)
}

// asyncTPSpeedUpError is the squared log error of the predicted async
// over vanilla TP speed-up of asyncTPPairs at contention s, and the
// speed-ups, predicted and measured.
func asyncTPSpeedUpError(t *testing.T, s float64) (sq float64, pred, meas []float64) {
	base := costmodel.DefaultAssumptions()
	base.AsyncTPContention = s
	for _, p := range asyncTPPairs {
		v, err := Predict(asyncTPCase(t, p[0]), base)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Predict(asyncTPCase(t, p[1]), base)
		if err != nil {
			t.Fatal(err)
		}
		pr, me := a.Predicted/v.Predicted, a.Measured/v.Measured
		pred, meas = append(pred, pr), append(meas, me)
		sq += math.Pow(math.Log(pr/me), 2)
	}
	return sq, pred, meas
}

// TestAsyncTPContentionFit fits costmodel.DefaultAsyncTPContention on the
// speed-ups of asyncTPPairs (golden section on [0, 1]): the ratio of
// each pair cancels what the two runs share (GEMM and attention
// efficiency, FSDP, the FP8 recipe), so the share is fitted on what
// async TP changes alone. The default must sit at the fit.
func TestAsyncTPContentionFit(t *testing.T) {
	f := func(s float64) float64 { sq, _, _ := asyncTPSpeedUpError(t, s); return sq }
	lo, hi := 0.0, 1.0
	g := (math.Sqrt(5) - 1) / 2
	for hi-lo > 1e-4 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if f(a) < f(b) {
			hi = b
		} else {
			lo = a
		}
	}
	fit := (lo + hi) / 2
	_, pred, meas := asyncTPSpeedUpError(t, costmodel.DefaultAsyncTPContention)
	for i, p := range asyncTPPairs {
		t.Logf("%s/%s: async TP speed-up predicted %.3fx, measured %.3fx", p[1], p[0], pred[i], meas[i])
	}
	t.Logf("fitted contention %.3f, default %.2f", fit, costmodel.DefaultAsyncTPContention)
	if math.Abs(fit-costmodel.DefaultAsyncTPContention) > 0.01 {
		t.Errorf("DefaultAsyncTPContention %.2f, fit %.3f: update it", costmodel.DefaultAsyncTPContention, fit)
	}
}
