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
	// FLOP/s (recompute counted) by the GPU's dense peak.
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
}

// provisionalEfficiency is the share of the dense peak the GEMMs reach in
// this first step-time model, which counts compute and the pipeline
// bubble only. It is replaced by the calibrated model of the traffic and
// step-time work.
const provisionalEfficiency = 0.45

// Performance estimates the speed of plan p, which must be normalized
// (Plan.Normalize) for e's model. It does not allocate.
func (e *Evaluator) Performance(p Plan) Performance {
	peak, _ := e.c.GPU.Peak(p.Precision.String())
	gpus := float64(p.GPUs())
	tokens := float64(p.GlobalBatch) * float64(p.Seq)
	fwd := float64(e.m.ForwardFLOPsPerToken(p.Seq)) * tokens / gpus
	model := 3 * fwd
	hw := model
	if p.Recompute == Full {
		hw += fwd
	}
	compute := hw / (float64(peak) * provisionalEfficiency)
	bubble := float64(p.PP-1) / (float64(p.MicroBatches()) * float64(p.VPP))
	step := compute * (1 + bubble)
	return Performance{
		StepTime:              hardware.Seconds(step),
		TokensPerSecond:       tokens / step,
		TokensPerSecondPerGPU: tokens / step / gpus,
		ModelFLOPsPerGPU:      hardware.FLOPRate(model / step),
		MFU:                   model / step / float64(peak),
		HFU:                   hw / step / float64(peak),
	}
}
