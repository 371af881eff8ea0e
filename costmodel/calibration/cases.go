package calibration

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/frameworks"
	"github.com/gpu-planner/planner/hardware"
)

// Metric is what a row measures.
type Metric int

const (
	// StepTime is seconds per optimizer step.
	StepTime Metric = iota
	// TokensPerGPU is tokens per second per GPU.
	TokensPerGPU
	// LayerTime is one layer's forward plus backward time for one
	// micro-batch (Korthikanti et al. 2022, Table 4).
	LayerTime
)

var metricNames = [...]string{"step time", "tokens/s/GPU", "layer fwd+bwd"}

func (m Metric) String() string { return metricNames[m] }

// Target is the measured value a case is compared with.
type Target struct {
	Metric Metric
	Value  float64
	// Forward and Backward are the two parts of a LayerTime, in seconds.
	Forward, Backward float64
	// From names the column or the conversion the value comes from.
	From string
}

// Case is one row turned into the cost model's inputs.
type Case struct {
	Row     Row
	Model   *costmodel.Model
	Cluster hardware.Cluster
	Plan    costmodel.Plan
	fw      frameworks.Preset
	// HalfRecompute: the source checkpoints every other layer
	// (torchtitan's per-layer selective AC); the prediction is the mean
	// of no recompute and full recompute. Op-level selective AC is
	// Recompute OpSAC.
	HalfRecompute bool
	Target        Target
	// Assumed lists the settings the source does not state.
	Assumed []string
	// EPCommOverlap: the recipe hides the expert-parallel all-to-alls
	// behind compute (Megatron-Bridge's moe_a2a_overlap); MoE cases only.
	EPCommOverlap bool
	// EPNodeDedup: the recipe's dispatcher (DeepEP, HybridEP) sends a
	// token once per node; MoE cases only.
	EPNodeDedup bool
	// GraphsHideHostSync: the recipe captures the attention (or the
	// whole iteration) in CUDA graphs, so the host relaunches the next
	// layer in one graph launch after the MoE layer's token-count sync
	// (MoEHostSync 0); MoE cases only.
	GraphsHideHostSync bool
	// FP8Params: the recipe keeps the layers' weights in its low format
	// only (costmodel.Assumptions.FP8ParamStorage; bridgeFP8Params).
	FP8Params bool
	// BF16Optimizer: the recipe's optimizer keeps bf16 state and bf16
	// gradients (costmodel.Assumptions.BF16OptimizerStates; nemoRecipes).
	BF16Optimizer bool
	// RecipeMemory is what the source's recipe states about recompute,
	// activation offload and weight storage where the row's columns do
	// not, for the fit check's reason (fitReason); empty when unknown.
	RecipeMemory string
}

// Skip is a row the model does not cover, and why.
type Skip struct {
	Row    Row
	Reason string
}

// Assumptions are base with the case's framework settings. A
// mixture-of-experts case routes as its benchmark did: Megatron-Bridge
// force-balances the router (moe_router_force_load_balancing) and drops
// no tokens, and the all-to-alls overlap compute where the recipe says so.
func (c Case) Assumptions(base costmodel.Assumptions) costmodel.Assumptions {
	a := c.fw.Apply(base)
	a.FP8ParamStorage = a.FP8ParamStorage || c.FP8Params
	if c.BF16Optimizer {
		a.BF16OptimizerStates, a.GradAccumFP32 = true, false
	}
	if c.MoE() {
		a.MoELoadImbalance, a.MoECapacityFactor, a.EPCommOverlap = 1, 0, c.EPCommOverlap
		a.EPNodeDedup = c.EPNodeDedup
		if c.GraphsHideHostSync {
			a.MoEHostSync = 0
		}
	}
	return a
}

// MoE reports whether the case is a mixture-of-experts model.
func (c Case) MoE() bool { return c.Model != nil && c.Model.MoE != nil }

// Framework names the software the row ran.
func (c Case) Framework() string { return c.fw.Title }

// Preset is the framework preset of the row.
func (c Case) Preset() frameworks.Preset { return c.fw }

