package costmodel

import "fmt"

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
func (a *Assumptions) setMoEDefaults() {
	a.MoELoadImbalance = 1
	a.MoECapacityFactor = 0
	a.EPCommOverlap = false
}

func (a Assumptions) validateMoE() error {
	if !(a.MoELoadImbalance >= 1 && a.MoELoadImbalance <= 1024) {
		return fmt.Errorf("costmodel: MoE load imbalance %g is not in [1, 1024] (1: balanced routing)", a.MoELoadImbalance)
	}
	if !(a.MoECapacityFactor == 0 || a.MoECapacityFactor >= 1 && a.MoECapacityFactor <= 1024) {
		return fmt.Errorf("costmodel: MoE capacity factor %g is not 0 (dropless) or in [1, 1024]", a.MoECapacityFactor)
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
