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