// Cases maps every row to a case or a skip. Rows that repeat an
// experiment (same dedup_group, recompute, sequence parallelism and kind
// of measurement) keep only the newest release (release order), the
// later row id among rows of the same release.
func Cases(rows []Row) (cases []Case, skipped []Skip) {
	kept := map[string]Row{}
	for _, r := range rows {
		k := dedupKey(r)
		if prev, ok := kept[k]; !ok || !newer(prev, r) {
			kept[k] = r
		}
	}
	for _, r := range rows {
		if keep := kept[dedupKey(r)]; keep.ID() != r.ID() {
			skipped = append(skipped, Skip{r, "repeats row " + keep.ID() + " (same dedup_group and settings); the newer release is kept"})
			continue
		}
		c, err := newCase(r)
		if err != nil {
			skipped = append(skipped, Skip{r, err.Error()})
			continue
		}
		cases = append(cases, c)
	}
	return cases, skipped
}

// dedupKey is what makes two rows the same experiment. Besides the
// layout columns, torchtitan's benchmark rows differ by torch.compile
// and by async TP within one dedup_group.
func dedupKey(r Row) string {
	return strings.Join([]string{r.Get("dedup_group"), r.Get("recompute"), r.Get("sequence_parallel"),
		r.Get("measurement_type"), r.Get("task"), fmt.Sprint(has(r.Get("framework"), "torch.compile")),
		fmt.Sprint(has(r.Get("notes"), "async tp"))}, "|")
}

func has(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }

// newCase maps one row, or says why it cannot be modeled.
func newCase(r Row) (Case, error) {
	if err := coverage(r); err != nil {
		return Case{}, err
	}
	c, err := newSetup(r)
	if err != nil {
		return Case{}, err
	}
	c.Target, err = rowTarget(r, c.Model, c.Plan.Seq)
	return c, err
}

// newSetup maps a row's model, cluster and plan.
func newSetup(r Row) (Case, error) {
	fw, ok := frameworkOf(r)
	if !ok {
		return Case{}, fmt.Errorf("no framework settings for source %s", r.Source())
	}
	c := Case{Row: r, fw: fw}
	var err error
	if c.Model, err = rowModel(r, &c.Assumed); err != nil {
		return Case{}, err
	}
	if c.Cluster, err = rowCluster(r, &c.Assumed); err != nil {
		return Case{}, err
	}
	if err = c.plan(); err != nil {
		return Case{}, err
	}
	c.bridgeTableLayout()
	c.bridgeRecipes()
	c.nemoRecipes()
	c.bridgeFP8Params()
	c.bridgeMemory()
	return c, nil
}

// coverage rejects what the cost model does not represent.
func coverage(r Row) error {
	switch {
	case r.Get("outcome") != "ok":
		return fmt.Errorf("feasibility row (outcome %s), not a speed measurement", r.Get("outcome"))
	case has(r.Get("pp_schedule"), "dualpipe"):
		return fmt.Errorf("DualPipe schedule (bidirectional pipeline overlapping the all-to-alls) and a whole-run average (GPU-hours over the trained tokens, batch ramp, restarts) are not modeled")
	case moeRow(r):
		if _, err := moeModel(r); err != nil {
			return fmt.Errorf("mixture of experts (%s experts) with expert parallelism (ep %s): model %q is not in the model catalog",
				orDash(r.Get("moe_experts")), orDash(r.Get("ep")), r.Get("model"))
		}
	case r.Get("tp") == "":
		return fmt.Errorf("unstated layout: tensor-parallel degree not given")
	case r.Get("layers") == "" || r.Get("hidden") == "":
		return fmt.Errorf("architecture not stated by the source (layers, hidden size)")
	case has(r.Get("global_batch"), "~") || has(r.Get("global_batch"), "->"):
		return fmt.Errorf("global batch %q is not one number", r.Get("global_batch"))
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// count reads a required count column.
func count(r Row, col string) (int, error) {
	n, ok, err := r.Int(col)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%s not given", col)
	}
	return n, nil
}

// optional reads a count column that may be empty (def).
func optional(r Row, col string, def int) (int, error) {
	n, ok, err := r.Int(col)
	if err != nil || !ok {
		return def, err
	}
	return n, nil
}

// assume records an assumed setting.
func assume(list *[]string, format string, args ...any) {
	*list = append(*list, fmt.Sprintf(format, args...))
}
