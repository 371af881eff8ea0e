package search

import "github.com/gpu-planner/planner/costmodel"

// The pruning helpers: each is one structural rule of a valid plan, the
// same rule Plan.Normalize enforces, checked with integer arithmetic
// before any memory is computed.

// divides reports whether tp*pp*cp divides the GPU count, which leaves a
// whole data-parallel degree (Megatron-LM: GPUs = TP x CP x DP x PP).
func divides(gpus, tp, cp, pp int) bool {
	mp := tp * cp * pp
	return mp <= gpus && gpus%mp == 0
}

// noReason marks a check that passed.
const noReason Reason = -1

// layerSplit returns the first and last stages' layers for pp stages of
// vpp chunks whose middle chunks hold extra layers beyond the balanced
// share and whose first end chunk then hands shift layers to the last (a
// negative shift hands them the other way), in the form Plan.Normalize
// keeps (0, 0 for an even split), or the reason there is no such split.
//
// Every chunk but the two end ones (model chunks 0 and pp*vpp-1) holds
// c = ceil(layers/(pp*vpp)) + extra layers; the end chunks share the
// rest, the first taking the smaller half since it carries the embedding
// and, under 1F1B, the most micro-batches in flight. The first and last
// stages hold their end chunk and vpp-1 middle chunks (costmodel's
// split.go). extra 0 and shift 0 is the split Normalize makes by itself;
// Llama 3 405B's 126 layers on 16 stages give 7 to each end stage and 8 to
// the others at every vpp (Dubey et al. 2024, sec. 3.3.2): end chunks of
// 7 (vpp 1), 3 (vpp 2), 1 (vpp 4) or none (vpp 8, the embedding and the
// output alone). The shift lightens the first stage further at the
// last's expense (with pp 2 it is the only way to split unevenly). End
// chunks may be empty only when interleaved: a stage keeps a layer.
func layerSplit(layers, pp, vpp, extra, shift int) (first, last int, r Reason) {
	switch {
	case pp > layers, vpp > 1 && pp == 1:
		return 0, 0, RejectSplit
	case pp == 1 && shift != 0, extra > 0 && pp <= 2:
		// One stage has no split; two have no middle chunk to grow
		// (costmodel takes the balanced chunk there).
		return 0, 0, RejectDuplicate
	case pp == 1, extra == 0 && shift == 0 && layers%(pp*vpp) == 0:
		return 0, 0, noReason
	}
	c := (layers+pp*vpp-1)/(pp*vpp) + extra
	rest := layers - c*(pp*vpp-2)
	head, tail := rest/2-shift, rest-rest/2+shift
	least := 0
	if vpp == 1 {
		least = 1
	}
	if rest < 0 || head < least || tail < least {
		return 0, 0, RejectSplit
	}
	return head + (vpp-1)*c, tail + (vpp-1)*c, noReason
}

// seqParallel returns the sequence parallelism of SP-axis value i (on)
// for plan p, or the reason to skip it. At tp 1 sequence parallelism
// changes nothing (Normalize turns it off): "on" is a duplicate of "off"
// unless "off" is not on the axis, the case i == 0.
func seqParallel(p costmodel.Plan, on bool, i int) (bool, Reason) {
	switch {
	case !on && p.EP > 1 && p.TP > 1:
		return false, RejectExperts
	case !on:
		return false, noReason
	case p.TP == 1 && i > 0:
		return false, RejectDuplicate
	case p.TP == 1:
		return false, noReason
	case (p.Seq/p.CP)%p.TP != 0:
		return false, RejectSequence
	}
	return true, noReason
}

// batchDivides reports whether dp data-parallel ranks of micro-batches
// of mbs sequences make up the global batch in whole steps of gradient
// accumulation.
func batchDivides(gbs, dp, mbs int) bool {
	return gbs%(dp*mbs) == 0
}

// expertsSplit reports whether ep and etp lay out m's experts over
// layout p (costmodel's checkExperts): a dense model takes 1 and 1; ep
// divides the routed experts and ep*etp divides tp*cp*dp.
func expertsSplit(m *costmodel.Model, p costmodel.Plan, ep, etp int) bool {
	if m.MoE == nil {
		return ep == 1 && etp == 1
	}
	return m.MoE.Experts%ep == 0 && (p.TP*p.CP*p.DP)%(ep*etp) == 0
}
