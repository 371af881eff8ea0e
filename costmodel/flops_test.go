package costmodel

import "testing"

// TestFLOPsPerToken: Llama 3 8B at 8,192 tokens costs 51.5 GFLOP per
// token for forward and backward (3x forward), the figure Megatron-Bridge
// 25.09 reports (31,357 tokens/s at 1,614 TFLOP/s on GB200; calibration
// README, section 2), which counts attention under the causal mask.
func TestFLOPsPerToken(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	got := 3 * float64(m.ForwardFLOPsPerToken(8192))
	if !within(got, 1614e12/31357, 0.005) {
		t.Errorf("3 x forward = %.4g FLOP/token, want %.4g", got, 1614e12/31357)
	}
}
