package efficiency

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Kernel is an implementation of fused attention. The fitted curve
// (AttentionFor) is TensorRT-LLM's FMHA; training frameworks call other
// kernels whose published benchmarks differ from it by tens of percent,
// so Kernel rescales the curve's ceiling to the kernel's own figure.
type Kernel int

const (
	// KernelBest is the generation's fastest published training kernel:
	// FlashAttention-2 on Ampere and Ada, FlashAttention-3 (and cuDNN's
	// fused attention, which Transformer Engine calls, at about the same
	// speed) on Hopper, cuDNN fused attention (KernelFA4) on Blackwell and
	// Blackwell Ultra.
	KernelBest Kernel = iota
	// KernelFA2 is FlashAttention-2 (flash-attn 2.x, PyTorch SDPA's flash
	// backend), which on Hopper and Blackwell does not use their
	// asynchronous tensor cores.
	KernelFA2
	// KernelFA3 is FlashAttention-3 or cuDNN fused attention on Hopper.
	KernelFA3
	// KernelTriton is FlashAttention written in Triton (the Triton
	// tutorial kernel with an additive bias, which llm-foundry's
	// attn_impl triton runs for MPT's ALiBi), at FlashAttention-2's
	// speed divided by tritonForward and tritonBackward.
	KernelTriton
	// KernelFA4 is cuDNN fused attention or FlashAttention-4 on Blackwell
	// (SM100, SM103), the two within a few percent of each other in
	// cuDNN frontend's training benchmark (blackwellBenchmarks). Before
	// Blackwell no figure is published: the fitted curve is kept.
	KernelFA4
)

var kernelNames = [...]string{"best", "fa2", "fa3", "triton", "fa4"}

// tritonForward and tritonBackward are how much faster
// FlashAttention-2 is than FlashAttention in Triton on A100: "around
// 1.3-1.5x faster than FlashAttention in Triton in the forward pass and
// around 2x faster in the backward pass" (Dao 2023, arXiv:2307.08691,
// sec. 4.1; the forward at the middle of the range). No later figure is
// published, so other generations take the same ratios against their
// FlashAttention-2.
const (
	tritonForward  = 1.4
	tritonBackward = 2.0
)

func (k Kernel) String() string {
	if k < 0 || int(k) >= len(kernelNames) {
		return fmt.Sprintf("Kernel(%d)", int(k))
	}
	return kernelNames[k]
}

// MarshalText writes the kernel's name.
func (k Kernel) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kernel's name.
func (k *Kernel) UnmarshalText(b []byte) error {
	v, err := ParseKernel(string(b))
	*k = v
	return err
}

// ParseKernel reads a kernel name: best, fa2, fa3, triton or fa4.
func ParseKernel(s string) (Kernel, error) {
	for i, n := range kernelNames {
		if s == n {
			return Kernel(i), nil
		}
	}
	return 0, fmt.Errorf("efficiency: unknown attention kernel %q (valid: best, fa2, fa3, triton, fa4)", s)
}

// benchmark is a kernel's published speed at one shape: bf16, head dim
// 128, batchHeads (batch x query heads) of seq tokens, causal or not.
type benchmark struct {
	arch   hardware.Arch
	kernel Kernel
	// tflops is the forward's TFLOP/s; bwd the backward's at the same
	// shape, or 0 where the fitted backward share (backwardRatio) is kept.
	tflops, bwd float64
	// peak is the dense bf16 TFLOP/s of the GPU measured: the figure
	// carries over to the other GPUs of arch as the same share of their
	// peak. 0: tflops holds for every GPU of arch as it is.
	peak float64
	// batchHeads and seq are the shape; 0: 16 heads of 16,384 tokens,
	// the 16k-token setting of the FlashAttention papers' figures.
	batchHeads, seq float64
	// causal is whether the figure is of a causal mask.
	causal bool
	source string
}

