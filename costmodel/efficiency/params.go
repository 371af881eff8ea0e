package efficiency

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// gemmFit is one fitted (generation, format) parameter set with its
// in-fit error.
type gemmFit struct {
	arch   hardware.Arch
	format Format
	p      Params
	err    Errors
}

// gemmFits are the GEMM parameters fitted by FitGEMM (least squares in
// log time, Nelder-Mead from gemmStart) on testdata/gemm.csv, the
// TRT-LLM GEMM timings of ai-dynamo/aiconfigurator @095f58a5, one set
// per generation over the GPUs of fitGPUs; TestFitsReproduce refits them
// and fails on drift. Columns: Ceiling, KHalf (k steps), Launch (s),
// HBMEff; rows, RMS, median and 90th percentile of |pred/meas-1|.
//
// Ada's rows are L2-resident for mid sizes (the L40S's 96 MB L2 holds the
// collector's five weight copies), so its memory floor saturates at the
// datasheet GDDR6 rate and its errors are the largest. Blackwell bf16 and
// NVFP4 fit KHalf at zero: their deep tcgen05 pipelines hide the tile
// prologue at every measured k.
var gemmFits = []gemmFit{
	{hardware.Ampere, BF16, Params{0.9119, 157.1, 2.858e-06, 0.7025}, Errors{1694, 0.1906, 0.0955, 0.2940}},
	{hardware.Ada, BF16, Params{0.6236, 83.91, 9.118e-27, 1}, Errors{1936, 0.5028, 0.1909, 0.9007}},
	{hardware.Ada, FP8, Params{0.5804, 1.254e-07, 9.688e-06, 1}, Errors{1936, 0.4337, 0.1554, 0.7282}},
	{hardware.Ada, FP8Block, Params{0.3178, 1.152e-24, 3.634e-06, 1}, Errors{1936, 0.5282, 0.2530, 0.8339}},
	{hardware.Hopper, BF16, Params{0.8277, 115, 2.712e-06, 0.8325}, Errors{3872, 0.1761, 0.0694, 0.3011}},
	{hardware.Hopper, FP8, Params{0.7602, 332.3, 1.203e-05, 0.7423}, Errors{3872, 0.1024, 0.0483, 0.1747}},
	{hardware.Hopper, FP8Block, Params{0.6564, 580.5, 4.629e-06, 0.6408}, Errors{3872, 0.2351, 0.1436, 0.3805}},
	{hardware.Blackwell, BF16, Params{0.6997, 4.009e-11, 2.484e-06, 0.7117}, Errors{3872, 0.2153, 0.1133, 0.3745}},
	{hardware.Blackwell, FP8, Params{0.6709, 276.8, 1.403e-05, 0.6218}, Errors{3872, 0.0910, 0.0623, 0.1513}},
	{hardware.Blackwell, FP8Block, Params{0.7115, 102.1, 6.203e-06, 0.6139}, Errors{3872, 0.1864, 0.1228, 0.3041}},
	{hardware.Blackwell, NVFP4, Params{0.494, 2.446e-10, 8.992e-06, 0.4165}, Errors{3872, 0.2894, 0.2036, 0.4644}},
	{hardware.BlackwellUltra, BF16, Params{0.7565, 1.098e-11, 2.294e-06, 0.7}, Errors{1936, 0.2187, 0.1105, 0.3807}},
	{hardware.BlackwellUltra, FP8, Params{0.7245, 137.2, 1.347e-05, 0.6062}, Errors{1936, 0.0894, 0.0648, 0.1446}},
	{hardware.BlackwellUltra, FP8Block, Params{0.7957, 101.2, 5.899e-06, 0.6086}, Errors{1936, 0.1840, 0.1184, 0.3084}},
	{hardware.BlackwellUltra, NVFP4, Params{0.4317, 2.919e-10, 9.232e-06, 0.343}, Errors{1936, 0.2315, 0.1753, 0.3671}},
}

// borrow says which measured (generation, format) curve stands in where
// none is measured, and why.
func borrow(a hardware.Arch, f Format) (hardware.Arch, Format, string) {
	switch {
	case a == hardware.CDNA3:
		return borrowCDNA3(f)
	case f == FP8Row:
		return a, FP8, "no rowwise-FP8 rows; the per-tensor FP8 curve: torchao runs rowwise-scaled backward GEMMs on cuBLAS's per-tensor kernel " +
			"and rescales their outputs (float8_ops.py), and PyTorch's CUTLASS rowwise kernel for the forward reaches 90-100% of " +
			"the per-tensor speed on most shapes (pytorch/pytorch#147971)"
	case f == MXFP8:
		return a, FP8Block, "no MXFP8 rows; the FP8 block-scaled curve (DeepGEMM's 1x128/128x128 scales), both scaled in the tensor-core pipeline on Blackwell"
	}
	return a, f, ""
}

func borrowCDNA3(f Format) (hardware.Arch, Format, string) {
	why := "no AMD measurements; the Hopper curve on the MI300X's peak, bandwidth and 304 CUs"
	if f == FP8Row {
		return hardware.Hopper, FP8, why + " (per-tensor FP8 curve, rowwise cast)"
	}
	return hardware.Hopper, f, why
}

// lookupFit finds the parameters of a (generation, format).
func lookupFit(a hardware.Arch, f Format) (gemmFit, bool) {
	for _, g := range gemmFits {
		if g.arch == a && g.format == f {
			return g, true
		}
	}
	return gemmFit{}, false
}

// GEMMFor is g's fitted GEMM curve for format f, and what backs it. It
// fails when g's architecture has no tensor cores for f (NVFP4 on
// Hopper), naming the GPU, the format and the valid formats, or when g
// has no architecture or SM count.
func GEMMFor(g hardware.GPU, f Format) (GEMM, Evidence, error) {
	if err := checkFormat(g, f); err != nil {
		return GEMM{}, Evidence{}, err
	}
	a, from, reason := borrow(g.Arch, f)
	fit, ok := lookupFit(a, from)
	if !ok {
		return GEMM{}, Evidence{}, fmt.Errorf("efficiency: no fitted %v curve for %v (GPU %s)", from, a, g.Name)
	}
	c := fit.p.Apply(baseGEMM(g, f))
	return c, gemmEvidence(g, a, fit, reason), nil
}

// gemmEvidence describes the fit behind a curve.
func gemmEvidence(g hardware.GPU, a hardware.Arch, fit gemmFit, reason string) Evidence {
	e := Evidence{GPU: g.Name, Fitted: fittedKeys(a), Generation: a.String(), Format: fit.format.String(),
		Errors: fit.err, Source: sourceGEMM, Reason: reason}
	if reason == "" && !inFit(a, g.Name) {
		e.Reason = fmt.Sprintf("no measurements of %s; the %v curve fitted on %s, on this GPU's peak, bandwidth and SMs",
			g.Name, a, e.Fitted)
	}
	e.Extrapolated = e.Reason != ""
	return e
}

// inFit reports whether the named GPU's rows are in a's fit.
func inFit(a hardware.Arch, name string) bool {
	for _, n := range fitGPUs[a] {
		if n == name {
			return true
		}
	}
	return false
}

// fittedKeys joins the calibration keys of a generation's fitted GPUs.
func fittedKeys(a hardware.Arch) string {
	keys := make([]string, 0, 2)
	for _, n := range fitGPUs[a] {
		keys = append(keys, datasetKeys[n])
	}
	return strings.Join(keys, "+")
}
