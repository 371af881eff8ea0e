package servingcal

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Params are the fitted parameters of the serving model: a per-step
// and a per-request overhead per engine, the per-request overhead of
// each front end (costmodel.FrontendOverheads: Dynamo's is fitted, the
// engines' own servers add none), the achieved HBM share per GPU
// generation (the FLOP shares are the measured kernels',
// costmodel.MeasuredKernelShares), and the requests per client of each benchmark harness
// (Harness): InferenceMAX's is documented (InferenceMAXRounds), the
// sweeps' is fitted.
type Params struct {
	Overhead         map[string]hardware.Seconds               `json:"step_overhead_s"`
	RequestOverhead  map[string]hardware.Seconds               `json:"request_overhead_s"`
	FrontendOverhead map[string]hardware.Seconds               `json:"frontend_overhead_s"`
	Shares           map[costmodel.Generation]costmodel.Shares `json:"shares"`
	Rounds           map[string]float64                        `json:"rounds"`
}

// InferenceMAXRounds is the requests each client of the InferenceMAX
// harness sends: 10 x the concurrency in all, the first concurrency of
// them at once. InferenceMAX runs benchmark_serving.py with
// --num-prompts $(( $CONC * 10 )) --max-concurrency $CONC
// --request-rate inf (SemiAnalysis InferenceMAX, README, "Benchmark
// Client Configuration"), as aiconfigurator's deployment guide
// benchmarks with "concurrency * 10 as num_requests" "to reduce the
// impact of first batch of requests" (ai-dynamo/aiconfigurator,
// docs/dynamo_deployment_guide.md).
const InferenceMAXRounds = 10

// sweepRounds is the fitted requests per client of the sweep harness.
const sweepRounds = 7.44

// Defaults are the parameters the costmodel presets carry.
func Defaults() Params {
	p := Params{Overhead: map[string]hardware.Seconds{}, RequestOverhead: map[string]hardware.Seconds{},
		FrontendOverhead: maps.Clone(costmodel.FrontendOverheads), Shares: maps.Clone(costmodel.GenerationShares),
		Rounds: map[string]float64{HarnessInferenceMAX: InferenceMAXRounds, HarnessSweep: sweepRounds}}
	for name, e := range costmodel.Engines {
		p.Overhead[name], p.RequestOverhead[name] = e.StepOverhead, e.RequestOverhead
	}
	return p
}

// Case is a point mapped to the model's inputs.
type Case struct {
	Point   Point
	Model   *costmodel.Model
	Cluster hardware.Cluster
	Plan    costmodel.ServePlan
	Load    costmodel.ServeLoad
	// Generation of the GPU; Assumed lists settings the data does not
	// record and the mapping assumes.
	Generation costmodel.Generation
	Assumed    []string
	// Layout is the deployment as the engine ran it (engineLayout).
	Layout Layout
	// Engine is the engine's preset with the settings of the point's
	// launch script (launchScript); Predict sets its overheads.
	Engine costmodel.Engine
}

// Skip is a point that is not modeled, with the reason. NotComparable
// marks a point the model could price whose measurement holds a cost it
// does not model (script.incomparable): it is neither fitted nor scored.
type Skip struct {
	Point         Point  `json:"point"`
	Reason        string `json:"reason"`
	NotComparable bool   `json:"not_comparable,omitempty"`
}

// notComparable is newCase's error for a point the model does not
// compare with (script.incomparable); the case comes with it, mapped in full.
type notComparable string

func (e notComparable) Error() string { return string(e) }

// Cases maps every point to a case, or to a skip with the reason.
func Cases(points []Point) ([]Case, []Skip) {
	var cases []Case
	var skips []Skip
	for _, p := range points {
		c, err := newCase(p)
		if err != nil {
			_, incomparable := err.(notComparable)
			skips = append(skips, Skip{Point: p, Reason: err.Error(), NotComparable: incomparable})
			continue
		}
		cases = append(cases, c)
	}
	return cases, skips
}

