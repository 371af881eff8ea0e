package costmodel

import (
	"math"
	"testing"
)

// TestLowPrecisionSavedInputs: under Transformer Engine's MXFP8 recipe a
// linear's input is saved once, column-wise, at 1 + 1/32 bytes
// (Recipe.SavedInputBytes): Llama 3 70B's 33.5 sbh becomes norms 4 +
// QKV input L + Q 2 + K and V 0.5 + attention output 2 + L (FlashAttention
// keeps its own 16-bit copy) + MLP input L + gate and up output 4f/h +
// down input L f/h, i.e. 22.5 + 6.5 L at f/h = 3.5; torchao's rowwise
// recipe saves 16-bit inputs and keeps 33.5.
func TestLowPrecisionSavedInputs(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	s, h, a := 8192.0, 8192.0, 64.0
	L := 1 + 1.0/32
	for _, c := range []struct {
		pr   Precision
		want float64
	}{{MXFP8, 22.5 + 6.5*L}, {FP8Rowwise, 33.5}, {BF16, 33.5}, {FP8CS, 22.5 + 6.5}} {
		p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 8192, MicroBatch: 1, Attention: Flash, Precision: c.pr}
		want := s*h*c.want + 4*a*s
		if got := layerBytes(m, p); math.Abs(got-want) > 1 {
			t.Errorf("%s: %.0f bytes (%.4g sbh), want %.4g sbh", c.pr, got, (got-4*a*s)/(s*h), c.want)
		}
	}
}
