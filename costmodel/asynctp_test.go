package costmodel

import (
	"math"
	"testing"
)

// TestAsyncTPExposed checks asyncTPExposed on made-up times: behind
// ample GEMMs and without contention the forward hides everything and
// the backward exposes its unfused reduce-scatters; at contention 1
// nothing hidden is gained; beside short GEMMs the transfers past tp-1
// of tp GEMM chunks stay exposed.
func TestAsyncTPExposed(t *testing.T) {
	c := layerComm{a: commCost{time: 1}, b: commCost{time: 1}, perPass: 2} // t = 4 per pass
	var ample, short layerCost
	ample.fwd.gemm, ample.bwd.gemm = 100, 200
	short.fwd.gemm, short.bwd.gemm = 2, 4
	for _, tc := range []struct {
		name     string
		d        layerCost
		s        float64
		fwd, bwd float64
	}{
		{"ample, no contention", ample, 0, 0, 2},
		{"ample, contention 1", ample, 1, 4, 4},
		{"ample, contention 0.5", ample, 0.5, 2, 3},
		// tp 8: window 7/8 of the GEMMs: forward 4 - 1.75, backward
		// all-gathers 2 - 1.75 plus the reduce-scatters' 2.
		{"short, no contention", short, 0, 2.25, 2.25},
	} {
		e := &Evaluator{a: Assumptions{AsyncTPContention: tc.s}}
		fwd, bwd := e.asyncTPExposed(c, tc.d, 8)
		if math.Abs(fwd-tc.fwd) > 1e-12 || math.Abs(bwd-tc.bwd) > 1e-12 {
			t.Errorf("%s: forward %g, backward %g; want %g, %g", tc.name, fwd, bwd, tc.fwd, tc.bwd)
		}
	}
}
