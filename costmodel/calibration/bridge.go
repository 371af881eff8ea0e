package calibration

import "github.com/gpu-planner/planner/costmodel"

// bridgeRecipes are what Megatron-Bridge's performance recipes set for
// Llama 3 beyond the summary tables' columns (NVIDIA-NeMo/Megatron-Bridge
// scripts/performance/configs/llama/llama3_workload_base_configs.py):
// CUDA graphs (cuda_graph_impl local, scope full_iteration) on the
// Blackwell 8B runs, five of 32 layers recomputed (recompute_num_layers
// 5) on the H100 FP8-CS 8B run, and Megatron-FSDP with 5 to 40 layers'
// activations offloaded to the CPU on the Blackwell BF16 and FP8-CS 70B
// runs. The model prices none of these; each case says which applies.
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
		assume(&c.Assumed, "recipe: recompute_num_layers 5 (not modeled)")
	case has(name, "70b") && blackwell && c.Plan.ZeRO == 3:
		assume(&c.Assumed, "recipe: Megatron-FSDP with CPU activation offloading (not modeled)")
	}
}

// moeRecipes are what Megatron-Bridge's MoE performance recipes set
// beyond the summary tables' columns (scripts/performance/configs/qwen/
// qwen3_workload_base_configs.py and its gpt_oss and deepseek siblings):
// expert_tensor_parallel_size 1, moe_a2a_overlap (the all-to-alls under
// the other micro-batch's compute) on the H100 Qwen3-235B-A22B runs and
// off where stated (H100 Qwen3-30B-A3B, B200/B300 Qwen3-235B-A22B), the
// HybridEP flex dispatcher and CUDA graphs over the router on the
// Blackwell Qwen3-30B-A3B and GB200/GB300 runs. The router is
// force-balanced (Case.Assumptions). Recompute is set per recipe and not
// read here: the cases run the preset's.
func (c *Case) moeRecipes() {
	name, gpu := c.Row.Get("model"), c.Cluster.GPU.Name
	hopper := generation(gpu) == "Hopper"
	if has(name, "235b") && hopper {
		c.EPCommOverlap = true
		assume(&c.Assumed, "recipe: moe_a2a_overlap (all-to-alls overlapped)")
	} else {
		assume(&c.Assumed, "all-to-alls exposed (moe_a2a_overlap off or not stated)")
	}
	if !hopper && (has(name, "30b") || has(gpu, "gb")) {
		assume(&c.Assumed, "recipe: HybridEP flex dispatcher and CUDA graphs over the router (priced as all-to-all, launch overhead not modeled)")
	}
	assume(&c.Assumed, "router force-balanced, dropless (MoELoadImbalance 1)")
}
