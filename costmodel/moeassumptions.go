package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// setMoEDefaults fills the mixture-of-experts assumptions:
//
//   - MoELoadImbalance 1.0: balanced routing. Megatron-Bridge's
//     performance recipes force-balance the router in their benchmarks
//     (moe_router_force_load_balancing, scripts/performance), so the
//     measured rows this planner compares with are balanced; DeepSeek-V3's
//     auxiliary-loss-free balancing keeps real routing close to it
//     (arXiv:2412.19437, sec. 2.1.2). Raise it to model a skewed router:
//     the busiest expert then sets the grouped GEMMs' time and the
//     dispatched-token memory.
//   - MoECapacityFactor 0: dropless routing, Megatron-Core's default
//     (moe_expert_capacity_factor None). GShard (Lepikhin et al. 2020,
//     arXiv:2006.16668, sec. 2.2) and Switch (Fedus et al. 2021,
//     arXiv:2101.03961, sec. 2.2) cap each expert at capacity factor x
//     tokens x top-k / experts.
//   - EPCommOverlap off: Megatron-Core exposes the all-to-alls unless
//     --overlap-moe-expert-parallel-comm (with its 1F1B A2A overlap
//     schedule) or DeepEP is set up.
//   - MoEHostSync moeHostSync (DefaultMoEHostSync) per MoE layer and
//     forward pass: Megatron-Core's token dispatchers need the
//     tokens-per-expert counts on the host. MoEAlltoAllTokenDispatcher
//     (megatron/core/transformer/moe/token_dispatcher.py, preprocess)
//     copies them with .to("cpu", non_blocking=True) and synchronizes the
//     stream at cuda_sync_point: "before_ep_alltoall" when dropless with
//     ep > 1 or several local experts (the all-to-all's input and output
//     splits), "before_finish" otherwise (the grouped GEMM's m_splits),
//     "before_permutation_1" with a capacity factor; only
//     moe_pad_expert_input_to_capacity avoids it. DeepEP's and HybridEP's
//     dispatch likewise wait on the host for the received-token counts.
//     The backward reuses the splits kept from the forward, so only
//     forward passes (and a full recompute's) sync. After the sync the
//     GPU's queue is empty and it idles while the host copies the counts
//     and launches the layer's next kernels one by one (the "host
//     overhead" of Megatron-Core's MoE report, arXiv:2603.07685, and of
//     Megatron-Bridge's MoE optimization guide, which removes it with
//     CUDA graphs and sync-free dispatch). The latency is one number
//     fitted across the Megatron-Bridge MoE rows whose recipes run
//     without CUDA graphs (calibration's TestMoEHostSyncFit).
func (a *Assumptions) setMoEDefaults() {
	a.MoELoadImbalance = 1
	a.MoECapacityFactor = 0
	a.EPCommOverlap = false
	a.MoEHostSync = DefaultMoEHostSync
}

// DefaultMoEHostSync is the GPU idle time of one MoE layer's host
// synchronization in a forward pass without CUDA graphs (setMoEDefaults).
const DefaultMoEHostSync hardware.Seconds = 1.6e-3

func (a Assumptions) validateMoE() error {
	if !(a.MoELoadImbalance >= 1 && a.MoELoadImbalance <= 1024) {
		return fmt.Errorf("costmodel: MoE load imbalance %g is not in [1, 1024] (1: balanced routing)", a.MoELoadImbalance)
	}
	if !(a.MoECapacityFactor == 0 || a.MoECapacityFactor >= 1 && a.MoECapacityFactor <= 1024) {
		return fmt.Errorf("costmodel: MoE capacity factor %g is not 0 (dropless) or in [1, 1024]", a.MoECapacityFactor)
	}
	if !(a.MoEHostSync >= 0 && a.MoEHostSync <= 0.1) {
		return fmt.Errorf("costmodel: MoE host sync %g s is not in [0, 0.1] seconds per MoE layer and forward pass", float64(a.MoEHostSync))
	}
	return nil
}

// expertRowFactor is the rows the busiest expert computes over the
// balanced share tokens x top-k / experts: the capacity factor when
// tokens are dropped beyond it, else the load imbalance (dropless).
func (a Assumptions) expertRowFactor() float64 {
	if a.MoECapacityFactor > 0 {
		return a.MoECapacityFactor
	}
	return a.MoELoadImbalance
}
