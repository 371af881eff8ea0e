package calibration

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestAsyncTPContentionFit: costmodel.DefaultAsyncTPContention sits at
// the fit on torchtitan's AsyncTP pairs (FitAsyncTPContention), and at
// it each pair's predicted speed-up is within 5% of the measured one.
func TestAsyncTPContentionFit(t *testing.T) {
	fit, at, ok := FitAsyncTPContention(load(t), costmodel.DefaultAssumptions())
	if !ok {
		t.Fatal("an AsyncTP pair is not a case")
	}
	for _, p := range at {
		t.Logf("%s/%s: async TP speed-up predicted %.3fx, measured %.3fx", p.Async, p.Vanilla, p.Predicted, p.Measured)
		if math.Abs(p.Predicted/p.Measured-1) > 0.05 {
			t.Errorf("%s/%s: predicted %.3fx against %.3fx measured, beyond 5%%", p.Async, p.Vanilla, p.Predicted, p.Measured)
		}
	}
	t.Logf("fitted contention %.3f, default %.2f", fit, costmodel.DefaultAsyncTPContention)
	if math.Abs(fit-costmodel.DefaultAsyncTPContention) > 0.01 {
		t.Errorf("DefaultAsyncTPContention %.2f, fit %.3f: update it", costmodel.DefaultAsyncTPContention, fit)
	}
}
