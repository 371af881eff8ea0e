package calibration

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/gpu-planner/planner/costmodel"
)

// FitSubset names the source the fitted parameters are fitted on today:
// the per-layer forward and backward times of Korthikanti et al. 2022,
// Table 4 (GPT 22B, tp 8, micro-batch 4, one DGX A100; no recompute,
// selective, full, with and without sequence parallelism). They isolate
// a layer's kernels and its NVLink all-reduces from everything else in a
// step, which is what the three parameters describe; every other row is
// held out.
const FitSubset = "korthikanti2022_table4"

// ErrNoFitRows is Fit's error for data without rows in the fit set.
var ErrNoFitRows = errors.New("calibration: no rows of the fit set (" + FitSubset + ") to fit")

// InFit is the fit set: the rows the parameters are fitted on. Fitting on
// other rows (say every Hopper bf16 row once the efficiency model lands)
// is a change of this one function.
func InFit(c Case) bool { return c.Row.Source() == FitSubset }

// InFitSubset is InFit, kept for callers of the earlier name.
func InFitSubset(c Case) bool { return InFit(c) }

// Param is one fitted parameter: a costmodel.Assumptions field in (0, 1).
type Param struct {
	Name string
	Get  func(costmodel.Assumptions) float64
	Set  func(*costmodel.Assumptions, float64)
}

// Params are today's fitted parameters: the GEMM share of the
// tensor-core peak, the HBM share of memory-bound kernels and the NVLink
// bus-bandwidth share of collectives.
var Params = []Param{
	{"gemm_efficiency", func(a costmodel.Assumptions) float64 { return a.GEMMEfficiency },
		func(a *costmodel.Assumptions, v float64) { a.GEMMEfficiency = v }},
	{"hbm_efficiency", func(a costmodel.Assumptions) float64 { return a.HBMEfficiency },
		func(a *costmodel.Assumptions, v float64) { a.HBMEfficiency = v }},
	{"scale_up_efficiency", func(a costmodel.Assumptions) float64 { return a.ScaleUpEfficiency },
		func(a *costmodel.Assumptions, v float64) { a.ScaleUpEfficiency = v }},
}

// ParamValue is a fitted value.
type ParamValue struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// FitResult is the outcome of a fit.
type FitResult struct {
	// The fitted parameters (costmodel.Assumptions fields) of Params.
	GEMMEfficiency    float64      `json:"gemm_efficiency"`
	HBMEfficiency     float64      `json:"hbm_efficiency"`
	ScaleUpEfficiency float64      `json:"scale_up_efficiency"`
	Values            []ParamValue `json:"values"`
	// Points is the number of measured values fitted (forward and
	// backward of a per-layer row, one value of any other row);
	// RMSLogError the root mean square of ln(predicted/measured) over
	// them at the optimum, MaxAbsError the largest |predicted/measured - 1|.
	Points      int     `json:"points"`
	RMSLogError float64 `json:"rms_log_error"`
	MaxAbsError float64 `json:"max_abs_error"`
	// Evaluations of the objective the optimizer used.
	Evaluations int `json:"evaluations"`
	base        costmodel.Assumptions
	params      []Param
}

// Apply sets the fitted parameters in a.
func (f FitResult) Apply(a costmodel.Assumptions) costmodel.Assumptions {
	for i, p := range f.params {
		p.Set(&a, f.Values[i].Value)
	}
	if f.params == nil {
		a.GEMMEfficiency, a.HBMEfficiency, a.ScaleUpEfficiency = f.GEMMEfficiency, f.HBMEfficiency, f.ScaleUpEfficiency
	}
	return a
}

// logistic maps the optimizer's unbounded coordinates into (0, 1), where
// efficiencies live.
func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func logit(p float64) float64    { return math.Log(p / (1 - p)) }

// Fit fits Params on the InFit rows with 200 Nelder-Mead iterations from
// base's values; every other assumption stays as in base.
func Fit(rows []Row, base costmodel.Assumptions) (FitResult, error) {
	cases, _ := Cases(rows)
	return FitOn(cases, InFit, Params, base, 200)
}

// logResiduals are ln(predicted/measured) of one case: forward and
// backward of a per-layer row, the row's metric otherwise.
func logResiduals(c Case, a costmodel.Assumptions) ([]float64, error) {
	r, err := Predict(c, a)
	if err != nil {
		return nil, err
	}
	if c.Target.Metric == LayerTime {
		return []float64{math.Log(r.PredictedForward / c.Target.Forward), math.Log(r.PredictedBackward / c.Target.Backward)}, nil
	}
	return []float64{math.Log(r.Predicted / r.Measured)}, nil
}

// FitOn finds the params that minimize the squared log error of the cases
// in the fit set (in), with Nelder-Mead (gonum/optimize) from base's
// values for at most iterations iterations.
func FitOn(cases []Case, in func(Case) bool, params []Param, base costmodel.Assumptions, iterations int) (FitResult, error) {
	var fit []Case
	for _, c := range cases {
		if in(c) {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		return FitResult{}, ErrNoFitRows
	}
	at := func(x []float64) costmodel.Assumptions {
		a := base
		for i, p := range params {
			p.Set(&a, logistic(x[i]))
		}
		return a
	}
	residuals := func(a costmodel.Assumptions) ([]float64, error) {
		var res []float64
		for _, c := range fit {
			r, err := logResiduals(c, a)
			if err != nil {
				return nil, err
			}
			res = append(res, r...)
		}
		return res, nil
	}
	var failed error
	problem := optimize.Problem{Func: func(x []float64) float64 {
		res, err := residuals(at(x))
		if err != nil {
			failed = err
			return math.Inf(1)
		}
		var ss float64
		for _, r := range res {
			ss += r * r
		}
		return ss
	}}
	x0 := make([]float64, len(params))
	for i, p := range params {
		x0[i] = logit(p.Get(base))
	}
	settings := &optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-12, Iterations: iterations}}
	out, err := optimize.Minimize(problem, x0, settings, &optimize.NelderMead{})
	if failed != nil {
		return FitResult{}, failed
	}
	if err != nil {
		return FitResult{}, fmt.Errorf("calibration: fit: %w", err)
	}
	a := at(out.X)
	res, _ := residuals(a)
	f := FitResult{Points: len(res), Evaluations: out.Stats.FuncEvaluations, base: base, params: params,
		GEMMEfficiency: a.GEMMEfficiency, HBMEfficiency: a.HBMEfficiency, ScaleUpEfficiency: a.ScaleUpEfficiency}
	for _, p := range params {
		f.Values = append(f.Values, ParamValue{p.Name, p.Get(a)})
	}
	for _, r := range res {
		f.RMSLogError += r * r
		f.MaxAbsError = math.Max(f.MaxAbsError, math.Abs(math.Exp(r)-1))
	}
	f.RMSLogError = math.Sqrt(f.RMSLogError / float64(len(res)))
	return f, nil
}
