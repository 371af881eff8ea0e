package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// TestSensitivity: a perturbation that changes nothing keeps the winner
// at the same step time; a slower GEMM slows the winner; a budget so
// small that the winner no longer fits says so.
func TestSensitivity(t *testing.T) {
	m, err := costmodel.LookupModel("llama3-70b")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := hardware.LookupGPU("h100-sxm")
	a := costmodel.DefaultAssumptions()
	o := Options{Job: Job{Seq: 4096, GlobalBatch: 256}, GPUs: 64, Top: 3, Workers: 1}
	base, err := Search(m, g, 0, a, o)
	if err != nil || len(base.Plans) == 0 {
		t.Fatalf("baseline: %v", err)
	}
	in := Inputs{Model: m, GPU: g, GPUsPerNode: 8, Assumptions: a, Options: o}
	shifts := Sensitivity(in, base, []Perturbation{
		{"nothing", func(*Inputs) {}},
		{"GEMM efficiency -10%", func(in *Inputs) { in.Assumptions.GEMMEfficiency *= 0.9 }},
		{"HBM budget 30%", func(in *Inputs) { in.Assumptions.HBMFraction = 0.3 }},
	})
	if s := shifts[0]; !s.Stays || s.StepChange != 0 || s.Gain != 0 || s.Winner != base.Plans[0].PlanString {
		t.Errorf("no change: %+v", s)
	}
	if s := shifts[1]; !(s.StepChange > 0.02) || !s.BaseFits {
		t.Errorf("slower GEMMs should slow the winner by more than 2%%: %+v", s)
	}
	if s := shifts[2]; s.BaseFits || s.Stays || s.Note == "" {
		t.Errorf("a 30%% budget should push the winner out: %+v", s)
	}
	if got := len(DefaultPerturbations()); got != 6 {
		t.Errorf("%d default perturbations, want 6", got)
	}
}

// TestSensitivityBatch: halving the batch halves the step, and the
// rate change, not the step change, compares like with like.
func TestSensitivityBatch(t *testing.T) {
	m, _ := costmodel.LookupModel("llama3-70b")
	g, _ := hardware.LookupGPU("h100-sxm")
	a := costmodel.DefaultAssumptions()
	o := Options{Job: Job{Seq: 4096, GlobalBatch: 256}, GPUs: 64, Top: 3, Workers: 1}
	base, _ := Search(m, g, 0, a, o)
	in := Inputs{Model: m, GPU: g, GPUsPerNode: 8, Assumptions: a, Options: o}
	s := Sensitivity(in, base, []Perturbation{DefaultPerturbations()[3]})[0]
	if !s.BaseFits || !(s.StepChange < -0.4) || !(s.RateChange > -0.2 && s.RateChange < 0.05) {
		t.Errorf("global batch /2: %+v", s)
	}
}
