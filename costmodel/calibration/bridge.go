package calibration

import (
	"fmt"
	"slices"
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
// it; a plan the layout cannot take keeps the case's own, says why and
// reports false.
func (c *Case) recipePlan(p costmodel.Plan, what, how string) bool {
	q, err := p.Normalize(c.Model, c.Cluster.GPUs())
	if err != nil {
		assume(&c.Assumed, "recipe: %s (not modeled: %v)", what, err)
		return false
	}
	c.Plan = q
	assume(&c.Assumed, "recipe: %s (%s)", what, how)
	return true
}

// dropRecomputeDefault removes the framework's default recompute from the
// assumptions (Case.recompute's "recompute=..."), once a recipe has set
// the recompute the case runs, so the list names only what is priced.
func (c *Case) dropRecomputeDefault() {
	c.Assumed = slices.DeleteFunc(c.Assumed, func(a string) bool { return strings.HasPrefix(a, "recompute=") })
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
	c.dropRecomputeDefault()
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
	if c.recipePlan(p, fmt.Sprintf("recompute_num_layers %d", n), "recompute_granularity full, recompute_method block") {
		c.dropRecomputeDefault()
	}
}
