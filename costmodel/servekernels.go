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
}

// SrcKernelShares cites MeasuredKernelShares.
const SrcKernelShares = "NVIDIA AIConfigurator's collected kernel timings (TensorRT-LLM 1.3.0rc20): " +
	"mean TFLOP/s of the GEMMs with m >= 2048 and n, k >= 4096 (477 shapes per format and GPU) and of the bf16 " +
	"context attention with isl >= 4096, head_dim 128 (193 shapes), over the peak at the sustained clock, " +
	"averaged over H100 and H200, and over B200, B300 and GB200"

// MeasuredKernelShares are the kernel shares of the generations with
// collected kernel timings (SrcKernelShares). Hopper: bf16 GEMMs 0.940
// (H100) and 0.934 (H200) of the 811 TFLOP/s a 1500 MHz clock gives,
// fp8 0.744 and 0.761, attention 0.538 and 0.546. Blackwell: bf16 0.661
// (B200), 0.688 (B300), 0.637 (GB200); fp8 0.535, 0.565, 0.507; nvfp4
// 0.387, 0.311, 0.381; attention 0.376, 0.441, 0.368. Ampere has none
// and keeps the fitted GenerationShares.
var MeasuredKernelShares = map[Generation]KernelShares{
	Hopper:    {BF16: 0.937, FP8: 0.753, Attention: 0.542},
	Blackwell: {BF16: 0.662, FP8: 0.536, FP4: 0.359, Attention: 0.395},
}

// GEMM is the share of the GEMMs of weights in format w, which run at
// weightPeak's peak: fp4 on fp4 tensor cores where there are some, fp8
// on fp8 ones, everything else (bf16, int4 and fp4 dequantized to 16
// bits, fp32 as TF32) at the bf16 share.
func (k KernelShares) GEMM(w DType) float64 {
	switch {
	case w.IsFP4() && k.FP4 > 0:
		return k.FP4
	case w == DTypeFP8 && k.FP8 > 0:
		return k.FP8
	}
	return k.BF16
}

// set says the shares are given (the zero value is not).
func (k KernelShares) set() bool { return k != KernelShares{} }

// validate checks that a given set of shares is in (0, 1], the fp4 one
// in [0, 1] (0: no fp4 tensor cores).
func (k KernelShares) validate() error {
	if !k.set() {
		return nil
	}
	if !(k.BF16 > 0 && k.BF16 <= 1 && k.FP8 > 0 && k.FP8 <= 1 && k.FP4 >= 0 && k.FP4 <= 1 && k.Attention > 0 && k.Attention <= 1) {
		return fmt.Errorf("costmodel: serving kernel shares %+v are not in (0, 1] (fp4 in [0, 1])", k)
	}
	return nil
}

// computeShares are the shares of the peak a serving step's weight
// GEMMs (in format w) and prefill attention reach: the measured kernel
// shares when the assumptions carry them, else ServeFLOPEfficiency for
// both.
func (a Assumptions) computeShares(w DType) (gemm, attention float64) {
	if a.ServeKernels.set() {
		return a.ServeKernels.GEMM(w), a.ServeKernels.Attention
	}
	return a.ServeFLOPEfficiency, a.ServeFLOPEfficiency
}
