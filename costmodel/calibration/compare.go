package calibration

import (
	"math"
	"slices"

	"github.com/samber/lo"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/gpu-planner/planner/costmodel"
)

// Result is one case's prediction next to its measurement.
type Result struct {
	Case
	// Predicted and Measured are in the target's metric.
	Predicted, Measured float64
	// PredictedForward and PredictedBackward: LayerTime rows only.
	PredictedForward, PredictedBackward float64
	// Err is Predicted/Measured - 1.
	Err float64
	// StepTime is the predicted step, MFU the predicted model FLOP
	// utilization.
	StepTime, MFU float64
}

// Predict evaluates a case with base assumptions (the case's framework
// settings on top).
func Predict(c Case, base costmodel.Assumptions) (Result, error) {
	if _, err := c.Cluster.GPU.Peak(c.Plan.Precision.String()); err != nil {
		return Result{}, err
	}
	e, err := costmodel.NewEvaluator(c.Model, c.Cluster, c.Assumptions(base))
	if err != nil {
		return Result{}, err
	}
	perf := e.Performance(c.Plan)
	step, mfu := float64(perf.StepTime), perf.MFU
	if c.HalfRecompute {
		full := c.Plan
		full.Recompute = costmodel.Full
		pf := e.Performance(full)
		step = (step + float64(pf.StepTime)) / 2
		mfu = perf.MFU * float64(perf.StepTime) / step
	}
	res := Result{Case: c, Measured: c.Target.Value, StepTime: step, MFU: mfu}
	switch c.Target.Metric {
	case StepTime:
		res.Predicted = step
	case TokensPerGPU:
		res.Predicted = float64(c.Plan.GlobalBatch) * float64(c.Plan.Seq) / step / float64(c.Plan.GPUs())
	case LayerTime:
		b := perf.Breakdown
		res.PredictedForward, res.PredictedBackward = float64(b.LayerForward), float64(b.LayerBackward)
		res.Predicted = res.PredictedForward + res.PredictedBackward
	}
	res.Err = res.Predicted/res.Measured - 1
	return res, nil
}

// Summary is the absolute relative error of a set of results.
type Summary struct {
	Source string `json:"source"`
	// Rows compared, and rows of the source that were not modeled.
	Rows    int `json:"rows"`
	Skipped int `json:"skipped"`
	// Mean, Median and Max of |predicted/measured - 1|; the median of an
	// even count is the mean of the two middle values.
	Mean   float64 `json:"mean_abs_error"`
	Median float64 `json:"median_abs_error"`
	Max    float64 `json:"max_abs_error"`
}

// summarize computes the statistics of results' absolute errors.
func summarize(source string, results []Result) Summary {
	s := Summary{Source: source, Rows: len(results)}
	if len(results) == 0 {
		return s
	}
	abs := lo.Map(results, func(r Result, _ int) float64 { return math.Abs(r.Err) })
	slices.Sort(abs)
	n := len(abs)
	s.Mean = stat.Mean(abs, nil)
	s.Median = (abs[(n-1)/2] + abs[n/2]) / 2
	s.Max = floats.Max(abs)
	return s
}

// Comparison is every row of the calibration set: compared, or skipped
// with its reason.
type Comparison struct {
	Results []Result
	Skipped []Skip
	// Sources summarizes each source, sorted by source id; All every
	// compared row; HeldOut the rows outside the fit (FitSubset).
	Sources []Summary
	All     Summary
	HeldOut Summary
}

// Compare maps rows to cases and compares each with base assumptions.
// Rows whose prediction fails (a layout the model rejects) are skipped
// with the error.
func Compare(rows []Row, base costmodel.Assumptions) Comparison {
	cases, skipped := Cases(rows)
	var cmp Comparison
	cmp.Skipped = skipped
	for _, c := range cases {
		r, err := Predict(c, base)
		if err != nil {
			cmp.Skipped = append(cmp.Skipped, Skip{c.Row, err.Error()})
			continue
		}
		cmp.Results = append(cmp.Results, r)
	}
	bySource := lo.GroupBy(cmp.Results, func(r Result) string { return r.Row.Source() })
	held := lo.Reject(cmp.Results, func(r Result, _ int) bool { return InFitSubset(r.Case) })
	skips := lo.CountValuesBy(cmp.Skipped, func(s Skip) string { return s.Row.Source() })
	ids := lo.Uniq(lo.Map(rows, func(r Row, _ int) string { return r.Source() }))
	slices.Sort(ids)
	for _, id := range ids {
		s := summarize(id, bySource[id])
		s.Skipped = skips[id]
		cmp.Sources = append(cmp.Sources, s)
	}
	cmp.All = summarize("all", cmp.Results)
	cmp.All.Skipped = len(cmp.Skipped)
	cmp.HeldOut = summarize("held out of the fit", held)
	return cmp
}

// Source returns the summary of one source.
func (c Comparison) Source(id string) (Summary, bool) {
	for _, s := range c.Sources {
		if s.Source == id {
			return s, true
		}
	}
	return Summary{}, false
}
