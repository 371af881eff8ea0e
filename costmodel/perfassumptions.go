package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Fitted step-time parameters. GEMMEfficiency and AttentionEfficiency
// are the result of calibration.Fit: Nelder-Mead on the
// squared log error of every compared calibration row (both files,
// Ampere to Blackwell, bf16 to nvfp4) except the sources
// calibration.OutOfScope names; a test refits them and fails if these
// drift from the fit. HBMEfficiency is the fit of the per-layer times of
// Korthikanti et al. 2022, Table 4 (GPT 22B, tp 8, A100: five recompute
// and sequence-parallel settings), where memory-bound kernels are
// isolated, made with the single-efficiency model and kept: refitted
// after the others it runs to its bound of 1. The NVLink share of
// collectives is not fitted on these rows: it is measured (scaleUpFits).
const (
	fittedGEMMEfficiency      = 0.831
	fittedAttentionEfficiency = 0.540
	fittedHBMEfficiency       = 0.873
)

// DefaultAsyncTPContention is the GEMM time each second of transfer that
// AsyncTP hides costs (asyncTPExposed), fitted on the async over
// vanilla TP speed-ups of torchtitan's three AsyncTP pairs
// (calibration.TestAsyncTPContentionFit).
const DefaultAsyncTPContention = 0.66

// setPerformanceDefaults fills the step-time assumptions:
//
//   - GEMMEfficiency 0.831, AttentionEfficiency 0.540 (shares of the
//     efficiency package's measured kernel speeds): fitted (above);
//     HBMEfficiency 0.873 fitted on Korthikanti Table 4 and kept.
//   - ScaleUpEfficiency 0: the NVLink bus bandwidth and latency of each
//     collective are measured by GPU generation and operation, with
//     their message-size and group-size dependence (scaleUpFits, fitted
//     on nccl-tests inside one node by TestScaleUpFit: large messages
//     reach 0.66-0.70 of NVLink on A100 and Blackwell, 0.75 for Hopper's
//     all-gather and reduce-scatter, 0.89 for its NVLS all-reduce). A
//     value in (0, 1] overrides them: one share for every operation and
//     size, with NCCL's latency model below; GPUs without a measurement
//     use 0.613, the value the calibration rows were fitted at before.
//   - AttentionKernel best: FlashAttention-2 on Ampere, FlashAttention-3
//     class (cuDNN) on Hopper, the fitted curve on Blackwell; framework
//     presets name theirs.
//   - TPOverlapShare 1: Transformer Engine's TP overlap hides
//     min(communication, GEMMs); a fit over the calibration rows
//     (Megatron-Core and NeMo) runs to this bound.
//   - AsyncTPContention 0.66 (DefaultAsyncTPContention): fitted on
//     torchtitan's async over vanilla TP speed-ups.
//   - CPAllGather off: Megatron-Core's ring.
//   - ScaleOutEfficiency 0.8: rail-optimized InfiniBand reaches about
//     80% of the line rate in NCCL all-reduce bus bandwidth at scale
//     (ND A100 v4: 186 GB/s of 8 x 25 GB/s per node would be 0.93 on two
//     nodes; large rings lose more to congestion and the tree plateau).
//   - CollectiveLatency 8.4 µs, ScaleUpHopLatency 3.4 µs,
//     ScaleOutHopLatency 9.6 µs: NCCL's ring/Simple base latency and per
//     step latencies over NVLink and the network (src/graph/tuning.cc,
//     baseLat and hwLat).
//   - OverlapGradReduce, OverlapParamGather on: the default of PyTorch
//     DDP and FSDP, and the recommended Megatron-Core setting.
//   - TPCommOverlap, OverlapP2P off: Megatron-LM's defaults (both need
//     flags and, for TP, Transformer Engine userbuffers).
//   - RankOrder tp-cp-dp-pp: Megatron-LM's default.
//   - KernelOverhead 0: kernels cost their roofline time only; set it
//     to model launch-bound small layers.
//   - UnfusedElementwise off: fused norms and activations (Megatron-LM,
//     Transformer Engine, torch.compile).
//   - SustainedClock 0: each GPU's default (SustainedClockOf).
func (a *Assumptions) setPerformanceDefaults() {
	a.GEMMEfficiency = fittedGEMMEfficiency
	a.AttentionEfficiency = fittedAttentionEfficiency
	a.HBMEfficiency = fittedHBMEfficiency
	a.ScaleOutEfficiency = 0.8
	a.CollectiveLatency = 8.4e-6
	a.ScaleUpHopLatency = 3.4e-6
	a.ScaleOutHopLatency = 9.6e-6
	a.OverlapGradReduce = true
	a.OverlapParamGather = true
	a.TPOverlapShare = 1
	a.AsyncTPContention = DefaultAsyncTPContention
	a.RankOrder = DefaultRankOrder
	a.setMoEDefaults()
}

// validatePerformance checks the step-time assumptions.
func (a Assumptions) validatePerformance() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"GEMM efficiency", a.GEMMEfficiency}, {"attention efficiency", a.AttentionEfficiency},
		{"HBM efficiency", a.HBMEfficiency}, {"scale-out efficiency", a.ScaleOutEfficiency}} {
		if !(f.v > 0 && f.v <= 1) {
			return fmt.Errorf("costmodel: %s %g is not in (0, 1]", f.name, f.v)
		}
	}
	for _, l := range []struct {
		name string
		v    hardware.Seconds
	}{{"collective latency", a.CollectiveLatency}, {"scale-up hop latency", a.ScaleUpHopLatency},
		{"scale-out hop latency", a.ScaleOutHopLatency}, {"kernel overhead", a.KernelOverhead}} {
		if !(l.v >= 0 && l.v < 1) {
			return fmt.Errorf("costmodel: %s %v is not in [0, 1 s)", l.name, l.v)
		}
	}
	if !(a.AsyncTPContention >= 0 && a.AsyncTPContention <= 1) {
		return fmt.Errorf("costmodel: async tp contention %g is not in [0, 1]", a.AsyncTPContention)
	}
	if !(a.ScaleUpEfficiency >= 0 && a.ScaleUpEfficiency <= 1) {
		return fmt.Errorf("costmodel: scale-up efficiency %g is not in [0, 1] (0: measured by generation and operation)", a.ScaleUpEfficiency)
	}
	if !(a.TPOverlapShare >= 0 && a.TPOverlapShare <= 1) {
		return fmt.Errorf("costmodel: tp overlap share %g is not in [0, 1]", a.TPOverlapShare)
	}
	if !(a.SustainedClock >= 0 && a.SustainedClock <= 1) {
		return fmt.Errorf("costmodel: sustained clock %g is not in [0, 1] (0: the GPU's default)", a.SustainedClock)
	}
	if err := a.validateMoE(); err != nil {
		return err
	}
	return a.RankOrder.Validate()
}

// SustainedClockOf is the share of its datasheet tensor-core peak GPU g
// sustains: a.SustainedClock when set, else the GPU's own figure
// (hardware.GPU.Sustained: 0.82 for Hopper SXM at 700 W, 1 where none is
// measured).
func (a Assumptions) SustainedClockOf(g hardware.GPU) float64 {
	if a.SustainedClock > 0 {
		return a.SustainedClock
	}
	return g.Sustained()
}