// newCase maps one point.
func newCase(p Point) (Case, error) {
	c := Case{Point: p}
	if _, ok := costmodel.Engines[p.Engine]; !ok {
		return c, fmt.Errorf("engine %q has no preset (valid: %v)", p.Engine, costmodel.EngineNames)
	}
	m, err := costmodel.LookupModel(p.Model)
	if err != nil {
		return c, err
	}
	g, err := hardware.LookupGPU(p.GPU)
	if err != nil {
		return c, err
	}
	lay, reread := engineLayout(p)
	c.Layout = lay
	if c.Cluster, err = hardware.ClusterForGPUs(g, lay.GPUs(), g.ScaleUpDomain); err != nil {
		return c, err
	}
	c.Model, c.Generation = m, costmodel.GenerationOf(g)
	w, kv, assumed, err := dtypes(p)
	if err != nil {
		return c, err
	}
	sc := launchScript(p)
	if sc.setKV {
		kv, assumed = sc.kv, nil
	}
	c.Engine, c.Assumed = sc.engine, append(assumed, sc.notes...)
	if reread {
		c.Assumed = append(c.Assumed, fmt.Sprintf("%d GPUs, not the %d recorded (engineLayout)", lay.GPUs(), p.TP*p.PP*p.AttentionDP))
	}
	c.Plan = costmodel.ServePlan{TP: lay.TP, PP: lay.PP, Replicas: 1, Weights: w, KV: kv}
	if c.Model.MoE != nil {
		c.Plan.DP, c.Plan.EP = lay.DP, lay.EP
	}
	c.Load = costmodel.ServeLoad{InputTokens: p.Input, OutputTokens: p.Output, Concurrency: p.Concurrency}
	if sc.incomparable != "" {
		return c, notComparable(sc.incomparable)
	}
	return c, nil
}

// blockFP8Checkpoint are the models whose FP8 checkpoints are
// block-quantized whatever a point's label: DeepSeek-V3 and R1 ship
// their weights in fp8 with a 128 x 128 block scale each
// (weight_scale_inv; DeepSeek-V3 technical report, sec. 3.3.2), and
// Qwen/Qwen3-235B-A22B-FP8 is "fine-grained fp8 quantization with block
// size of 128" (its model card).
var blockFP8Checkpoint = map[string]bool{"deepseek-v3": true, "qwen3-235b-a22b": true}

// dtypes maps the point's formats. gpt-oss ships its experts in MXFP4
// (openai/gpt-oss-120b model card), whatever the source's label; fp8
// weights whose GEMM or MoE quantization is fp8_block, or of a
// block-quantized checkpoint (blockFP8Checkpoint), are fp8-block; a
// blank KV format is the engine's default: TensorRT-LLM's quantized
// checkpoints carry an fp8 KV cache, vLLM's and SGLang's "auto" follows
// the activations (bf16).
func dtypes(p Point) (w, kv costmodel.DType, assumed []string, err error) {
	switch {
	case p.Weights == "fp4" && p.Model == "gpt-oss-120b":
		w = costmodel.DTypeMXFP4
	case p.Weights == "fp4":
		w = costmodel.DTypeNVFP4
	case p.Weights == "fp8" && (p.Quant == "fp8_block" || p.MoEQuant == "fp8_block" || blockFP8Checkpoint[p.Model]):
		w = costmodel.DTypeFP8Block
	default:
		if w, err = costmodel.ParseDType(p.Weights); err != nil {
			return w, kv, nil, err
		}
	}
	if p.KV != "" {
		kv, err = costmodel.ParseDType(p.KV)
		return w, kv, nil, err
	}
	kv = costmodel.DTypeBF16
	if p.Engine == "trtllm" && w != costmodel.DTypeBF16 {
		kv = costmodel.DTypeFP8
	}
	return w, kv, []string{"KV cache " + kv.String() + " (not recorded)"}, nil
}

// Prediction is the model's TTFT and TPOT for a case.
type Prediction struct {
	TTFT, TPOT float64
}

// Predict runs the serving model on case c with parameters p.
func Predict(c Case, p Params) (Prediction, error) {
	eng := c.Engine
	eng.StepOverhead, eng.RequestOverhead = p.Overhead[eng.Name], p.RequestOverhead[eng.Name]
	eng.FrontendOverhead = p.FrontendOverhead[frontend(eng)]
	l := c.Load
	l.Rounds, l.EqualLengths = p.Rounds[c.Point.Harness], c.Point.Harness == HarnessSweep
	a := costmodel.ServeAssumptions(costmodel.DefaultAssumptions(), c.Cluster.GPU)
	s := p.Shares[c.Generation]
	a.ServeHBMEfficiency = s.HBM
	if s.FLOP > 0 {
		a.ServeFLOPEfficiency, a.ServeKernels = s.FLOP, costmodel.KernelShares{}
	}
	r, err := costmodel.EstimateServeLoad(c.Model, c.Cluster, c.Plan, l, eng, a)
	if err != nil {
		return Prediction{}, err
	}
	if r.Slots < 1 {
		return Prediction{}, fmt.Errorf("%s", r.Notes[0])
	}
	return Prediction{TTFT: float64(r.TTFT), TPOT: float64(r.TPOT)}, nil
}

// frontend is the front end of engine e.
func frontend(e costmodel.Engine) string {
	if e.Frontend == "" {
		return costmodel.FrontendNative
	}
	return e.Frontend
}

// engines are the engine names of cases, sorted.
func engines(cases []Case) []string {
	set := map[string]bool{}
	for _, c := range cases {
		set[c.Point.Engine] = true
	}
	return slices.Sorted(maps.Keys(set))
}
