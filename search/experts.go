package search

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
)

// ExpertLayout says what plan a's expert layout buys on nodes of
// perNode GPUs: where its ep group lands (Megatron-Core's expert rank
// order etp-ep-edp, the ep ranks etp apart), how many experts each GPU
// holds and over how many ranks their states shard, and the all-to-all
// time left exposed, e.g. "ep 8 keeps the all-to-all inside the 8-GPU
// NVLink domain: 32 of 256 experts per GPU, expert states sharded over
// expert dp 4; exposed all-to-all 1.2 s (3.1% of the step)".
func ExpertLayout(a Ranked, m *costmodel.Model, perNode int) string {
	p, x := a.Plan, m.MoE
	where := fmt.Sprintf("ep %d keeps the all-to-all inside the %d-GPU NVLink domain", p.EP, perNode)
	switch nodes := epNodes(p.EP, p.ETP, perNode); {
	case p.EP == 1:
		where = "ep 1 replicates every expert on each expert-data-parallel rank: no all-to-all"
	case nodes > 1:
		where = fmt.Sprintf("ep %d spans %d nodes: the all-to-all crosses the network", p.EP, nodes)
	}
	b := a.Performance.Breakdown
	return fmt.Sprintf("%s: %d of %d experts per GPU (etp %d), expert states sharded over expert dp %d; exposed all-to-all %v (%s of the step)",
		where, x.Experts/p.EP, x.Experts, p.ETP, p.ExpertDP(), b.ExposedEP, percent(share(b.ExposedEP, b.Total)))
}

// epNodes is the nodes one ep group spans when its ranks are etp apart.
func epNodes(ep, etp, perNode int) int {
	if etp >= perNode {
		return ep
	}
	per := max(perNode/etp, 1)
	return max((ep+per-1)/per, 1)
}
