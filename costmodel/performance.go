package costmodel

import "github.com/gpu-planner/planner/hardware"

// Performance is the speed of one training plan: the step time and what
// it buys. It is a small value so the search can rank millions of plans
// without allocating.
type Performance struct {
	// StepTime is one optimizer step: all micro-batches of all pipeline
	// stages, the exposed communication and the optimizer update.
	StepTime hardware.Seconds `json:"step_time_s"`
	// TokensPerSecond over the whole job, and per GPU.
	TokensPerSecond       float64 `json:"tokens_per_s"`
	TokensPerSecondPerGPU float64 `json:"tokens_per_s_per_gpu"`
	// ModelFLOPsPerGPU is the model FLOP/s each GPU achieves (no
	// recompute counted); MFU and HFU divide the model and the hardware
	// FLOP/s (recompute counted) by the GPU's dense peak at the training
	// precision. The FLOP count is FLOPFormula.
	ModelFLOPsPerGPU hardware.FLOPRate `json:"model_flops_per_gpu"`
	MFU              float64           `json:"mfu"`
	HFU              float64           `json:"hfu"`
	// ExposedComm is the communication time not hidden behind compute.
	ExposedComm hardware.Seconds `json:"exposed_comm_s"`
	// ExposedNetworkBytes is the per-GPU bytes per step that cross the
	// scale-out network without overlap; ExposedTier is the slowest link
	// tier that carries exposed traffic.
	ExposedNetworkBytes hardware.Bytes `json:"exposed_network_bytes"`
	ExposedTier         hardware.Tier  `json:"exposed_tier"`
	// ModelFLOPsPerToken is 3x the forward FLOPs of one token;
	// HardwareFLOPsPerToken adds what recompute repeats.
	ModelFLOPsPerToken    hardware.FLOPs `json:"model_flops_per_token"`
	HardwareFLOPsPerToken hardware.FLOPs `json:"hardware_flops_per_token"`
	// Breakdown itemizes StepTime.
	Breakdown StepTime `json:"breakdown"`
}

// FLOPFormula states how Performance counts FLOPs.
const FLOPFormula = "model FLOPs/token = 3 x forward (forward 1x, backward 2x), forward = 2 x active non-embedding params " +
	"+ 2 x h x vocab (logits) + layers x 2 x heads x (d_qk + d_v) x (s+1)/2 (causal attention); " +
	"hardware FLOPs add the recomputed forward: the whole layer stack (full) or the recomputed modules (selective; by default the attention core)"

// Performance estimates the speed of plan p, which must be normalized
// (Plan.Normalize) for e's model and use a precision e's GPU supports
// (Estimate checks both; an unsupported precision gives infinite times).
// It does not allocate.
func (e *Evaluator) Performance(p Plan) Performance {
	return e.performance(p, e.stepTime(p, nil))
}

// performance derives the rates from a breakdown.
func (e *Evaluator) performance(p Plan, res stepResult) Performance {
	s := res.StepTime
	peak, _ := e.c.GPU.Peak(p.Precision.PeakFormat())
	gpus := float64(p.GPUs())
	tokens := float64(p.GlobalBatch) * float64(p.Seq)
	model, hw := e.flopsPerToken(p)
	step := float64(s.Total)
	net, tier := res.network, res.tier
	perGPU := model * tokens / gpus / step
	return Performance{
		StepTime:              s.Total,
		TokensPerSecond:       tokens / step,
		TokensPerSecondPerGPU: tokens / step / gpus,
		ModelFLOPsPerGPU:      hardware.FLOPRate(perGPU),
		MFU:                   perGPU / float64(peak),
		HFU:                   hw * tokens / gpus / step / float64(peak),
		ExposedComm:           s.exposed(),
		ExposedNetworkBytes:   hardware.Bytes(net),
		ExposedTier:           tier,
		ModelFLOPsPerToken:    hardware.FLOPs(model),
		HardwareFLOPsPerToken: hardware.FLOPs(hw),
		Breakdown:             s,
	}
}

// flopsPerToken is the model and hardware FLOPs of one token (FLOPFormula).
// Full recompute repeats the forward of the transformer layers (not the
// output layer, which Megatron-LM does not checkpoint), under the block
// method only of the first RecomputeLayers of each model chunk
// (recomputedFLOPsPerToken); selective
// recompute repeats its modules' forward (moduleFLOPsPerToken; by
// default the attention core: the causal score and value FLOPs,
// Korthikanti et al. 2022, sec. 5; Appendix A counts the same).
// OpSAC repeats the layers' forward but the matrix multiplies whose
// outputs it saves and, with a fused kernel, the attention core
// (opSACTensors).
func (e *Evaluator) flopsPerToken(p Plan) (model, hw float64) {
	fwd := float64(e.m.ForwardFLOPsPerToken(p.AttentionSpan()))
	model = 3 * fwd
	if p.Task.Adapted() {
		model = e.adaptedFLOPsPerToken(p, fwd)
	}
	switch p.Recompute {
	case Full:
		hw = model + fwd - 2*float64(e.m.Vocab)*float64(e.m.Hidden)
		if p.partialRecompute() {
			hw = model + e.recomputedFLOPsPerToken(p)
		}
	case Selective:
		hw = model + e.m.moduleFLOPsPerToken(p.modules(), p.AttentionSpan())
	case OpSAC:
		moe := float64(e.m.kinds().moe(0, e.m.Layers))
		saved := (float64(e.m.Layers)-moe)*e.sacFLOPs[0] + moe*e.sacFLOPs[1]
		if p.Attention == Flash {
			saved += float64(e.m.Layers) * e.m.attentionFLOPsPerKey() * (float64(p.AttentionSpan()) + 1) / 2
		}
		hw = model + fwd - 2*float64(e.m.Vocab)*float64(e.m.Hidden) - saved
	default:
		hw = model
	}
	return model, hw
}
