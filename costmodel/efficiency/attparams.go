package efficiency

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Backward shape, fitted on FlashAttention-3 (Shah et al. 2024,
// arXiv:2407.08608), Fig. 5/6, H100 SXM5, BF16, head dim 128, no causal
// mask: backward over forward TFLOP/s is 316/467, 424/565, 501/625,
// 542/638, 559/646, 561/648 at 512 ... 16k tokens. share(s) =
// ratio x s / (s + keys) fits them within 2.2%; the FlashAttention-2
// columns of the same figures (held out) within 2.6% (backward_test.go).
const (
	backwardRatio = 0.8738
	backwardKeys  = 148.8
)

// attentionStart is where every attention fit starts Nelder-Mead.
var attentionStart = Params{Ceiling: 0.6, KHalf: 128, Launch: 5e-6, HBMEff: 0.8}

// attentionFormat checks that f is an attention format a runs:
// BF16 everywhere, FP8 (e4m3 Q, K, V; FlashAttention-3 FP8, TRT-LLM FP8
// FMHA) from Ada and Hopper on.
func attentionFormat(a hardware.Arch, f Format) error {
	if f == BF16 || (f == FP8 && a != hardware.Ampere) {
		return nil
	}
	valid := "bf16, fp8"
	if a == hardware.Ampere {
		valid = "bf16"
	}
	return fmt.Errorf("efficiency: no fused %v attention on %v (valid: %s)", f, a, valid)
}

// baseAttention is g's attention curve for f before the fitted
// parameters.
func baseAttention(g hardware.GPU, f Format) Attention {
	return Attention{BlockQ: 128, SMs: float64(g.SMs), Peak: peakOf(g, f), HBM: float64(g.MemBandwidth),
		Bytes: f.inputBytes(), BackwardRatio: backwardRatio, BackwardKeys: backwardKeys}
}

// AttentionFor is g's fitted fused-attention curve for f (BF16, or FP8
// from Ada and Hopper on) and what backs it.
func AttentionFor(g hardware.GPU, f Format) (Attention, Evidence, error) {
	if err := checkFormat(g, BF16); err != nil {
		return Attention{}, Evidence{}, err
	}
	if err := attentionFormat(g.Arch, f); err != nil {
		return Attention{}, Evidence{}, fmt.Errorf("%w (GPU %s)", err, g.Name)
	}
	a, reason := g.Arch, ""
	if a == hardware.CDNA3 {
		a, reason = hardware.Hopper, "no AMD measurements; the Hopper curve on the MI300X's peak, bandwidth and 304 CUs"
	}
	fit, ok := lookupAttention(a, f)
	if !ok {
		return Attention{}, Evidence{}, fmt.Errorf("efficiency: no fitted %v attention curve for %v (GPU %s)", f, a, g.Name)
	}
	ev := gemmEvidence(g, a, gemmFit{format: f, err: fit.err}, reason)
	ev.Source = sourceAttention
	curve := fit.p.ApplyAttention(baseAttention(g, f))
	curve.ExpHeadDim = expHeadDim(a, f)
	return curve, ev, nil
}

func lookupAttention(a hardware.Arch, f Format) (gemmFit, bool) {
	for _, g := range attentionFits {
		if g.arch == a && g.format == f {
			return g, true
		}
	}
	return gemmFit{}, false
}

// sourceAttention cites the attention measurements.
const sourceAttention = "ai-dynamo/aiconfigurator @095f58a5, systems/data/<gpu>/attention/trtllm/<version>/context_attention_perf.parquet " +
	"(TRT-LLM context FMHA with RoPE and KV-cache write, CUDA graph); subsample in costmodel/efficiency/testdata/attention_context.csv"

// attentionFits are the forward parameters fitted by FitAttention on
// testdata/attention_context.csv (head dim 128, causal prefill, no
// window), one set per generation over the GPUs of fitGPUs;
// TestAttentionFitsReproduce refits them. Columns as gemmFits.
// Ada's rows again carry the largest errors (L2-resident small calls).
var attentionFits = []gemmFit{
	{hardware.Ampere, BF16, Params{0.467, 36.68, 1.092e-05, 0.687}, Errors{657, 0.0674, 0.0356, 0.0984}},
	{hardware.Ada, BF16, Params{0.4165, 23.33, 6.16e-06, 1}, Errors{858, 0.4151, 0.1091, 0.6881}},
	{hardware.Ada, FP8, Params{0.3797, 24.05, 6.937e-06, 1}, Errors{858, 0.3183, 0.1189, 0.4980}},
	{hardware.Hopper, BF16, Params{0.5268, 163.8, 1.089e-05, 0.7303}, Errors{1716, 0.0870, 0.0509, 0.1409}},
	{hardware.Hopper, FP8, Params{0.3669, 352.7, 1.114e-05, 0.7203}, Errors{1716, 0.0882, 0.0489, 0.1398}},
	{hardware.Blackwell, BF16, Params{0.504, 376, 1.359e-05, 0.4606}, Errors{1716, 0.1074, 0.0580, 0.1563}},
	{hardware.Blackwell, FP8, Params{0.3041, 423, 1.381e-05, 0.466}, Errors{1716, 0.1230, 0.0735, 0.1885}},
	{hardware.BlackwellUltra, BF16, Params{0.6071, 388.4, 1.276e-05, 0.4891}, Errors{858, 0.0968, 0.0472, 0.1473}},
	{hardware.BlackwellUltra, FP8, Params{0.4206, 507, 1.278e-05, 0.4386}, Errors{858, 0.1132, 0.0628, 0.1741}},
}
