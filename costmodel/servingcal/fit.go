package servingcal

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// fitted are the generations whose HBM shares are fitted (their FLOP
// shares are the measured kernels', costmodel.MeasuredKernelShares);
// Ampere keeps the gpt-fast and TensorRT-LLM v0.5 fits (the data has no
// Ampere rows).
var fitted = []costmodel.Generation{costmodel.Hopper, costmodel.Blackwell}

// FitResult is the outcome of Fit.
type FitResult struct {
	Params Params `json:"params"`
	// Rows fitted, Objective the mean |ln(predicted/measured)| over
	// their TTFT and TPOT at the optimum, Evaluations the optimizer's.
	Rows        int     `json:"rows"`
	Objective   float64 `json:"mean_abs_log_error"`
	Evaluations int     `json:"evaluations"`
}

// vector maps parameters to the optimizer's unbounded coordinates: logs
// of the step and request overheads of the engines given, logits of the
// generations' HBM shares, the log of the sweep harness's rounds less
// one, and the log of Dynamo's front-end overhead.
func vector(p Params, engs []string) []float64 {
	var x []float64
	for _, e := range engs {
		x = append(x, math.Log(float64(p.Overhead[e])), math.Log(float64(p.RequestOverhead[e])))
	}
	for _, g := range fitted {
		x = append(x, logit(p.Shares[g].HBM))
	}
	return append(x, math.Log(p.Rounds[HarnessSweep]-1), math.Log(float64(p.FrontendOverhead[costmodel.FrontendDynamo])))
}

// fromVector is vector's inverse, starting from base.
func fromVector(x []float64, base Params, engs []string) Params {
	p := base.clone()
	for i, e := range engs {
		p.Overhead[e] = hardware.Seconds(math.Exp(x[2*i]))
		p.RequestOverhead[e] = hardware.Seconds(math.Exp(x[2*i+1]))
	}
	k := 2 * len(engs)
	for i, g := range fitted {
		p.Shares[g] = costmodel.Shares{HBM: logistic(x[k+i]), FLOP: p.Shares[g].FLOP}
	}
	p.Rounds[HarnessSweep] = 1 + math.Exp(x[k+len(fitted)])
	p.FrontendOverhead[costmodel.FrontendDynamo] = hardware.Seconds(math.Exp(x[k+len(fitted)+1]))
	return p
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func logit(p float64) float64    { return math.Log(p / (1 - p)) }

// clone copies the maps of p.
func (p Params) clone() Params {
	p.Overhead, p.RequestOverhead = maps.Clone(p.Overhead), maps.Clone(p.RequestOverhead)
	p.Shares, p.Rounds, p.FrontendOverhead = maps.Clone(p.Shares), maps.Clone(p.Rounds), maps.Clone(p.FrontendOverhead)
	return p
}

// objective is the mean |ln(predicted/measured)| of TTFT and TPOT over
// the cases: the absolute log error, whose minimum sits at the median
// of the errors and which a few wild rows cannot pull.
// The cases are priced on every core; the sum runs in case order, so the
// value is the same bit for bit however many cores there are.
func objective(cases []Case, p Params) float64 {
	errs := make([]float64, len(cases))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cases); i += workers {
				c := cases[i]
				if pr, err := Predict(c, p); err == nil {
					errs[i] = math.Abs(math.Log(pr.TTFT/c.Point.TTFT)) + math.Abs(math.Log(pr.TPOT/c.Point.TPOT))
				}
			}
		}()
	}
	wg.Wait()
	var sum float64
	for _, e := range errs {
		sum += e
	}
	return sum / float64(2*len(cases))
}

// Fit fits the parameters of the engines in cases, the HBM shares
// of the Hopper and Blackwell generations, the sweeps' rounds and
// Dynamo's front-end overhead on every case, by Nelder-Mead
// (gonum/optimize) from base; parameters of engines not in cases keep
// base's values. maxEvaluations caps the objective's evaluations (0:
// until it converges).
func Fit(cases []Case, base Params, maxEvaluations int) (FitResult, error) {
	if len(cases) == 0 {
		return FitResult{}, fmt.Errorf("servingcal: no cases to fit")
	}
	engs := engines(cases)
	problem := optimize.Problem{Func: func(x []float64) float64 {
		return objective(cases, fromVector(x, base, engs))
	}}
	settings := &optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 300}, FuncEvaluations: maxEvaluations}
	out, err := optimize.Minimize(problem, vector(base, engs), settings, &optimize.NelderMead{})
	if err != nil && out == nil {
		return FitResult{}, fmt.Errorf("servingcal: fit: %w", err)
	}
	p := fromVector(out.X, base, engs)
	return FitResult{Params: p, Rows: len(cases), Objective: objective(cases, p), Evaluations: out.Stats.FuncEvaluations}, nil
}

// HeldOut is one engine's accuracy with the parameters fitted without
// it, its step overhead the mean of the other engines'.
type HeldOut struct {
	Engine  string    `json:"engine"`
	Fit     FitResult `json:"fit"`
	Summary Summary   `json:"summary"`
}

// LeaveOneEngineOut refits without each engine in turn, from base and
// with at most maxEvaluations each, and scores it.
func LeaveOneEngineOut(cases []Case, base Params, maxEvaluations int) ([]HeldOut, error) {
	var out []HeldOut
	for _, e := range engines(cases) {
		var train, test []Case
		for _, c := range cases {
			if c.Point.Engine == e {
				test = append(test, c)
			} else {
				train = append(train, c)
			}
		}
		f, err := Fit(train, base, maxEvaluations)
		if err != nil {
			return nil, err
		}
		p := f.Params.clone()
		p.Overhead[e], p.RequestOverhead[e] = meanOthers(p.Overhead, engines(train)), meanOthers(p.RequestOverhead, engines(train))
		res, _ := Evaluate(test, p)
		out = append(out, HeldOut{Engine: e, Fit: f, Summary: summarize(e, res)})
	}
	return out, nil
}

// meanOthers is the mean of m over the engines others.
func meanOthers(m map[string]hardware.Seconds, others []string) hardware.Seconds {
	var s hardware.Seconds
	for _, o := range others {
		s += m[o]
	}
	return s / hardware.Seconds(len(others))
}
