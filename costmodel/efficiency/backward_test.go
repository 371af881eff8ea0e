package efficiency

import (
	"math"
	"testing"
)

// faSeq are the sequence lengths of the FlashAttention benchmark figures;
// batch x seq = 16k tokens, hidden 2048, head dim 128 (16 heads).
var faSeq = []float64{512, 1024, 2048, 4096, 8192, 16384}

// fa3Fwd and fa3Bwd are FlashAttention-3's H100 SXM5 BF16 TFLOP/s, head
// dim 128, no causal mask (Shah et al. 2024, arXiv:2407.08608, Fig. 5
// "Attention forward speed, head dim 128" and Fig. 6 "Attention backward
// speed, head dim 128"); fa2Fwd and fa2Bwd the FlashAttention-2 bars of
// the same figures, held out of the backward fit.
var (
	fa3Fwd = []float64{467, 565, 625, 638, 646, 648}
	fa3Bwd = []float64{316, 424, 501, 542, 559, 561}
	fa2Fwd = []float64{309, 350, 362, 368, 370, 370}
	fa2Bwd = []float64{214, 260, 291, 310, 318, 322}
)

// backwardTolerance bounds |model share / published share - 1| of the
// backward-over-forward rate; the FA2 bars are held out.
const backwardTolerance = 0.03

// TestBackwardRatio refits backwardRatio and backwardKeys to the FA3
// ratios (two-point closed form through 512 and 16k tokens, the ends of
// the figure) and checks every published ratio, FA3 and FA2.
func TestBackwardRatio(t *testing.T) {
	r0, r1 := fa3Bwd[0]/fa3Fwd[0], fa3Bwd[5]/fa3Fwd[5]
	s0, s1 := faSeq[0], faSeq[5]
	// r = R s/(s+K) at both ends: r0 (s0+K)/s0 = r1 (s1+K)/s1.
	keys := (r1 - r0) / (r0/s0 - r1/s1)
	ratio := r1 * (s1 + keys) / s1
	if math.Abs(keys-backwardKeys) > 0.5 || math.Abs(ratio-backwardRatio) > 5e-4 {
		t.Errorf("refit ratio %.4f keys %.1f; constants %.4f %.1f", ratio, keys, backwardRatio, backwardKeys)
	}
	a := Attention{BackwardRatio: backwardRatio, BackwardKeys: backwardKeys}
	for i, s := range faSeq {
		for _, c := range []struct {
			name     string
			fwd, bwd float64
		}{{"FA3", fa3Fwd[i], fa3Bwd[i]}, {"FA2", fa2Fwd[i], fa2Bwd[i]}} {
			got, want := a.backwardShare(s), c.bwd/c.fwd
			if math.Abs(got/want-1) > backwardTolerance {
				t.Errorf("%s at %g tokens: backward share %.3f, published %.3f", c.name, s, got, want)
			}
		}
	}
}

// TestPublishedAttention compares the fitted forward (TRT-LLM FMHA) with
// the published FlashAttention figures in their own benchmark setting:
// FlashAttention-2 "reaches up to 230 TFLOPs/s, 73% of the theoretical
// maximum" on A100 (Dao 2023, arXiv:2307.08691, sec. 4), and the FA3
// H100 bars above. Different kernels: the fit is TRT-LLM's FMHA, whose
// own rows top out at 152 TFLOP/s on A100 (TRT-LLM 1.0.0) and 549 on
// H100 (causal, 16k tokens), 34% and 11% below FA2 and FA3. The model
// must land below the published figure (it prices the slower kernel the
// calibration measured) and within 40% of it; a step-time model that
// runs FlashAttention-3 should know it is 20-30% pessimistic on Hopper.
func TestPublishedAttention(t *testing.T) {
	cases := []struct {
		gpu      string
		seq, tfl float64
		what     string
	}{
		{"a100-80gb", 16384, 230, "FA2 paper sec. 4, A100 best forward"},
		{"h100-sxm", 16384, 648, "FA3 Fig. 5, H100, 16k"},
		{"h100-sxm", 2048, 625, "FA3 Fig. 5, H100, 2k"},
	}
	for _, c := range cases {
		a, _, err := AttentionFor(lookup(t, c.gpu), BF16)
		if err != nil {
			t.Fatal(err)
		}
		bh := 16 * 16384 / c.seq
		got := Flops(bh, c.seq, c.seq, 128, 128, false) / a.Forward(bh, c.seq, c.seq, 128, 128, false) / 1e12
		t.Logf("%-9s %5g tokens: model %.0f TFLOP/s, published %.0f (%+.1f%%, %s)", c.gpu, c.seq, got, c.tfl, 100*(got/c.tfl-1), c.what)
		if got > c.tfl || got < 0.6*c.tfl {
			t.Errorf("%s at %g: %.0f TFLOP/s against %.0f", c.gpu, c.seq, got, c.tfl)
		}
	}
}
