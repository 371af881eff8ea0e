package costmodel

import (
	"math"
	"testing"
)

// TestBF16OptimizerGrads: with BF16OptimizerGrads and fp32 gradients, a
// ZeRO-1 plan all-reduces 4 B a parameter over dp in place of the
// reduce-scatter (an all-reduce line of the stage's fp32 gradients, no
// reduce-scatter line), and every micro-batch adds 18 B a parameter of
// memory-bound time; the bf16 gradients stay beside the fp32 ones (2 B
// a parameter more); ZeRO-2 keeps its reduce-scatter.
func TestBF16OptimizerGrads(t *testing.T) {
	a := DefaultAssumptions()
	a.GradAccumFP32, a.OverlapGradReduce = true, false
	p := basePlan(2, 1, 4)
	p.ZeRO, p.Seq, p.GlobalBatch, p.Precision = 1, 2048, 16, BF16
	base, p := evalPlan(t, "llama3.1-8b", "a100", 0, a, p)
	a.BF16OptimizerGrads = true
	e, _ := evalPlan(t, "llama3.1-8b", "a100", 0, a, p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	params := e.Stage(p, 0).Params
	var ar, rs float64
	for _, l := range r.Traffic {
		switch l.Name {
		case nameDPAR:
			ar = float64(l.Message)
		case nameDPRS:
			rs = float64(l.Message)
		}
	}
	if math.Abs(ar/(4*params)-1) > 1e-9 || rs != 0 {
		t.Errorf("dp: all-reduce of %.4g B (want 4 B x %.4g params), reduce-scatter %.4g B (want none)", ar, params, rs)
	}
	if got, none := e.Stage(p, 0).BF16GradCopies, base.Stage(p, 0).BF16GradCopies; float64(got) != 2*params || none != 0 {
		t.Errorf("bf16 gradient copies %v (want 2 B x %.4g params), %v without the flag (want 0)", got, params, none)
	}
	on, off := e.Performance(p).Breakdown, base.Performance(p).Breakdown
	in := e.newStepInput(p)
	want := float64(p.MicroBatches()) * bf16AccumBytes * params / in.r.mem
	if got := float64(on.ComputeMemoryBound - off.ComputeMemoryBound); math.Abs(got/want-1) > 1e-6 {
		t.Errorf("accumulation passes %.4g s, want %d micro-batches x 18 B x %.4g params = %.4g s", got, p.MicroBatches(), params, want)
	}
	p.ZeRO = 2
	if r2, _ := e.Estimate(p); r2 != nil {
		for _, l := range r2.Traffic {
			if l.Name == nameDPAR {
				t.Errorf("zero2: %s present, want its reduce-scatter", l.Name)
			}
		}
	}
}
