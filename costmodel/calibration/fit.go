package calibration

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/gpu-planner/planner/costmodel"
)

// FitSubset names the rows the fitted parameters are fitted on: the
// per-layer forward and backward times of Korthikanti et al. 2022,
// Table 4 (GPT 22B, tp 8, micro-batch 4, one DGX A100; no recompute,
// selective, full, with and without sequence parallelism). They isolate
// a layer's kernels and its NVLink all-reduces from everything else in a
// step, which is what the three parameters describe; every other row is
// held out.
const FitSubset = "korthikanti2022_table4"

// ErrNoFitRows is Fit's error for data without FitSubset rows.
var ErrNoFitRows = errors.New("calibration: no rows of " + FitSubset + " to fit")

// InFitSubset reports whether a case is one the parameters are fitted on.
func InFitSubset(c Case) bool { return c.Row.Source() == FitSubset }

// FitResult is the outcome of Fit.
type FitResult struct {
	// The fitted parameters (costmodel.Assumptions fields).
	GEMMEfficiency    float64 `json:"gemm_efficiency"`
	HBMEfficiency     float64 `json:"hbm_efficiency"`
	ScaleUpEfficiency float64 `json:"scale_up_efficiency"`
	// Points is the number of measured times fitted (forward and
	// backward of each row); RMSLogError the root mean square of
	// ln(predicted/measured) over them at the optimum, MaxAbsError the
	// largest |predicted/measured - 1|.
	Points      int     `json:"points"`
	RMSLogError float64 `json:"rms_log_error"`
	MaxAbsError float64 `json:"max_abs_error"`
	// Evaluations of the objective the optimizer used.
	Evaluations int `json:"evaluations"`
}

// Apply sets the fitted parameters in a.
func (f FitResult) Apply(a costmodel.Assumptions) costmodel.Assumptions {
	a.GEMMEfficiency, a.HBMEfficiency, a.ScaleUpEfficiency = f.GEMMEfficiency, f.HBMEfficiency, f.ScaleUpEfficiency
	return a
}

// logistic maps the optimizer's unbounded coordinates into (0, 1), where
// efficiencies live.
func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func logit(p float64) float64    { return math.Log(p / (1 - p)) }

// Fit finds GEMMEfficiency, HBMEfficiency and ScaleUpEfficiency that
// minimize the squared log error of the per-layer forward and backward
// times of the FitSubset rows, with Nelder-Mead (gonum/optimize) from
// base's values; every other assumption stays as in base.
func Fit(rows []Row, base costmodel.Assumptions) (FitResult, error) {
	cases, _ := Cases(rows)
	var fit []Case
	for _, c := range cases {
		if InFitSubset(c) && c.Target.Metric == LayerTime {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		return FitResult{}, ErrNoFitRows
	}
	at := func(x []float64) FitResult {
		return FitResult{GEMMEfficiency: logistic(x[0]), HBMEfficiency: logistic(x[1]), ScaleUpEfficiency: logistic(x[2])}
	}
	residuals := func(f FitResult) ([]float64, error) {
		var res []float64
		for _, c := range fit {
			r, err := Predict(c, f.Apply(base))
			if err != nil {
				return nil, err
			}
			res = append(res, math.Log(r.PredictedForward/c.Target.Forward), math.Log(r.PredictedBackward/c.Target.Backward))
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
	x0 := []float64{logit(base.GEMMEfficiency), logit(base.HBMEfficiency), logit(base.ScaleUpEfficiency)}
	settings := &optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-12, Iterations: 200}}
	out, err := optimize.Minimize(problem, x0, settings, &optimize.NelderMead{})
	if failed != nil {
		return FitResult{}, failed
	}
	if err != nil {
		return FitResult{}, fmt.Errorf("calibration: fit: %w", err)
	}
	f := at(out.X)
	res, _ := residuals(f)
	f.Points, f.Evaluations = len(res), out.Stats.FuncEvaluations
	for _, r := range res {
		f.RMSLogError += r * r
		f.MaxAbsError = math.Max(f.MaxAbsError, math.Abs(math.Exp(r)-1))
	}
	f.RMSLogError = math.Sqrt(f.RMSLogError / float64(len(res)))
	return f, nil
}
