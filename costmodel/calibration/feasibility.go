package calibration

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Feasible is a row that reports whether a plan ran out of memory,
// next to the memory the cost model predicts for it.
type Feasible struct {
	Row Row
	// MeasuredFits is false for an OOM outcome.
	MeasuredFits bool
	// Peak is the predicted memory of the most loaded GPU, Budget what a
	// plan may use; PredictedFits compares them.
	Peak, Budget  hardware.Bytes
	PredictedFits bool
}

// Feasibility predicts the memory of every feasibility row (outcome ok
// or OOM). A row whose recompute sits between none and full (torchtitan's
// selective AC) is predicted at the mean of the two.
func Feasibility(rows []Row, base costmodel.Assumptions) ([]Feasible, []Skip) {
	var out []Feasible
	var skipped []Skip
	for _, r := range rows {
		if r.Get("measurement_type") != "feasibility" {
			continue
		}
		c, err := newSetup(r)
		if err != nil {
			skipped = append(skipped, Skip{r, err.Error()})
			continue
		}
		peak, budget, err := c.memory(base)
		if err != nil {
			skipped = append(skipped, Skip{r, err.Error()})
			continue
		}
		out = append(out, Feasible{Row: r, MeasuredFits: r.Get("outcome") == "ok", Peak: peak, Budget: budget,
			PredictedFits: peak <= budget})
	}
	return out, skipped
}

func (c Case) memory(base costmodel.Assumptions) (peak, budget hardware.Bytes, err error) {
	a := c.Assumptions(base)
	rep, err := costmodel.Estimate(c.Model, c.Cluster, c.Plan, a)
	if err != nil {
		return 0, 0, err
	}
	peak = rep.Memory.Total
	if c.HalfRecompute {
		full := c.Plan
		full.Recompute = costmodel.Full
		rf, err := costmodel.Estimate(c.Model, c.Cluster, full, a)
		if err != nil {
			return 0, 0, err
		}
		peak = (peak + rf.Memory.Total) / 2
	}
	return peak, rep.Memory.Budget, nil
}

// DefaultForMemory is the default assumptions with the whole HBM as the
// budget (--hbm-fraction 1): a configuration that ran used at most the
// memory the driver reports.
func DefaultForMemory() costmodel.Assumptions {
	a := costmodel.DefaultAssumptions()
	a.HBMFraction = 1
	return a
}
