package calibration

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/gpu-planner/planner/costmodel"
)

// FitSubset names the fit set in printed output: every compared dense
// pre-training row except the sources outside what the model represents
// (OutOfScope).
const FitSubset = "every compared dense row (pre-training and fine-tuning) except " + outOfScopeList

// OutOfScope are the sources the fitted parameters do not see: their
// frameworks lose time the model has no term for, so fitting on them
// would bend the parameters every other row shares. DeepSpeed ZeRO-3 in
// 2021 ran far below its bandwidth bound at 768 to 2,240 GPUs
// (Narayanan et al. 2021, Table 2, beside PTD-P rows of the same table
// that the model matches); Megatron-DeepSpeed's PipelineEngine (BLOOM,
// its prequel search, MT-NLG) took 17-60% longer than the Megatron-LM of
// the same years, and with the BF16_Optimizer's gradient passes counted
// (frameworks.MegatronDeepSpeedBF16) its rows are still 10-32% off, MT-NLG
// 23-26% slower than predicted. They are still compared, and predicted by
// the fit.
//
// Why ZeRO-3 stays out: its global batch is dp x micro-batch (one
// micro-batch per step), so each GPU moves the same bytes whatever dp is,
// and the measured step is flat (66.8 s at 768 and 1,536 GPUs for
// GPT-175B) while compute halves. Counted as DeepSpeed v0.3.13 issues it
// (costmodel.Assumptions.ZeRO3PerMatrix: one list-form collective per
// weight matrix, every gather on demand and repeated for the recompute
// and the backward under the 1e8 limits of DeepSpeed's Megatron ZeRO-3
// example, torch.cuda.synchronize() in each fetch, dp host operations
// and copy kernels a call, a reduce-scatter for every norm and bias too,
// and after the step a Python loop over every persistent norm and bias
// and every rank), the traffic is 4 x 2 B x P, serialized with the
// compute, and what each step costs grows with dp. The rows come within
// 15-28%, but not with the measured shape: the 175B step is predicted to
// rise from 768 to 1,536 GPUs (56.8 s, 82.4 s: 15% short, 23% over)
// where it stays at 66.8 s, and the 530B model at 640 and 1,120 GPUs is
// 24-28% short, as if its large gathers moved at well under the node's
// eight 200 Gb/s NICs that NCCL's rings drive and NCCL's tuning model
// (v2.8 src/graph/tuning.cc) assumes; no mechanism found in the source
// accounts for that, and the rows stay out of the fit.
var OutOfScope = []string{"narayanan2021_table2", "bloom176b_tr11", "bloom_prequel_best_tflops", "mtnlg530b_paper"}

const outOfScopeList = "DeepSpeed ZeRO-3 2021 (narayanan2021_table2) and Megatron-DeepSpeed (bloom176b_tr11, bloom_prequel_best_tflops, mtnlg530b_paper)"

// ErrNoFitRows is Fit's error for data without rows in the fit set.
var ErrNoFitRows = errors.New("calibration: no rows of the fit set to fit")

// InFit is the fit set: the rows the parameters are fitted on, every
// compared row of a source not in OutOfScope. Mixture-of-experts cases
// stay out of the fit: they are compared with the parameters the dense
// rows fix. Fine-tuning cases, LoRA among them, are in it: their packed
// SQuAD samples are priced at a measured length (packedSQuAD) and their
// recipes' settings are read (nemoRecipes, loraSettings).
func InFit(c Case) bool {
	return !c.MoE() && !slices.Contains(OutOfScope, c.Row.Source())
}

// Param is one fitted parameter: a costmodel.Assumptions field in (0, 1).
type Param struct {
	Name string
	Get  func(costmodel.Assumptions) float64
	Set  func(*costmodel.Assumptions, float64)
}

// Params are the fitted parameters, two shares, each physical: of the
// measured GEMM and fused-attention kernel speed that a training step
// keeps (cold caches, SMs shared with communication kernels, clocks held
// lower than in a kernel benchmark). Not fitted: the HBM share of
// memory-bound kernels (0.873, costmodel's fittedHBMEfficiency), the
// share of overlappable tensor-parallel communication that Transformer
// Engine's TP overlap hides (TPOverlapShare 1), which a fit over the
// calibration rows drives to its bound of 1, the GEMM cost of async TP's
// hidden transfers (AsyncTPContention, fitted on its own pairs:
// TestAsyncTPContentionFit), and the NVLink bus bandwidth of collectives,
// which the rows do not pin down (a single share refitted with the other
// two wandered from 0.46 to 0.65 while the rms log error moved by 0.002)
// and which is measured instead: costmodel's scaleUpFits, by generation
// and operation, fitted on nccl-tests inside one node (TestScaleUpFit).
var Params = []Param{
	{"gemm_efficiency", func(a costmodel.Assumptions) float64 { return a.GEMMEfficiency },
		func(a *costmodel.Assumptions, v float64) { a.GEMMEfficiency = v }},
	{"attention_efficiency", func(a costmodel.Assumptions) float64 { return a.AttentionEfficiency },
		func(a *costmodel.Assumptions, v float64) { a.AttentionEfficiency = v }},
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

// AtDefaults is the fit's quality at base's values, without refitting:
// what `planner validate` prints, since a test (TestFitReproducesDefaults)
// holds the defaults to the fit.
func AtDefaults(rows []Row, base costmodel.Assumptions) (FitResult, error) {
	cases, _ := Cases(rows)
	f := FitResult{base: base, params: Params, GEMMEfficiency: base.GEMMEfficiency, HBMEfficiency: base.HBMEfficiency,
		ScaleUpEfficiency: base.ScaleUpEfficiency}
	for _, p := range Params {
		f.Values = append(f.Values, ParamValue{p.Name, p.Get(base)})
	}
	for _, c := range cases {
		if !InFit(c) {
			continue
		}
		res, err := logResiduals(c, base)
		if err != nil {
			return FitResult{}, err
		}
		for _, r := range res {
			f.Points++
			f.RMSLogError += r * r
			f.MaxAbsError = math.Max(f.MaxAbsError, math.Abs(math.Exp(r)-1))
		}
	}
	if f.Points == 0 {
		return FitResult{}, ErrNoFitRows
	}
	f.RMSLogError = math.Sqrt(f.RMSLogError / float64(f.Points))
	return f, nil
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
