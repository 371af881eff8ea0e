package calibration

import (
	"slices"

	"github.com/gpu-planner/planner/costmodel"
)

// bridgeFP8Params sets what Megatron-Bridge's FP8 precision configs do
// to the weights of a dense Llama 3 run from release 26.02 on: the
// performance scripts take their precision from get_precision_config
// (scripts/performance/utils/precision.py), whose fp8_cs and fp8_mx
// configs are bf16_with_fp8_current_scaling_mixed and
// bf16_with_mxfp8_mixed, and both set fp8_param_gather = True
// (src/megatron/bridge/training/mixed_precision.py, branches r0.3.0,
// r0.4.1 and r0.5.0; MXFP8 also sets reuse_grad_buf_for_mxfp8_param_ag);
// the Llama 3 scripts (configs/llama/llama3_llm_pretrain.py,
// llama31_llm_pretrain.py, llama3_llm_finetune.py) leave it set. The
// layers' weights are then held in FP8 only
// (costmodel.Assumptions.FP8ParamStorage). Megatron-FSDP plans (ZeRO-3)
// and LoRA plans are left as they are: the first's parameter path is not
// the distributed optimizer's buffer the setting is modeled on, and the
// second's frozen base is not trained weights (costmodel applies the
// setting to fully trained plans only).
func (c *Case) bridgeFP8Params() {
	if !has(c.Row.Source(), "megatron_bridge") || c.MoE() || !has(c.Row.Get("model"), "llama-3") ||
		c.Plan.ZeRO == 3 || c.Plan.Task.Adapted() || slices.Compare(release(c.Row), []int{26, 2}) < 0 {
		return
	}
	if c.Plan.Precision != costmodel.FP8CS && c.Plan.Precision != costmodel.MXFP8 {
		return
	}
	c.FP8Params = true
	assume(&c.Assumed, "recipe: fp8_param_gather (the layers' weights held in %s only)", c.Plan.Precision)
}

// bridgeMemoryRecipe is what one Megatron-Bridge performance recipe
// states about a layout's memory, read from the release's scripts.
type bridgeMemoryRecipe struct {
	model, gpu, task     string
	tp, pp, cp, vpp, mbs int
	note                 string
}

// bridgeMemoryRecipes are the recipes of the dense Llama 3 rows the fit
// check finds over the HBM (NVIDIA-NeMo/Megatron-Bridge,
// scripts/performance/configs/llama/; the base recipes in
// src/megatron/bridge/recipes/llama/llama3.py set
// recompute_granularity None, and scripts/performance/utils/overrides.py
// _set_recompute_overrides turns on recompute or offload only where the
// workload config sets recompute_num_layers, recompute_modules or
// cpu_offloading_num_layers).
var bridgeMemoryRecipes = []bridgeMemoryRecipe{
	{model: "llama-3.1-405b", gpu: "gb200", task: "pretrain", tp: 4, pp: 16, cp: 1, vpp: 4, mbs: 1,
		note: "the recipe (LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_CS_V2, llama31_workload_base_configs.py, r0.4.1 and r0.5.0) " +
			"sets no recompute and no activation offload (cpu_offloading_num_layers None, use_megatron_fsdp False)"},
	{model: "llama-3.1-405b", gpu: "gb300", task: "pretrain", tp: 2, pp: 8, cp: 2, vpp: 4, mbs: 1,
		note: "the recipe (LLAMA31_405B_PRETRAIN_CONFIG_GB300_FP8_MX_V2 from _V1, llama31_workload_base_configs.py, r0.4.1) " +
			"sets no recompute and no activation offload"},
	{model: "llama-3-70b", gpu: "gb300", task: "sft", tp: 1, pp: 2, cp: 1, vpp: 20, mbs: 1,
		note: "the recipe (_LLAMA3_70B_SFT_CONFIG_GB300, llama3_workload_base_configs.py, r0.5.0) sets no recompute and no " +
			"activation offload; it sets disable_parameter_transpose_cache (llama3_llm_finetune.py), which the model " +
			"does not express (the FP8 weights' transposes still counted)"},
}

// bridgeMemory sets the case's RecipeMemory from bridgeMemoryRecipes.
func (c *Case) bridgeMemory() {
	if !has(c.Row.Source(), "megatron_bridge") {
		return
	}
	p := c.Plan
	for _, r := range bridgeMemoryRecipes {
		vpp := max(p.VPP, 1)
		if has(c.Row.Get("model"), r.model) && c.Cluster.GPU.Name == r.gpu && c.Row.Get("task") == r.task &&
			p.TP == r.tp && p.PP == r.pp && p.CP == r.cp && vpp == max(r.vpp, 1) && p.MicroBatch == r.mbs {
			c.RecipeMemory = r.note
			return
		}
	}
}