// benchmarks are the published figures Kernel rescales to.
var benchmarks = append([]benchmark{
	{arch: hardware.Ampere, kernel: KernelFA2, tflops: 230, source: "Dao 2023 (arXiv:2307.08691), sec. 4: FlashAttention-2 forward up to 230 TFLOP/s on A100"},
	{arch: hardware.Hopper, kernel: KernelFA2, tflops: 370, source: "Shah et al. 2024 (arXiv:2407.08608), Fig. 5: FlashAttention-2 forward, H100, head dim 128, 16k"},
	{arch: hardware.Hopper, kernel: KernelFA3, tflops: 648, source: "Shah et al. 2024 (arXiv:2407.08608), Fig. 5: FlashAttention-3 forward, H100, head dim 128, 16k"},
}, blackwellBenchmarks...)

// shape is the benchmark's batch x heads and tokens.
func (b benchmark) shape() (batchHeads, seq float64) {
	if b.batchHeads == 0 {
		return 16, 16384
	}
	return b.batchHeads, b.seq
}

// rate is the figure's FLOP/s on a GPU of dense peak FLOP/s: the share
// of the measured GPU's peak where one is given.
func (b benchmark) rate(tflops, peak float64) float64 {
	if b.peak == 0 {
		return tflops * 1e12
	}
	return tflops / b.peak * peak
}

// fa2OverFA3 is FlashAttention-2's speed over FlashAttention-3's on
// Hopper (370/648, the figures above): where no FA2 figure is published
// for a generation after Ampere and Ada (none of the catalog's since
// Blackwell's figures), FA2 is taken to lose that share against the
// fitted curve.
const fa2OverFA3 = 370.0 / 648

// WithKernel is the curve rescaled to kernel k on generation arch: the
// ceiling times published / predicted at the benchmark shape, so the
// forward matches the kernel's published figure there; the backward
// follows through the fitted backward share. It returns the rescaled
// curve and the figure it rests on ("" when the fitted curve is kept).
func (a Attention) WithKernel(arch hardware.Arch, k Kernel) (Attention, string) {
	if arch == hardware.CDNA3 {
		return a, ""
	}
	if k == KernelTriton {
		t, src := a.WithKernel(arch, KernelFA2)
		t.Ceiling /= tritonForward
		t.BackwardRatio *= tritonForward / tritonBackward
		return t, "FlashAttention in Triton at 1/1.4 (forward) and 1/2 (backward) of FlashAttention-2 (Dao 2023, sec. 4.1); " + src
	}
	if k == KernelBest {
		k = bestKernel(arch)
	}
	for _, b := range benchmarks {
		if b.arch == arch && b.kernel == k && b.tflops > 0 {
			return a.scaledTo(b), b.source
		}
	}
	if k == KernelFA2 && arch != hardware.Ampere && arch != hardware.Ada {
		scaled := a
		scaled.Ceiling *= fa2OverFA3
		return scaled, "FlashAttention-2 at 370/648 of FlashAttention-3 (Shah et al. 2024, Fig. 5), applied to the fitted curve"
	}
	return a, ""
}

// bestKernel is the kernel KernelBest names on generation arch.
func bestKernel(arch hardware.Arch) Kernel {
	switch arch {
	case hardware.Ampere, hardware.Ada:
		return KernelFA2
	case hardware.Blackwell, hardware.BlackwellUltra:
		return KernelFA4
	}
	return KernelFA3
}

// scaledTo rescales the ceiling so that the forward at b's shape reaches
// b's forward figure, then, where b gives a backward figure, the
// backward share (BackwardRatio) so that the backward reaches it too.
// Both are compute-bound there, so two proportional corrections converge
// to within a fraction of a percent despite the fixed launch time.
func (a Attention) scaledTo(b benchmark) Attention {
	bh, s := b.shape()
	const d = 128
	fwd := Flops(bh, s, s, d, d, b.causal)
	for range 2 {
		a.Ceiling *= b.rate(b.tflops, a.Peak) / (fwd / a.Forward(bh, s, s, d, d, b.causal))
	}
	if b.bwd == 0 {
		return a
	}
	for range 2 {
		a.BackwardRatio *= b.rate(b.bwd, a.Peak) / (2.5 * fwd / a.Backward(bh, s, s, d, d, b.causal))
	}
	return a
}
