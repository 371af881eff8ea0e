package efficiency

import (
	"math"
	"testing"
)

// TestTritonKernel checks FlashAttention in Triton against
// FlashAttention-2 at the benchmark shape (16 heads of 16,384 tokens,
// head dim 128): the forward 1.4 and the backward 2 times slower (Dao
// 2023, sec. 4.1), on Ampere and on Hopper.
func TestTritonKernel(t *testing.T) {
	const heads, s, d = 16, 16384, 128
	for _, name := range []string{"a100-80gb", "h100-sxm"} {
		g := lookup(t, name)
		a, _, err := AttentionFor(g, BF16)
		if err != nil {
			t.Fatal(err)
		}
		fa2, _ := a.WithKernel(g.Arch, KernelFA2)
		tri, src := a.WithKernel(g.Arch, KernelTriton)
		if src == "" {
			t.Errorf("%s: triton kernel without a source", name)
		}
		fwd := tri.Forward(heads, s, s, d, d, false) / fa2.Forward(heads, s, s, d, d, false)
		bwd := tri.Backward(heads, s, s, d, d, false) / fa2.Backward(heads, s, s, d, d, false)
		if math.Abs(fwd-tritonForward) > 0.02 || math.Abs(bwd-tritonBackward) > 0.03 {
			t.Errorf("%s: triton over FlashAttention-2: forward %.3f (want %.1f), backward %.3f (want %.1f)",
				name, fwd, tritonForward, bwd, tritonBackward)
		}
	}
	if k, err := ParseKernel("triton"); err != nil || k != KernelTriton || k.String() != "triton" {
		t.Errorf("ParseKernel(triton) = %v, %v", k, err)
	}
}
