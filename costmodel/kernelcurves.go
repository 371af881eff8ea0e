package costmodel

import (
	"strings"
	"sync"

	"github.com/gpu-planner/planner/costmodel/efficiency"
	"github.com/gpu-planner/planner/hardware"
)

// kernelCurves are a GPU's kernel speeds for one training precision,
// from the shape-aware curves of package efficiency: the GEMMs of the
// transformer layers in the recipe's format, the 16-bit GEMMs (the
// output layer under a low-precision recipe, eager attention's batched
// matmuls) and fused attention (bf16 under every recipe: Transformer
// Engine keeps the attention core in bf16).
type kernelCurves struct {
	gemm, half efficiency.GEMM
	attn       efficiency.Attention
	// extrapolated names what the curves assume beyond their data ("" if
	// the GPU's generation and the format are measured).
	extrapolated string
}

// newKernelCurves builds g's curves for precision p at the sustained
// clock share clock with attention kernel k. A GPU without an
// architecture or SM count (a GPU file that gives neither) runs the
// Hopper curves on its own peak and bandwidth with 132 SMs, said in
// extrapolated.
func newKernelCurves(g hardware.GPU, p Precision, clock float64, k efficiency.Kernel) kernelCurves {
	var kc kernelCurves
	g, stood := curveGPU(g)
	if stood {
		kc.extrapolated = g.Name + " gives no architecture or SM count: Hopper curves with 132 SMs on its peak and bandwidth"
	}
	kc.half = gemmCurve(g, efficiency.BF16, clock, &kc.extrapolated)
	kc.gemm = kc.half
	switch f := p.Recipe().GEMMFormat; f {
	case "BF16", "FP16":
	case "TF32":
		kc.gemm.Peak /= 2
		kc.gemm.InBytes, kc.gemm.OutBytes = 4, 4
	default:
		if ef, err := efficiency.ParseFormat(formatKey(f)); err == nil {
			kc.gemm = gemmCurve(g, ef, clock, &kc.extrapolated)
		}
	}
	a, ev, err := efficiency.AttentionFor(g, efficiency.BF16)
	if err == nil {
		a, _ = a.WithKernel(g.Arch, k)
		a.Peak *= clock
		kc.attn = a
		note(&kc.extrapolated, ev)
	}
	return kc
}

// curveKey is what a GPU's curves depend on.
type curveKey struct {
	name                             string
	arch                             hardware.Arch
	sms                              int
	bf16, fp8, mxfp8, fp4, bandwidth float64
	p                                Precision
	clock                            float64
	k                                efficiency.Kernel
}

// curveCache holds the curves already built: an Evaluator is made per
// calibration row and per searched cluster, and the curves of a GPU do
// not change between them.
var curveCache sync.Map // curveKey -> kernelCurves

// cachedKernelCurves is newKernelCurves, built once per key.
func cachedKernelCurves(g hardware.GPU, p Precision, clock float64, k efficiency.Kernel) kernelCurves {
	key := curveKey{g.Name, g.Arch, g.SMs, float64(g.PeakBF16), float64(g.PeakFP8), float64(g.PeakMXFP8),
		float64(g.PeakFP4), float64(g.MemBandwidth), p, clock, k}
	if v, ok := curveCache.Load(key); ok {
		return v.(kernelCurves)
	}
	kc := newKernelCurves(g, p, clock, k)
	curveCache.Store(key, kc)
	return kc
}

// gemmCurve is g's curve for f at the clock share, with its
// extrapolation noted.
func gemmCurve(g hardware.GPU, f efficiency.Format, clock float64, extrapolated *string) efficiency.GEMM {
	c, ev, err := efficiency.GEMMFor(g, f)
	if err != nil {
		return efficiency.GEMM{}
	}
	note(extrapolated, ev)
	return c.Sustained(clock)
}

// note appends an extrapolated curve's reason.
func note(to *string, ev efficiency.Evidence) {
	if !ev.Extrapolated || strings.Contains(*to, ev.Reason) {
		return
	}
	if *to != "" {
		*to += "; "
	}
	*to += ev.Format + ": " + ev.Reason
}

// curveGPU is g as the kernel curves take it: a GPU without an
// architecture or SM count (a GPU file that gives neither) runs as a
// Hopper part with 132 SMs on its own peak and bandwidth; stood says it
// was filled in.
func curveGPU(g hardware.GPU) (_ hardware.GPU, stood bool) {
	stood = g.Arch == 0 || g.SMs == 0
	if g.Arch == 0 {
		g.Arch = hardware.Hopper
	}
	if g.SMs == 0 {
		g.SMs = 132
	}
	return g, stood
}

// formatKey maps a Recipe.GEMMFormat to efficiency.ParseFormat's names.
func formatKey(f string) string {
	switch f {
	case "FP8Row":
		return "fp8-row"
	case "FP8Block":
		return "fp8-block"
	}
	return strings.ToLower(f)
}

// KernelNote says what the kernel curves of precision p on GPU g assume
// beyond their measurements (a borrowed generation, an extrapolated
// format, a GPU file without architecture or SM count), or "" when the
// GPU's generation and format are measured.
func KernelNote(g hardware.GPU, p Precision, a Assumptions) string {
	return cachedKernelCurves(g, p, a.SustainedClockOf(g), a.AttentionKernel).extrapolated
}
