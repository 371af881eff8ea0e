package costmodel

import (
	"github.com/gpu-planner/planner/costmodel/efficiency"
	"github.com/gpu-planner/planner/hardware"
)

// GEMMLaunch is the fixed GPU time of one weight GEMM call in a serving
// step: the Launch of g's fitted BF16 GEMM curve (efficiency.GEMMFor;
// about 2.7 µs on Hopper, 2.5 on B200, 2.3 on B300), fitted on
// TensorRT-LLM Linear layers timed in CUDA-graph replay, so it is the
// cost a kernel pays on the GPU (its grid's launch, prologue and tail)
// even when graphs remove the host's launch. A decode step reads each
// weight matrix in one call of a few microseconds' streaming, so at a
// small batch or a wide tensor-parallel split this fixed part is a
// large share of the step: the kernel timings' decode-sized BF16 GEMMs
// (m <= 16, weights of 4 MB and more) are priced within a median 5-12%
// by this launch plus the weight's read at the curve's 0.70-0.83 of HBM
// bandwidth, against 23-32% for the read alone
// (TestGEMMLaunchPricesDecodeGEMMs). Every format takes the BF16
// launch: the quantized curves' Launch also holds the dynamic
// activation-quantization kernels the collector's Linear layers run,
// which serving engines fuse into the norm or activation before the
// GEMM (static per-tensor scales of the FP8 checkpoints; vLLM's fusion
// passes, TensorRT-LLM's fused norm-quantize kernels); priced with each
// format's own Launch (beside the measured custom all-reduce) the
// serving refit's objective was 0.2398, against 0.2328 with the BF16
// one. A GPU file without an architecture or SM count takes the Hopper
// curve with 132 SMs, as the training curves do (curveGPU).
func GEMMLaunch(g hardware.GPU) hardware.Seconds {
	g, _ = curveGPU(g)
	c, _, err := efficiency.GEMMFor(g, efficiency.BF16)
	if err != nil {
		return 0
	}
	return hardware.Seconds(c.Launch)
}

// gemmCalls is the weight GEMM calls one GPU of stage g makes in a
// step, as the engines' model code issues them:
//
//   - attention: the fused query-key-value projection and the output
//     projection (2); multi-head latent attention instead the fused
//     query and latent down-projection (or the separate query and
//     latent projections without a query LoRA), the query
//     up-projection, the two batched matmuls of the absorbed key and
//     value up-projections and the output projection (5; SGLang's
//     DeepseekV2AttentionMLA.forward_absorb);
//   - a dense MLP: the fused gate-up and the down projection (2);
//   - an MoE layer: the router, the fused MoE's two grouped GEMMs
//     (gate-up and down over the active experts), and the shared
//     experts' gate-up and down where the model has them (3 or 5);
//   - the output layer on the last stage (1).
func (m *Model) gemmCalls(g servingStage) int {
	attention := 2
	if m.MLA != nil {
		attention = 5
	}
	moe := 3
	if m.MoE != nil && m.MoE.Shared > 0 {
		moe += 2
	}
	n := attention*g.layers + 2*(g.layers-g.moe) + moe*g.moe
	if g.last {
		n++
	}
	return n
}
