package calibration

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// bridgeRecipes are what Megatron-Bridge's performance recipes set for
// Llama 3 beyond the summary tables' columns (NVIDIA-NeMo/Megatron-Bridge
// scripts/performance/configs/llama/llama3_workload_base_configs.py):
// CUDA graphs (cuda_graph_impl local, scope full_iteration) on the
// Blackwell 8B runs, five of 32 layers recomputed (recompute_num_layers
// 5) on the H100 FP8-CS 8B run, and Megatron-FSDP with 5 to 40 layers'
// activations offloaded to the CPU on the Blackwell BF16 and FP8-CS 70B
// runs. The recompute (blockRecompute) and the offload (offloadLayers)
// are modeled; the graphs are not. Each case says which applies.
func (c *Case) bridgeRecipes() {
	if !bridgeSource(c) {
		return
	}
	if c.MoE() {
		c.moeRecipes()
		return
	}
	name, gpu := c.Row.Get("model"), c.Cluster.GPU.Name
	blackwell := generation(gpu) == "Blackwell"
	hopper8bFP8 := c.Plan.Precision == costmodel.FP8CS && generation(gpu) == "Hopper"
	switch {
	case has(name, "8b") && blackwell:
		assume(&c.Assumed, "recipe: CUDA graphs over the whole iteration (launch overhead not modeled)")
	case has(name, "8b") && hopper8bFP8:
		c.blockRecompute(5)
	case has(name, "70b") && blackwell && c.Plan.ZeRO == 3:
		c.offloadLayers(bridgeOffload[gpu+" "+c.Plan.Precision.String()])
	}
}

// bridgeOffload is cpu_offloading_num_layers of the Llama 3 70B
// Megatron-FSDP recipes, by GPU and precision (llama3_workload_base_
// configs.py: LLAMA3_70B_PRETRAIN_CONFIG_<GPU>_<PRECISION>_V1 and _V2,
// which agree).
var bridgeOffload = map[string]int{
	"gb300 bf16": 30, "gb300 fp8-cs": 20, "gb200 bf16": 20, "gb200 fp8-cs": 40, "b200 fp8-cs": 5,
}

// offloadLayers sets a recipe's activation offload of n layers
// (Plan.OffloadActivationLayers), or says why it is not modeled.
func (c *Case) offloadLayers(n int) {
	if n == 0 {
		assume(&c.Assumed, "recipe: Megatron-FSDP with CPU activation offloading, layers not in the current scripts (not modeled)")
		return
	}
	p := c.Plan
	p.OffloadActivationLayers = n
	c.recipePlan(p, fmt.Sprintf("cpu_offloading_num_layers %d", n),
		fmt.Sprintf("Megatron-FSDP, activations of %d layers in host memory", n))
}

// recipePlan replaces the case's plan by p, a recipe setting (what) the
// table's columns do not carry, and records it with how the model reads
// it; a plan the layout cannot take keeps the case's own and says why.
func (c *Case) recipePlan(p costmodel.Plan, what, how string) {
	q, err := p.Normalize(c.Model, c.Cluster.GPUs())
	if err != nil {
		assume(&c.Assumed, "recipe: %s (not modeled: %v)", what, err)
		return
	}
	c.Plan = q
	assume(&c.Assumed, "recipe: %s (%s)", what, how)
}

// moeRecipe is what one Megatron-Bridge MoE performance recipe sets
// beyond the table's columns, for the layout it names (NVIDIA-NeMo/
// Megatron-Bridge scripts/performance/configs/{qwen,gpt_oss,deepseek}/
// *_workload_base_configs.py and qwen3_llm_pretrain.py): whether the
// all-to-alls overlap the other micro-batch's compute (moe_a2a_overlap),
// the token dispatcher, CUDA graphs, and the modules it recomputes.
// A row whose layout is not a recipe's gets only the common settings.
type moeRecipe struct {
	model, gpu         string
	pp, vpp, ep, mbs   int // 0: any
	overlap            bool
	dispatcher, graphs string
	recompute          string
}

var moeRecipes = []moeRecipe{
	// Qwen3: set_qwen3_common_configs sets recompute_granularity None.
	{model: "qwen3-235b-a22b", gpu: "h100-sxm", ep: 32, overlap: true, dispatcher: "alltoall"},
	{model: "qwen3-235b-a22b", gpu: "b200", ep: 8, dispatcher: "alltoall"},
	{model: "qwen3-235b-a22b", gpu: "b300", ep: 8, dispatcher: "alltoall"},
	{model: "qwen3-235b-a22b", gpu: "gb200", dispatcher: "HybridEP", graphs: "attention, router"},
	{model: "qwen3-30b-a3b", gpu: "h100-sxm", ep: 16, dispatcher: "HybridEP"},
	{model: "qwen3-30b-a3b", gpu: "b200", dispatcher: "HybridEP", graphs: "attention, router"},
	{model: "qwen3-30b-a3b", gpu: "b300", dispatcher: "HybridEP", graphs: "router"},
	{model: "qwen3-30b-a3b", gpu: "gb200", dispatcher: "HybridEP", graphs: "attention, router"},
	{model: "gpt-oss-120b", gpu: "h100-sxm", pp: 4, ep: 8, recompute: "layernorm, moe_act"},
	{model: "gpt-oss-120b", gpu: "b200", ep: 64, mbs: 4, recompute: "layernorm, moe_act"},
	{model: "gpt-oss-120b", gpu: "b300", ep: 8, mbs: 4, dispatcher: "HybridEP", graphs: "attention, router"},
	{model: "gpt-oss-120b", gpu: "gb200", ep: 64, mbs: 4, overlap: true, recompute: "layernorm, moe_act"},
	{model: "deepseek-v3", gpu: "b200", pp: 16, ep: 8, dispatcher: "HybridEP", recompute: "mla_up_proj"},
	{model: "deepseek-v3", gpu: "b200", pp: 8, vpp: 2, ep: 32, overlap: true, dispatcher: "DeepEP",
		graphs: "attention, router", recompute: "mla_up_proj, mlp"},
	{model: "deepseek-v3", gpu: "gb200", pp: 4, vpp: 4, ep: 64, overlap: true, dispatcher: "HybridEP",
		graphs: "full iteration", recompute: "mla_up_proj"},
}

