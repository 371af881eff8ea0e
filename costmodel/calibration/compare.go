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
	// Optimism is predicted speed over measured speed, minus 1, whatever
	// the metric: Err for tokens/s, Measured/Predicted - 1 for times. It
	// is positive when the model is optimistic.
	Optimism float64
	// StepTime is the predicted step, MFU the predicted model FLOP
	// utilization.
	StepTime, MFU float64
}

// Predict evaluates a case with base assumptions (the case's framework
// settings on top).
func Predict(c Case, base costmodel.Assumptions) (Result, error) {
	if _, err := c.Cluster.GPU.Peak(c.Plan.Precision.PeakFormat()); err != nil {
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
	res.Optimism = res.Err
	if c.Target.Metric != TokensPerGPU {
		res.Optimism = res.Measured/res.Predicted - 1
	}
	return res, nil
}

// Summary is the relative error of a set of results.
type Summary struct {
	Source string `json:"source"`
	// Rows compared, and rows of the source that were not modeled.
	Rows    int `json:"rows"`
	Skipped int `json:"skipped"`
	// Mean, Median, P90 and Max of |predicted/measured - 1|; medians and
	// percentiles interpolate linearly between ranks (the median of an
	// even count is the mean of the two middle values).
	Mean   float64 `json:"mean_abs_error"`
	Median float64 `json:"median_abs_error"`
	P90    float64 `json:"p90_abs_error"`
	Max    float64 `json:"max_abs_error"`
	// Signed is the median of Result.Optimism: positive when the model
	// predicts faster than measured.
	Signed float64 `json:"signed_median_optimism"`
}

// quantile is the q-quantile of sorted xs, interpolated between ranks
// (Hyndman and Fan 1996, definition 7).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

// summarize computes the statistics of results' errors.
func summarize(source string, results []Result) Summary {
	s := Summary{Source: source, Rows: len(results)}
	if len(results) == 0 {
		return s
	}
	abs := lo.Map(results, func(r Result, _ int) float64 { return math.Abs(r.Err) })
	opt := lo.Map(results, func(r Result, _ int) float64 { return r.Optimism })
	slices.Sort(abs)
	slices.Sort(opt)
	s.Mean = stat.Mean(abs, nil)
	s.Median, s.P90, s.Signed = quantile(abs, 0.5), quantile(abs, 0.9), quantile(opt, 0.5)
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
	// Groups summarizes each source x GPU generation x format (Groups).
	Groups []Group
	// Original is every compared row of the first file (measured.csv).
	Original Summary
	// MoE is every compared mixture-of-experts row, Dense every other.
	MoE, Dense Summary
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
	held := lo.Reject(cmp.Results, func(r Result, _ int) bool { return InFit(r.Case) })
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
	cmp.Groups = groups(cmp.Results)
	var orig []Result
	for _, r := range cmp.Results {
		if r.Row.File() == Files[0] || r.Row.File() == "" {
			orig = append(orig, r)
		}
	}
	cmp.Original = summarize(Files[0], orig)
	moe := lo.Filter(cmp.Results, func(r Result, _ int) bool { return r.MoE() })
	dense := lo.Reject(cmp.Results, func(r Result, _ int) bool { return r.MoE() })
	cmp.MoE = summarize("mixture-of-experts rows", moe)
	cmp.MoE.Skipped = lo.CountBy(cmp.Skipped, func(s Skip) bool { return moeRow(s.Row) })
	cmp.Dense = summarize("dense rows", dense)
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
