package costmodel

import (
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestServeKernelShares: Hopper and Blackwell GPUs take the measured
// kernel shares, the weight GEMMs' by format (MeasuredKernelShares);
// Ampere keeps its fitted FLOP share for GEMMs and attention alike.
func TestServeKernelShares(t *testing.T) {
	for _, c := range []struct {
		gpu             string
		w               DType
		gemm, attention float64
	}{
		{"h100-sxm", DTypeBF16, 0.937, 0.542},
		{"h200", DTypeFP8, 0.753, 0.542},
		{"h200", DTypeMXFP4, 0.937, 0.542}, // dequantized to bf16 (weightPeak)
		{"b200", DTypeNVFP4, 0.359, 0.395},
		{"gb200", DTypeFP8, 0.536, 0.395},
		{"b300", DTypeInt4, 0.662, 0.395},
		{"a100-80gb", DTypeFP8, 0.65, 0.65},
	} {
		g, err := hardware.LookupGPU(c.gpu)
		if err != nil {
			t.Fatal(err)
		}
		a := ServeAssumptions(DefaultAssumptions(), g)
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		if gemm, att := a.computeShares(c.w); gemm != c.gemm || att != c.attention {
			t.Errorf("%s %v: GEMM share %g, attention %g; want %g, %g", c.gpu, c.w, gemm, att, c.gemm, c.attention)
		}
	}
	a := DefaultAssumptions()
	a.ServeKernels = KernelShares{BF16: 1.2, FP8: 0.5, Attention: 0.5}
	if a.Validate() == nil {
		t.Error("a GEMM share of 1.2 passed validation")
	}
}
