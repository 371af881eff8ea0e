package costmodel

import (
	"fmt"
	"strconv"

	"github.com/gpu-planner/planner/hardware"
)

// actShape is what a plan fixes for the size of saved tensors.
type actShape struct {
	tokens   float64 // local tokens per micro-batch: seq/cp x mbs
	keyLen   float64 // keys each query attends to (eager scores)
	tp       float64
	kvDiv    float64 // min(tp, kv heads)
	sp       bool
	actBytes float64 // 2 (bf16, fp16, fp8 runs) or 4 (fp32)
	lowIn    float64 // a low-format linear's saved input per element (Recipe.SavedInputBytes; 0: actBytes)
	hidden   float64
	// frozen: under LoRA, the base is frozen and only the inputs of the
	// adapted matrices (targets) are saved for weight gradients.
	frozen  bool
	targets LoRATargets
	// expRows and expCols divide the expert tensors (setExperts).
	expRows, expCols float64
	// mods: the modules selective recompute drops (Plan.modules).
	mods RecomputeModules
}

// setExperts sets the divisors of the expert tensors for plan p with the
// busiest expert at f times the balanced load: the etp x ep x edp
// regrouping of the tp x cp x dp GPUs (Megatron-Core's MoE parallel
// folding) leaves each GPU tokens x top-k x etp/tp x f rows of width
// fe/etp, so the rows divide by tp/(etp f) and the intermediates by
// tp/f.
func (s *actShape) setExperts(p Plan, f float64) {
	etp := float64(max(p.ETP, 1))
	s.expRows, s.expCols = s.tp/(etp*f), s.tp/f
}

func newActShape(m *Model, p Plan) actShape {
	s := actShape{
		tokens: float64(p.Seq/p.CP) * float64(p.MicroBatch), keyLen: float64(p.Seq),
		tp: float64(p.TP), kvDiv: float64(min(p.TP, m.KVHeads)), sp: p.SP, actBytes: 2,
		hidden: float64(m.Hidden),
	}
	if m.MLA != nil {
		s.kvDiv = s.tp
	}
	if p.Precision == FP32 {
		s.actBytes = 4
	}
	s.lowIn = p.Precision.Recipe().SavedInputBytes
	s.frozen, s.targets = p.Task.Adapted(), p.LoRATargets
	s.mods = p.modules()
	s.setExperts(p, 1)
	return s
}

// newActShape is newActShape under the evaluator's assumptions: with
// HighPrecisionSavedInputs the low-precision linears keep 16-bit inputs.
func (e *Evaluator) newActShape(p Plan) actShape {
	s := newActShape(e.m, p)
	if e.a.HighPrecisionSavedInputs {
		s.lowIn = 0
	}
	return s
}

// kept reports whether a tensor is saved: under LoRA, a tensor saved only
// for the weight gradient of matrices none of which is adapted is not.
func (s actShape) kept(t tensorSpec) bool {
	return !s.frozen || t.feeds == 0 || t.feeds&s.targets != 0
}

func (s actShape) elemBytes(k elemKind) float64 {
	switch k {
	case elemMask:
		return 1
	case elemFP32:
		return 4
	case elemLowIn:
		if s.lowIn > 0 {
			return s.lowIn
		}
	case elemActLowIn:
		return s.actBytes + s.lowIn
	}
	return s.actBytes
}

func (s actShape) divisor(k splitKind) float64 {
	switch k {
	case tpSplit:
		return s.tp
	case kvSplit:
		return s.kvDiv
	case seqSplit:
		if s.sp {
			return s.tp
		}
	case expertRows:
		return s.expRows
	case expertCols:
		return s.expCols
	case rsSplit:
		return s.tp
	}
	return 1
}

// bytes is one tensor's size on one TP rank for one micro-batch.
func (s actShape) bytes(t tensorSpec) float64 {
	if t.split == rsSplit && (!s.sp || s.tp == 1) {
		return 0
	}
	b := s.tokens * t.width * s.elemBytes(t.elem) / s.divisor(t.split)
	if t.quadratic {
		b *= s.keyLen
	}
	return b
}

// saved sums what one layer keeps under recompute policy r: everything,
// everything but what the plan's recompute modules drop (selective; by
// default the attention core), or only the layer's
// input (full: 2sbh, split over TP under sequence parallelism). Under
// OpSAC, ts is the policy's own list (opSACTensors), kept whole.
func (s actShape) saved(ts []tensorSpec, r Recompute) float64 {
	if r == Full {
		return s.layerInput()
	}
	var sum float64
	for _, t := range ts {
		if s.dropped(t, r) || !s.kept(t) {
			continue
		}
		sum += s.bytes(t)
	}
	return sum
}

// dropped reports whether recompute policy r drops tensor t: under
// selective recompute, when one of the plan's modules recomputes it.
func (s actShape) dropped(t tensorSpec, r Recompute) bool {
	return r == Selective && t.mods&s.mods != 0
}

// layerInput is the one tensor full recompute keeps per layer: the
// layer's input, 2sbh (Korthikanti et al. 2022, Table 2), split over TP
// under sequence parallelism.
func (s actShape) layerInput() float64 {
	return s.tokens * s.hidden * s.actBytes / s.divisor(seqSplit)
}

// ActivationTensor is one tensor a layer saves for the backward pass.
type ActivationTensor struct {
	Name  string `json:"name"`
	Block string `json:"block"`
	// Bytes on one GPU for one micro-batch.
	Bytes hardware.Bytes `json:"bytes"`
	// Formula in Korthikanti et al.'s symbols: s sequence, b micro-batch,
	// h hidden, a heads, d head dim, kv KV heads, f FFN width, t TP.
	Formula string `json:"formula"`
	// Quadratic marks the s x s attention tensors.
	Quadratic bool `json:"quadratic"`
	// Recomputed: dropped by the plan's recompute policy.
	Recomputed bool `json:"recomputed"`
}

// LayerActivations lists the tensors one dense transformer layer of m
// saves for one micro-batch under plan p, on one GPU. Tensors that the
// plan's recompute policy drops are listed with Recomputed set; under
// OpSAC the list is what the policy saves (opSACTensors).
func LayerActivations(m *Model, p Plan) []ActivationTensor {
	if p.VPP == 0 {
		p.VPP = 1
	}
	s := newActShape(m, p)
	specs := layerTensors(m, p.Attention, false, false)
	if p.Recompute == OpSAC {
		specs = opSACTensors(m, p.Attention, false)
	}
	out := make([]ActivationTensor, 0, len(specs))
	for _, t := range specs {
		if !s.kept(t) || t.split == rsSplit && s.bytes(t) == 0 {
			continue
		}
		out = append(out, ActivationTensor{
			Name: t.name, Block: t.block, Bytes: hardware.Bytes(s.bytes(t)),
			Formula: s.formula(t), Quadratic: t.quadratic,
			Recomputed: p.Recompute == Full || s.dropped(t, p.Recompute),
		})
	}
	return out
}

// formula renders a tensor's size, e.g. "2·s·b·h/t" or "1·a·s²·b/t".
func (s actShape) formula(t tensorSpec) string {
	n := strconv.FormatFloat(s.elemBytes(t.elem), 'g', -1, 64)
	f := n + "·s·b·" + t.widthSym
	if t.quadratic {
		f = n + "·" + t.widthSym + "·s²·b"
	}
	switch d := s.divisor(t.split); {
	case d == 1:
	case t.split == kvSplit && s.kvDiv < s.tp, t.split == expertRows, t.split == expertCols:
		f += fmt.Sprintf("/%g", d)
	default:
		f += "/t"
	}
	return f
}
