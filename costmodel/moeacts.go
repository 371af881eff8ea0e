package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// srcMoEActs cites the MoE MLP's saved tensors.
const srcMoEActs = "Megatron-Core MoELayer (router, MoEAlltoAllTokenDispatcher permute/unpermute, GroupedMLP); " +
	"Fedus et al. 2021, Switch Transformer (arXiv:2101.03961), sec. 2.2: tokens x k / experts per expert"

// moeActivationLine itemizes what the stage's MoE MLPs save: each of the
// MoE MLP's tensors for one layer and micro-batch, times the MoE layers
// and micro-batches in flight (empty when there is none, as under full
// recompute, where only each layer's input stays).
func (e *Evaluator) moeActivationLine(p Plan, s StageMemory) Line {
	l := Line{Name: fmt.Sprintf("activations: MoE MLPs of %d layers (expert tokens)", s.MoELayers),
		Group: GroupActivations, Bytes: s.MoEActivations, Source: srcMoEActs}
	if s.MoEActivations == 0 {
		return l
	}
	sh := e.newActShape(p)
	sh.setExperts(p, e.a.expertRowFactor())
	parts := make([]string, 0, len(e.moe))
	var per float64
	for _, t := range e.moe {
		if sh.dropped(t, p.Recompute) {
			continue
		}
		b := sh.bytes(t)
		per += b
		parts = append(parts, fmt.Sprintf("%s %s = %v", t.name, sh.formula(t), hardware.Bytes(b)))
	}
	layers := float64(s.MoEActivations) / per
	l.Formula = fmt.Sprintf("%.3g MoE layer-micro-batches in flight x %v per layer: %s (k = top-%d, fe = %d, rows x %g for the busiest expert)",
		layers, hardware.Bytes(per), strings.Join(parts, ", "), e.m.MoE.TopK, e.m.MoE.ExpertFFN, e.a.expertRowFactor())
	if p.modules()&(ModMoE|ModMoEAct|ModSharedExperts) != 0 {
		l.Formula += "; recomputed, not saved: " + e.modulesDropped(p, true, true)
	}
	return l
}
