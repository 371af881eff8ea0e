package costmodel

import "fmt"

// KernelShares are the achieved shares of the dense tensor-core peak
// (at the clock the GPU sustains, hardware.GPU.Sustained) that measured
// prefill-sized kernels reach on one GPU generation: the weight GEMMs by
// the format they run in, and the prefill (context) attention in bf16.
type KernelShares struct {
	BF16      float64 `json:"gemm_bf16"`
	FP8       float64 `json:"gemm_fp8"`
	FP4       float64 `json:"gemm_fp4,omitempty"`
	Attention float64 `json:"attention"`
	// MoE are the routed experts' grouped GEMMs at a prefill step of
	// 8,192 tokens, by format (bf16, fp8, fp4): well below the dense
	// GEMMs', since each expert sees top_k/experts of the tokens.
	MoE [3]float64 `json:"moe_gemm"`
	// FP8Block and MoEFP8Block are fp8-block's dense and expert GEMMs
	// (0: priced at FP8's).
	FP8Block    float64 `json:"gemm_fp8_block,omitempty"`
	MoEFP8Block float64 `json:"moe_gemm_fp8_block,omitempty"`
}

// SrcKernelShares cites MeasuredKernelShares.
const SrcKernelShares = "NVIDIA AIConfigurator's collected kernel timings (TensorRT-LLM 1.3.0rc20): " +
	"mean TFLOP/s of the GEMMs with m >= 2048 and n, k >= 4096 (477 shapes per format and GPU), of the bf16 " +
	"context attention with isl >= 4096, head_dim 128 (193 shapes) and of the MoE layers at 8192 tokens " +
	"(CUTLASS; fp8-block: CUTLASS on Hopper, DeepGEMM on Blackwell; power-law routing, no expert or tensor " +
	"split; 13-17 shapes), over the peak at the sustained clock, " +
	"averaged over H100 and H200, and over B200, B300 and GB200"

// MeasuredKernelShares are the kernel shares of the generations with
// collected kernel timings (SrcKernelShares). Hopper: bf16 GEMMs 0.940
// (H100) and 0.934 (H200) of the 811 TFLOP/s a 1500 MHz clock gives,
// fp8 0.744 and 0.761, attention 0.538 and 0.546, MoE bf16 0.481 and
// 0.561, fp8 0.417 and 0.509. Blackwell: bf16 0.661 (B200), 0.688
// (B300), 0.637 (GB200); fp8 0.535, 0.565, 0.507; nvfp4 0.387, 0.311,
// 0.381; attention 0.376, 0.441, 0.368; MoE bf16 0.407, 0.436, 0.407,
// fp8 0.304, 0.343, 0.294, nvfp4 0.166, 0.137, 0.183. fp8-block (464
// dense shapes, 17 expert ones): Hopper 0.672 and 0.676, experts 0.243
// and 0.291 (its CUTLASS grouped GEMM well below per-tensor fp8's);
// Blackwell (DeepGEMM) 0.572, 0.636, 0.562, experts 0.300, 0.302, 0.288.
// Ampere has none and keeps the fitted GenerationShares.
var MeasuredKernelShares = map[Generation]KernelShares{
	Hopper: {BF16: 0.937, FP8: 0.753, Attention: 0.542, MoE: [3]float64{0.521, 0.463, 0},
		FP8Block: 0.674, MoEFP8Block: 0.267},
	Blackwell: {BF16: 0.662, FP8: 0.536, FP4: 0.359, Attention: 0.395, MoE: [3]float64{0.417, 0.314, 0.162},
		FP8Block: 0.590, MoEFP8Block: 0.297},
}

// format is the index of weights in format w into the shares: 2 for fp4
// on fp4 tensor cores (when there is a share), 1 for fp8, else 0.
func format(w DType, fp4 float64) int {
	switch {
	case w.IsFP4() && fp4 > 0:
		return 2
	case w.IsFP8():
		return 1
	}
	return 0
}

// GEMM is the share of the GEMMs of weights in format w, which run at
// weightPeak's peak: fp4 on fp4 tensor cores where there are some, fp8
// on fp8 ones, everything else (bf16, int4 and fp4 dequantized to 16
// bits, fp32 as TF32) at the bf16 share.
func (k KernelShares) GEMM(w DType) float64 {
	if w == DTypeFP8Block && k.FP8Block > 0 {
		return k.FP8Block
	}
	return [3]float64{k.BF16, k.FP8, k.FP4}[format(w, k.FP4)]
}

// MoEGEMM is the share of the routed experts' GEMMs in format w (GEMM's
// formats).
func (k KernelShares) MoEGEMM(w DType) float64 {
	if w == DTypeFP8Block && k.MoEFP8Block > 0 {
		return k.MoEFP8Block
	}
	return k.MoE[format(w, k.FP4)]
}

// set says the shares are given (the zero value is not).
func (k KernelShares) set() bool { return k != KernelShares{} }

// validate checks that a given set of shares is in (0, 1], the fp4 one
// in [0, 1] (0: no fp4 tensor cores).
func (k KernelShares) validate() error {
	if !k.set() {
		return nil
	}
	ok := k.BF16 > 0 && k.BF16 <= 1 && k.FP8 > 0 && k.FP8 <= 1 && k.FP4 >= 0 && k.FP4 <= 1 && k.Attention > 0 && k.Attention <= 1 &&
		k.FP8Block >= 0 && k.FP8Block <= 1 && k.MoEFP8Block >= 0 && k.MoEFP8Block <= 1
	for i, v := range k.MoE {
		ok = ok && v >= 0 && v <= 1 && (v > 0 || i == 2)
	}
	if !ok {
		return fmt.Errorf("costmodel: serving kernel shares %+v are not in (0, 1] (fp4 in [0, 1])", k)
	}
	return nil
}

// computeShares are the shares of the peak a serving step's weight
// GEMMs (in format w), its routed experts' GEMMs and its prefill
// attention reach: the measured kernel shares when the assumptions
// carry them, else ServeFLOPEfficiency for all three.
func (a Assumptions) computeShares(w DType) (gemm, moe, attention float64) {
	if k := a.ServeKernels; k.set() {
		return k.GEMM(w), k.MoEGEMM(w), k.Attention
	}
	return a.ServeFLOPEfficiency, a.ServeFLOPEfficiency, a.ServeFLOPEfficiency
}

// routedFLOPsPerToken is the routed experts' FLOPs of one token in one
// MoE layer: top_k experts of three h x f matrices each (gate, up, down;
// two for a GeLU MLP), 2 FLOPs per weight.
func (m *Model) routedFLOPsPerToken() float64 {
	if m.MoE == nil {
		return 0
	}
	mats := 2.0
	if m.MLP == SwiGLU {
		mats = 3
	}
	return 2 * float64(m.MoE.TopK) * mats * float64(m.Hidden) * float64(m.MoE.ExpertFFN)
}
