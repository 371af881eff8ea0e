package search

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Inputs are the arguments of one Search call, so that a perturbation
// can change any of them.
type Inputs struct {
	Model       *costmodel.Model
	GPU         hardware.GPU
	GPUsPerNode int
	Assumptions costmodel.Assumptions
	Options     Options
}

// Perturbation is one assumption changed by a stated amount.
type Perturbation struct {
	// Change names it: "network 2x slower".
	Change string
	// Apply changes a copy of the inputs.
	Apply func(*Inputs)
}

// DefaultPerturbations are the changes an architecture review asks
// about: a network at half its bandwidth, GEMMs 10% slower, the sequence
// doubled at the same tokens per step, the global batch halved, and the
// HBM budget at 85% and 95% of the driver total.
func DefaultPerturbations() []Perturbation {
	return []Perturbation{
		{"network 2x slower", func(in *Inputs) { in.GPU.ScaleOut /= 2 }},
		{"GEMM efficiency -10%", func(in *Inputs) { in.Assumptions.GEMMEfficiency *= 0.9 }},
		{"sequence x2 (same tokens per step)", func(in *Inputs) {
			in.Options.Job.Seq *= 2
			in.Options.Job.GlobalBatch = max(1, in.Options.Job.GlobalBatch/2)
		}},
		{"global batch /2", func(in *Inputs) { in.Options.Job.GlobalBatch = max(1, in.Options.Job.GlobalBatch/2) }},
		{"HBM budget 85%", func(in *Inputs) { in.Assumptions.HBMFraction = 0.85 }},
		{"HBM budget 95%", func(in *Inputs) { in.Assumptions.HBMFraction = 0.95 }},
	}
}

// Shift is how one perturbation moves the answer.
type Shift struct {
	Change string `json:"change"`
	// Winner is the best plan under the change, WinnerGPUs its GPU count
	// and WinnerStep its step time ("" and 0 when nothing fits).
	Winner     string           `json:"winner"`
	WinnerGPUs int              `json:"winner_gpus"`
	WinnerStep hardware.Seconds `json:"winner_step_s"`
	// Stays says the baseline winner is still the winner.
	Stays bool `json:"winner_stays"`
	// BaseStep is the baseline winner's step time under the change, and
	// BaseFits whether it still fits; StepChange is BaseStep over the
	// baseline's step time, less 1.
	BaseStep   hardware.Seconds `json:"base_winner_step_s"`
	BaseFits   bool             `json:"base_winner_fits"`
	StepChange float64          `json:"base_winner_step_change"`
	// RateChange is the baseline winner's tokens/s under the change over
	// its baseline tokens/s, less 1 (the step time compares unequal
	// steps when the batch changes; this does not).
	RateChange float64 `json:"base_winner_rate_change"`
	// Gain is how much faster the new winner is than the baseline
	// winner under the change (tokens/s ratio less 1; 0 when it stays or
	// the baseline winner no longer runs).
	Gain float64 `json:"gain_over_base_winner"`
	// Note says why a figure is missing.
	Note string `json:"note,omitempty"`
}

// Sensitivity re-runs the search of base under each perturbation and
// re-evaluates base's winner under it, so that a review reads whether
// the winner stays the winner and by how much. base must have a plan.
func Sensitivity(in Inputs, base *Result, ps []Perturbation) []Shift {
	if len(base.Plans) == 0 {
		panic("search: Sensitivity of a result with no plan")
	}
	out := make([]Shift, len(ps))
	for i, p := range ps {
		out[i] = shift(in, base, p)
	}
	return out
}

// shift applies one perturbation.
func shift(in Inputs, base *Result, p Perturbation) Shift {
	pin := in
	p.Apply(&pin)
	s := Shift{Change: p.Change}
	w := base.Plans[0]
	rep, err := reevaluate(pin, base.Cluster, w.Plan)
	switch {
	case err != nil:
		s.Note = fmt.Sprintf("the winner cannot run: %v", err)
	case !rep.Memory.Fits:
		s.Note = fmt.Sprintf("the winner no longer fits (%v over the budget)", rep.Memory.Total-rep.Memory.Budget)
		s.BaseStep = rep.Performance.StepTime
	default:
		s.BaseFits, s.BaseStep = true, rep.Performance.StepTime
		s.StepChange = float64(s.BaseStep/w.Performance.StepTime) - 1
		s.RateChange = rep.Performance.TokensPerSecond/w.Performance.TokensPerSecond - 1
	}
	r, err := Search(pin.Model, pin.GPU, pin.GPUsPerNode, pin.Assumptions, pin.Options)
	if err != nil {
		s.Note = joinNote(s.Note, fmt.Sprintf("no search: %v", err))
		return s
	}
	if len(r.Plans) == 0 {
		s.Note = joinNote(s.Note, "nothing fits")
		return s
	}
	nw := r.Plans[0]
	s.Winner, s.WinnerGPUs, s.WinnerStep = nw.PlanString, nw.GPUs, nw.Performance.StepTime
	s.Stays = rep != nil && nw.Plan == rep.Plan && nw.GPUs == w.GPUs
	if s.BaseFits && !s.Stays {
		s.Gain = nw.Performance.TokensPerSecond/rep.Performance.TokensPerSecond - 1
	}
	return s
}

// reevaluate estimates plan p with the perturbed job on cluster c with
// the perturbed GPU.
func reevaluate(in Inputs, c hardware.Cluster, p costmodel.Plan) (*costmodel.Report, error) {
	j := in.Options.Job
	p.Seq, p.GlobalBatch = j.Seq, j.GlobalBatch
	q, err := p.Normalize(in.Model, c.GPUs())
	if err != nil {
		return nil, err
	}
	c.GPU = in.GPU
	e, err := costmodel.NewEvaluator(in.Model, c, in.Assumptions)
	if err != nil {
		return nil, err
	}
	return e.Estimate(q)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
