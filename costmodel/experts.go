package costmodel

import (
	"fmt"
	"strconv"
	"strings"
)

// Expert parallelism follows Megatron-Core's "MoE parallel folding"
// (megatron/core/parallel_state.py, initialize_model_parallel with
// expert_model_parallel_size and expert_tensor_parallel_size; Liu et al.
// 2025, arXiv:2504.14960): the attention part of a layer runs on
// tp x cp x dp GPUs per pipeline stage, and the expert part regroups the
// same GPUs as etp x ep x edp, in the rank order etp-ep-edp-pp.

// checkExperts enforces the expert layout: ep and etp are 1 for a dense
// model; otherwise ep divides the routed experts, ep x etp divides
// tp x cp x dp, and ep > 1 with tp > 1 needs sequence parallelism, as
// Megatron-LM asserts (megatron/training/arguments.py: "When using
// expert parallelism and tensor parallelism, sequence parallelism must
// be used").
func (p Plan) checkExperts(m *Model) error {
	if m.MoE == nil {
		if p.EP != 1 || p.ETP != 1 {
			return fmt.Errorf("costmodel: ep=%d, etp=%d: model %s has no experts (valid: ep=1, etp=1)", p.EP, p.ETP, m.Name)
		}
		return nil
	}
	e := m.MoE.Experts
	if e%p.EP != 0 {
		return fmt.Errorf("costmodel: ep=%d does not divide the %d routed experts of %s (valid ep: %s)", p.EP, e, m.Name, validEP(p, m))
	}
	if ranks := p.TP * p.CP * p.DP; ranks%(p.EP*p.ETP) != 0 {
		return fmt.Errorf("costmodel: ep*etp = %d*%d = %d does not divide tp*cp*dp = %d (valid ep at etp=%d: %s)",
			p.EP, p.ETP, p.EP*p.ETP, ranks, p.ETP, validEP(p, m))
	}
	if p.EP > 1 && p.TP > 1 && !p.SP {
		return fmt.Errorf("costmodel: ep=%d with tp=%d needs sequence parallelism (--sp), as in Megatron-LM", p.EP, p.TP)
	}
	return nil
}

// validEP lists the expert-parallel degrees valid for p's other degrees.
func validEP(p Plan, m *Model) string {
	var ds []string
	ranks := p.TP * p.CP * p.DP
	for d := 1; d <= m.MoE.Experts && len(ds) < 16; d++ {
		if m.MoE.Experts%d == 0 && ranks%(d*p.ETP) == 0 {
			ds = append(ds, strconv.Itoa(d))
		}
	}
	if len(ds) == 0 {
		return "none"
	}
	return strings.Join(ds, ", ")
}

// localExperts is the routed experts one GPU holds: experts / ep.
func (p Plan) localExperts(m *Model) float64 {
	return float64(m.MoE.Experts) / float64(max(p.EP, 1))
}

// expertStageParams is the routed-expert parameters one GPU of a stage
// with moe MoE layers holds: moe x (experts/ep) x one expert split etp
// ways (Megatron-Core: the expert MLP's column- and row-parallel
// linears are split over the expert tensor parallel group).
func (e *Evaluator) expertStageParams(p Plan, moe int) float64 {
	if moe == 0 || e.m.MoE == nil {
		return 0
	}
	return float64(moe) * p.localExperts(e.m) * e.m.expertParams(max(p.ETP, 1))
}

// srcExpertStates cites the expert-state sharding.
const srcExpertStates = "Megatron-Core MoE (docs: MoE parallel folding; distributed optimizer over the expert data parallel group); " + srcZeRO

// expertStateLines itemizes the routed experts' states of stage s.
func (e *Evaluator) expertStateLines(p Plan, s StageMemory, sb StateBytes) []Line {
	if s.ExpertParams == 0 {
		return nil
	}
	n := p.ExpertDP()
	where := fmt.Sprintf("%s expert params/GPU (%d MoE layers x %d/ep=%d experts, etp=%d)",
		FormatCount(s.ExpertParams), s.MoELayers, e.m.MoE.Experts, p.EP, p.ETP)
	f := func(b float64, what string, stage int) string {
		f := perParam(b) + " x " + what
		if p.ZeRO >= stage && n > 1 {
			f += fmt.Sprintf(" / %d (ZeRO-%d over expert dp = tp*cp*dp/(ep*etp))", n, p.ZeRO)
		}
		return f
	}
	return []Line{
		{Name: "expert weights (" + weightDType(p) + ")", Group: GroupStates, Bytes: s.ExpertWeights,
			Formula: f(sb.Weight, where, 3), Source: srcExpertStates},
		{Name: "expert gradients", Group: GroupStates, Bytes: s.ExpertGradients, Formula: f(sb.Grad, "P_expert", 2), Source: srcExpertStates},
		{Name: "expert optimizer: " + masterName(e.a), Group: GroupStates, Bytes: s.ExpertMaster,
			Formula: f(sb.Master, "P_expert", 1), Source: srcExpertStates},
		{Name: "expert optimizer: " + momentName(p.Optimizer, e.a.BF16OptimizerStates), Group: GroupStates, Bytes: s.ExpertMoments,
			Formula: f(sb.Moments, "P_expert", 1), Source: srcExpertStates},
	}
}

// moeNote says how the plan lays out the experts and what it assumes.
func (e *Evaluator) moeNote(p Plan) string {
	x, pr := e.m.MoE, e.m.Params()
	dedup := ""
	if e.a.EPNodeDedup {
		dedup = "; dispatch sends a token once per node (DeepEP, HybridEP)"
	}
	return fmt.Sprintf("%d routed experts per MoE layer (top-%d) over ep=%d: %g per GPU, each split etp=%d, expert dp %d; "+
		"%s params in all, %s active per token; routing load imbalance %g, %s; all-to-all overlap %s%s",
		x.Experts, x.TopK, p.EP, p.localExperts(e.m), p.ETP, p.ExpertDP(), FormatCount(pr.Total), FormatCount(pr.Active),
		e.a.MoELoadImbalance, capacityWords(e.a.MoECapacityFactor), onOff(e.a.EPCommOverlap), dedup)
}

func capacityWords(cf float64) string {
	if cf == 0 {
		return "dropless"
	}
	return fmt.Sprintf("capacity factor %g", cf)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// expertCommunicators is the communicators the expert layers add: one
// each for ep, etp and the expert data parallel group when larger than
// one (Megatron-Core builds them beside the dense groups).
func expertCommunicators(p Plan) int {
	n := 0
	for _, d := range []int{p.EP, p.ETP, p.ExpertDP()} {
		if d > 1 {
			n++
		}
	}
	return n
}
