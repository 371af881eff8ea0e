package costmodel

import (
	"math"
	"testing"
)

// TestInterleavedGradWindow checks the gradient-reduction window of an
// interleaved stage against the chunk queue worked by hand: each chunk's
// reduction (t/v) starts after its last backward, followed by c x pp
// chunk backwards (b/v each), Megatron-Core's cooldown order
// (schedules.py, get_model_chunk_id).
func TestInterleavedGradWindow(t *testing.T) {
	tests := []struct {
		name                 string
		pp, vpp              int
		t, window, b, wantEx float64
	}{
		// Not interleaved: the window of the last micro-batch.
		{"1f1b", 4, 1, 0.4, 0.1, 0.1, 0.3},
		// v 2, pp 4: chunk 1's 0.2 runs from -0.25 to -0.05, when
		// chunk 0's 0.2 starts behind its 0.05 share of the window: the
		// queue ends 0.15 after the stage.
		{"short queue", 4, 2, 0.4, 0.1, 0.1, 0.15},
		// A long reduction: chunk 1's 0.5 start at -0.25 (4 x 0.05
		// chunk backwards + its own 0.05 share of the window), then
		// chunk 0's 0.5: the queue ends 0.75 after the stage.
		{"long queue", 4, 2, 1.0, 0.1, 0.1, 0.75},
	}
	for _, tt := range tests {
		p := Plan{PP: tt.pp, VPP: tt.vpp}
		got := tt.t - interleavedGradWindow(p, tt.t, tt.window, tt.b)
		if math.Abs(got-tt.wantEx) > 1e-12 {
			t.Errorf("%s: exposed %g, want %g", tt.name, got, tt.wantEx)
		}
	}
}