func (r moeRecipe) matches(c *Case) bool {
	p := c.Plan
	eq := func(want, got int) bool { return want == 0 || want == got }
	return r.model == c.Model.Name && r.gpu == c.Cluster.GPU.Name && eq(r.pp, p.PP) && eq(r.vpp, p.VPP) &&
		eq(r.ep, p.EP) && eq(r.mbs, p.MicroBatch)
}

// moeRecipes sets what the row's recipe states (moeRecipes) and prints
// the rest: the all-to-alls overlap compute only where moe_a2a_overlap
// is set; the DeepEP and HybridEP dispatchers send a token once per
// node (EPNodeDedup), the alltoall dispatcher every copy; CUDA graphs
// over the attention or the whole iteration hide the MoE layers' host
// syncs (GraphsHideHostSync: the host relaunches the next block in one
// graph launch), and without them each MoE layer's forward waits
// MoEHostSync on the host; other launch overhead is not modeled. The
// modules a recipe recomputes (recompute_modules: moe_act, layernorm,
// mla_up_proj, mlp) run as selective recompute of exactly those modules
// (costmodel.RecomputeModules). The router is force-balanced
// (Case.Assumptions).
func (c *Case) moeRecipes() {
	assume(&c.Assumed, "router force-balanced, dropless (MoELoadImbalance 1)")
	for _, r := range moeRecipes {
		if !r.matches(c) {
			continue
		}
		c.EPCommOverlap = r.overlap
		if r.overlap {
			assume(&c.Assumed, "recipe: moe_a2a_overlap (all-to-alls overlapped)")
		} else {
			assume(&c.Assumed, "recipe: all-to-alls exposed (no moe_a2a_overlap)")
		}
		switch r.dispatcher {
		case "":
		case "DeepEP", "HybridEP":
			c.EPNodeDedup = true
			assume(&c.Assumed, "recipe: %s token dispatcher (all-to-all sending a token once per node)", r.dispatcher)
		default:
			assume(&c.Assumed, "recipe: %s token dispatcher (priced as all-to-all)", r.dispatcher)
		}
		switch {
		case strings.Contains(r.graphs, "attention") || r.graphs == "full iteration":
			c.GraphsHideHostSync = true
			assume(&c.Assumed, "recipe: CUDA graphs over %s (the MoE layers' host syncs hidden: MoEHostSync 0)", r.graphs)
		case r.graphs != "":
			assume(&c.Assumed, "recipe: CUDA graphs over %s (the MoE layers' host syncs still priced)", r.graphs)
		default:
			assume(&c.Assumed, "recipe: no CUDA graphs (a host sync per MoE layer and forward pass, MoEHostSync)")
		}
		if r.recompute != "" {
			c.recomputeModules(r.recompute)
		}
		return
	}
	assume(&c.Assumed, "recipe for this layout not in the current scripts: all-to-alls exposed")
}

// recomputeModules sets the recipe's recompute_modules (a list the
// recipe table spells with Megatron's names; a bad name is a bug in
// moeRecipes).
func (c *Case) recomputeModules(names string) {
	mods, err := costmodel.ParseRecomputeModules(names)
	if err != nil {
		panic(err)
	}
	c.Plan.Recompute, c.Plan.RecomputeModules = costmodel.Selective, mods
	assume(&c.Assumed, "recipe: recompute_granularity selective, recompute_modules %s", mods)
}

// blockRecompute sets a recipe's recompute_num_layers n, which
// Megatron-Bridge's performance scripts turn into recompute_granularity
// full, recompute_method block (scripts/performance/utils,
// set_recompute_overrides): the first n layers of each pipeline stage
// checkpointed, the others not recomputed (costmodel.Block). A layout
// whose stages hold fewer than n layers keeps its recompute and says so.
func (c *Case) blockRecompute(n int) {
	p := c.Plan
	p.Recompute, p.RecomputeModules, p.RecomputeMethod, p.RecomputeLayers = costmodel.Full, 0, costmodel.Block, n
	c.recipePlan(p, fmt.Sprintf("recompute_num_layers %d", n), "recompute_granularity full, recompute_method block")
}
