package efficiency

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// Sample is one measured product: m x k by k x n in Seconds.
type Sample struct {
	M, N, K, Seconds float64
}

// Set is the samples of one GPU with the curve they are predicted by: the
// GPU's figures (peak, bandwidth, SMs, tiles) with the parameters to fit.
type Set struct {
	GPU     string
	Base    GEMM
	Samples []Sample
}

// Params are the four fitted parameters of a (generation, format) curve.
type Params struct {
	Ceiling, KHalf, Launch, HBMEff float64
}

// Apply sets the fitted parameters on a GPU's curve.
func (p Params) Apply(c GEMM) GEMM {
	c.Ceiling, c.KHalf, c.Launch, c.HBMEff = p.Ceiling, p.KHalf, p.Launch, p.HBMEff
	return c
}

// Measured is what a calibration row times: the product and, for the
// quantized formats, the activation quantization before it
// (calibration/kernels/SOURCES.md: "fp8 ... dynamic activation quant, so
// it includes the compute-scale overhead").
func (c GEMM) Measured(s Sample) float64 {
	return c.Time(s.M, s.N, s.K) + c.Quantize(s.M, s.K)
}

// Errors summarizes |pred/meas - 1| over rows: root mean square, median
// and 90th percentile.
type Errors struct {
	Rows             int
	RMS, Median, P90 float64
}

// FitGEMM fits one Params to the sets by least squares in log time,
//
//	min sum over rows of (ln pred - ln measured)^2,
//
// with gonum's Nelder-Mead from start, the parameters kept physical by
// a logit (Ceiling, HBMEff in (0,1)) or log (KHalf, Launch > 0) map.
// Log error weighs a 3 us and a 30 ms kernel alike, as a step-time model
// needs. Deterministic: Nelder-Mead draws no random numbers.
func FitGEMM(sets []Set, start Params) (Params, error) {
	return fitLog(start, func(p Params) float64 {
		var sum float64
		for _, s := range sets {
			c := p.Apply(s.Base)
			for _, r := range s.Samples {
				d := math.Log(c.Measured(r) / r.Seconds)
				sum += d * d
			}
		}
		return sum
	})
}

// fitLog minimizes loss over the four parameters with Nelder-Mead in the
// logit/log coordinates of toX.
func fitLog(start Params, loss func(Params) float64) (Params, error) {
	f := func(x []float64) float64 { return loss(fromX(x)) }
	res, err := optimize.Minimize(optimize.Problem{Func: f}, toX(start),
		&optimize.Settings{FuncEvaluations: 6000}, &optimize.NelderMead{})
	if err != nil && res == nil {
		return Params{}, err
	}
	return fromX(res.X), nil
}

func logit(p float64) float64   { return math.Log(p / (1 - p)) }
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func toX(p Params) []float64 {
	return []float64{logit(p.Ceiling), math.Log(p.KHalf), math.Log(p.Launch), logit(p.HBMEff)}
}

func fromX(x []float64) Params {
	return Params{Ceiling: sigmoid(x[0]), KHalf: math.Exp(x[1]), Launch: math.Exp(x[2]), HBMEff: sigmoid(x[3])}
}

// ErrorsOf compares the curve's predictions with measured rows.
func ErrorsOf(c GEMM, rows []Sample) Errors {
	rel := make([]float64, len(rows))
	for i, r := range rows {
		rel[i] = math.Abs(c.Measured(r)/r.Seconds - 1)
	}
	return summarize(rel)
}

// summarize turns relative errors into Errors (nearest-rank percentiles).
func summarize(rel []float64) Errors {
	if len(rel) == 0 {
		return Errors{}
	}
	var ss float64
	for _, e := range rel {
		ss += e * e
	}
	s := slices.Clone(rel)
	slices.Sort(s)
	rank := func(q float64) float64 { return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)] }
	return Errors{Rows: len(s), RMS: math.Sqrt(ss / float64(len(s))), Median: rank(0.5), P90: rank(0.9)}
}
