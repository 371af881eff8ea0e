package costmodel

import (
	"math"
	"testing"
)

// TestFP8ParamStorage: with FP8ParamStorage an FP8 plan drops the 2 B a
// parameter of its transformer layers' 16-bit weights and keeps the
// low-format copies, the gradients and the optimizer states; the
// embedding's weights stay (the first stage keeps 2 B x its params less
// its layers'). Under ZeRO-3 the dropped weights are sharded as the
// weights are. A bf16 plan is unchanged.
func TestFP8ParamStorage(t *testing.T) {
	a := DefaultAssumptions()
	p := basePlan(2, 2, 4)
	p.ZeRO, p.Seq, p.GlobalBatch, p.Precision = 1, 4096, 16, FP8CS
	off, p := evalPlan(t, "llama3.1-8b", "h100-sxm", 0, a, p)
	a.FP8ParamStorage = true
	on, _ := evalPlan(t, "llama3.1-8b", "h100-sxm", 0, a, p)
	s0, s1 := off.Stage(p, 0), on.Stage(p, 0)
	layers := on.localLayerParams(p, &s1)
	if got, want := float64(s0.Weights-s1.Weights), 2*layers; math.Abs(got-want) > 1 {
		t.Errorf("weights dropped %.4g B, want 2 B x %.4g layer params", got, layers)
	}
	if s1.Weights <= 0 || math.Abs(float64(s1.Weights)-2*(s1.Params-layers)) > 1 {
		t.Errorf("weights left %v, want 2 B x the embedding's %.4g params", s1.Weights, s1.Params-layers)
	}
	if s0.LowPrecisionWeights != s1.LowPrecisionWeights || s0.Gradients != s1.Gradients ||
		s0.MasterWeights != s1.MasterWeights || s0.Moments != s1.Moments {
		t.Errorf("low-format copies, gradients or optimizer states moved: %+v against %+v", s1, s0)
	}
	p.ZeRO = 3
	z0, z1 := off.Stage(p, 0), on.Stage(p, 0)
	if got, want := float64(z0.Weights-z1.Weights), 2*layers/float64(p.ShardDegree()); math.Abs(got-want) > 1 {
		t.Errorf("zero3: weights dropped %.4g B, want %.4g", got, want)
	}
	p.ZeRO, p.Precision = 1, BF16
	if b0, b1 := off.Stage(p, 0), on.Stage(p, 0); b0.Weights != b1.Weights {
		t.Errorf("bf16: weights %v with the flag, %v without", b1.Weights, b0.Weights)
	}
}
