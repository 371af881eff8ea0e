package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Generation is a GPU's tensor-core generation as the serving model sees
// it: ampere (bf16 tensor cores), hopper (adds fp8), blackwell (adds fp4).
type Generation string

// The generations.
const (
	Ampere    Generation = "ampere"
	Hopper    Generation = "hopper"
	Blackwell Generation = "blackwell"
)

// GenerationOf is g's generation: blackwell when it has FP4 tensor
// cores (FP4Peak), hopper when it has FP8 ones, ampere otherwise.
func GenerationOf(g hardware.GPU) Generation {
	switch {
	case FP4Peak(g) > 0:
		return Blackwell
	case g.PeakFP8 > 0:
		return Hopper
	}
	return Ampere
}

// srcFP4 cites the dense FP4 tensor-core peaks.
const srcFP4 = "NVIDIA datasheets: HGX B200 72 PFLOPS dense FP4 per 8 GPUs, HGX B300 108 PFLOPS per 8, GB200 NVL72 720 PFLOPS per 72"

// fp4Peaks are the dense FP4 (NVFP4 and MXFP4) tensor-core peaks per GPU,
// keyed by catalog name (srcFP4).
var fp4Peaks = map[string]hardware.FLOPRate{
	"b200":  9000 * hardware.TFLOPPerSecond,
	"b300":  13500 * hardware.TFLOPPerSecond,
	"gb200": 10000 * hardware.TFLOPPerSecond,
}

// FP4Peak is g's dense FP4 tensor-core peak, 0 when it has none.
func FP4Peak(g hardware.GPU) hardware.FLOPRate { return fp4Peaks[g.Name] }

// Shares are the achieved shares of the datasheet figures in a serving
// step: HBM of the bandwidth, FLOP of the dense tensor-core peak (0: the
// generation's MeasuredKernelShares).
type Shares struct {
	HBM  float64 `json:"hbm"`
	FLOP float64 `json:"flop,omitempty"`
}

// GenerationShares are the shares per generation. Ampere's are the
// gpt-fast and TensorRT-LLM v0.5 fits of Assumptions (0.75, 0.65);
// Hopper's and Blackwell's HBM shares are fitted on measured-serving.csv
// (costmodel/servingcal, TestFittedDefaults checks them), Hopper's, on
// which the fit's objective is flat from 0.80 to 0.84, at 0.821, the top
// of what its decode-sized GEMMs stream; their FLOP shares are the
// measured kernels' (MeasuredKernelShares).
var GenerationShares = map[Generation]Shares{
	Ampere:    {HBM: 0.75, FLOP: 0.65},
	Hopper:    {HBM: 0.821},
	Blackwell: {HBM: 0.661},
}

// ServeAssumptions returns a with the serving shares of g's generation:
// the HBM share, and the measured kernel shares of the weight GEMMs and
// prefill attention (MeasuredKernelShares) where the generation has
// them, else its fitted FLOP share.
func ServeAssumptions(a Assumptions, g hardware.GPU) Assumptions {
	gen := GenerationOf(g)
	s := GenerationShares[gen]
	a.ServeHBMEfficiency, a.ServeKernels = s.HBM, KernelShares{}
	if s.FLOP > 0 {
		a.ServeFLOPEfficiency = s.FLOP
	} else if k, ok := MeasuredKernelShares[gen]; ok {
		a.ServeKernels = k
	}
	return a
}

// weightPeak is the tensor-core peak the GEMMs of weights in format w
// run at on g: fp4 weights on fp4 tensor cores, fp8 on fp8, and
// otherwise (int4 or fp4 weights on a GPU without fp4 units, which
// dequantize to 16 bits: Marlin and MXFP4 W4A16 kernels) bf16; TF32 for
// fp32. At the clock the GPU sustains (hardware.GPU.Sustained).
func weightPeak(g hardware.GPU, w DType) hardware.FLOPRate {
	peak := g.PeakBF16
	switch {
	case w.IsFP4() && FP4Peak(g) > 0:
		peak = FP4Peak(g)
	case w.IsFP8() && g.PeakFP8 > 0:
		peak = g.PeakFP8
	case w == DTypeFP32:
		peak = g.PeakBF16 / 2
	}
	return peak * hardware.FLOPRate(g.Sustained())
}

// srcFP4Scales cites the block scales of the 4-bit float formats.
const srcFP4Scales = "NVFP4: one fp8 (e4m3) scale per 16 values (NVIDIA Blackwell NVFP4 blog, 2025); MXFP4: one e8m0 scale per 32 (OCP Microscaling Formats v1.0, sec. 5)"

// fp4ScaleBytesPerParam is the block-scale bytes per weight: 1/16 for
// NVFP4, 1/32 for MXFP4 (srcFP4Scales).
func fp4ScaleBytesPerParam(d DType) float64 {
	if d == DTypeNVFP4 {
		return 1.0 / 16
	}
	return 1.0 / 32
}

// srcFP8BlockScales cites fp8-block's weight scales.
const srcFP8BlockScales = "fp8-block: one fp32 scale per 128 x 128 weights (DeepSeek-V3 technical report, sec. 3.3.2; weight_scale_inv in the FP8 checkpoints)"

// fp8BlockScaleBytesPerParam is fp8-block's scale bytes per weight: 4
// bytes per 128 x 128 block (srcFP8BlockScales).
const fp8BlockScaleBytesPerParam = 4.0 / (128 * 128)

// blockScalesLine is the inventory line of the block scales of params
// weights in format d (a 4-bit float or fp8-block).
func blockScalesLine(d DType, params float64) Line {
	perParam, src := fp8BlockScaleBytesPerParam, srcFP8BlockScales
	if d.IsFP4() {
		perParam, src = fp4ScaleBytesPerParam(d), srcFP4Scales
	}
	return Line{Name: d.String() + " block scales", Group: GroupStates,
		Bytes:   hardware.Bytes(params * perParam),
		Formula: fmt.Sprintf("%s params x %.4g bytes", FormatCount(params), perParam),
		Source:  src}
}
