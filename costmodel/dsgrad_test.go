package costmodel

import (
	"math"
	"testing"
)

// TestStepGradCopy: with StepFP32GradPartition, ZeRO-1 and ZeRO-2 hold
// at the step a flat fp32 copy of the GPU's gradient partition, 4 bytes
// a parameter over dp x cp, less the activations freed by then
// (stage_1_and_2.py); ZeRO-3 and the default assumptions add nothing.
func TestStepGradCopy(t *testing.T) {
	a := DefaultAssumptions()
	a.StepFP32GradPartition = true
	p := basePlan(2, 1, 1)
	p.Recompute, p.ZeRO, p.Seq = Full, 1, 2048
	e, p := evalPlan(t, "llama3.1-8b", "a100", 0, a, p)
	s := e.Stage(p, 0)
	want := 4*s.Params/1 - float64(s.Activations())
	if want <= 0 || math.Abs(float64(s.StepGradCopy)/want-1) > 1e-9 {
		t.Errorf("zero1: step gradient copy %v, want %.4g", s.StepGradCopy, want)
	}
	off, _ := evalPlan(t, "llama3.1-8b", "a100", 0, DefaultAssumptions(), p)
	if b := off.Stage(p, 0); b.StepGradCopy != 0 || b.Total >= s.Total {
		t.Errorf("default assumptions: step copy %v, total %v against %v with it", b.StepGradCopy, b.Total, s.Total)
	}
	p.ZeRO = 3
	if z3 := e.Stage(p, 0); z3.StepGradCopy != 0 {
		t.Errorf("zero3: step gradient copy %v, want 0", z3.StepGradCopy)
	}
	p.ZeRO, p.Recompute = 2, NoRecompute
	p.Seq, p.MicroBatch = 8192, 4
	if big := e.Stage(p, 0); big.StepGradCopy != 0 {
		t.Errorf("zero2 with %v of activations: step copy %v, want 0 (the freed activations cover it)", big.Activations(), big.StepGradCopy)
	}
}
