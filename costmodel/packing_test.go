package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// Packing changes only the attention core: a sequence of s tokens packed
// from samples of length-weighted mean length L does s(L+1)/2 causal
// pairs instead of s(s+1)/2 (packing.go), so the model FLOPs per token
// drop by the attention term's (s-L)/2 keys per query while the GEMM
// time, which sees every token, stays; PackedSampleTokens equal to the
// sequence is the unpacked plan.
func TestPackedAttention(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 8, 0)
	plain := Plan{TP: 1, PP: 1, CP: 1, DP: 8, ZeRO: 1, Recompute: NoRecompute, MicroBatch: 1, GlobalBatch: 8,
		Seq: 4096, Task: FullFineTune}
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	est := func(p Plan) Performance {
		r, err := e.Estimate(p)
		if err != nil {
			t.Fatal(err)
		}
		return r.Performance
	}
	whole := plain
	whole.PackedSampleTokens = plain.Seq
	if a, b := est(plain), est(whole); a.StepTime != b.StepTime || a.ModelFLOPsPerToken != b.ModelFLOPsPerToken {
		t.Errorf("packed at the whole sequence: step %v, FLOPs %v; want the unpacked %v, %v", b.StepTime, b.ModelFLOPsPerToken, a.StepTime, a.ModelFLOPsPerToken)
	}
	packed := plain
	packed.PackedSampleTokens = 256
	a, b := est(plain), est(packed)
	// fwd + bwd (3x) of the score and value FLOPs per key, (4096-256)/2 keys fewer.
	want := 3 * float64(m.Layers) * m.attentionFLOPsPerKey() * float64(4096-256) / 2
	if got := float64(a.ModelFLOPsPerToken - b.ModelFLOPsPerToken); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("packed model FLOPs/token drop %g, want %g", got, want)
	}
	if a.Breakdown.ComputeGEMM != b.Breakdown.ComputeGEMM {
		t.Errorf("packing changed the GEMM time: %v -> %v", a.Breakdown.ComputeGEMM, b.Breakdown.ComputeGEMM)
	}
	if b.StepTime >= a.StepTime {
		t.Errorf("packed step %v not below unpacked %v", b.StepTime, a.StepTime)
	}
}

// Bad packed lengths are input errors naming the value.
func TestPackedSampleTokensErrors(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	base := Plan{TP: 1, PP: 1, CP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 8, Seq: 4096}
	for _, tc := range []struct {
		edit func(*Plan)
		want string
	}{
		{func(p *Plan) { p.PackedSampleTokens = -1 }, "packed sample tokens -1 is not in [1, seq=4096]"},
		{func(p *Plan) { p.PackedSampleTokens = 5000 }, "packed sample tokens 5000 is not in [1, seq=4096]"},
		{func(p *Plan) { p.PackedSampleTokens, p.Attention = 300, Eager }, "need fused attention"},
		{func(p *Plan) { p.PackedSampleTokens, p.CP, p.DP = 6, 4, 2 }, "under 2*cp = 8"},
	} {
		p := base
		tc.edit(&p)
		_, err := p.Normalize(m, 8)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", p, err, tc.want)
		}
	}
}
