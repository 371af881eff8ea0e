package efficiency

import (
	"math"
	"testing"
)

// mamf is the "Maximum Achievable Matmul FLOPS" table of
// stas00/ml-engineering, compute/accelerator/README.md (torch.mm, i.e.
// cuBLAS, best shape of a brute-force search; mean of 100 runs after 50
// warm-ups): TFLOP/s at the best M x N x K, dense BF16 and FP8 e4m3.
var mamf = []struct {
	gpu     string
	f       Format
	m, n, k float64
	tflops  float64
}{
	{"a100-80gb", BF16, 1024, 10240, 5120, 271.2},
	{"h100-sxm", BF16, 2048, 2048, 13312, 794.5},
	{"h100-sxm", FP8, 1024, 9216, 14336, 1402.6},
}

// mamfBest is the same table's best-shape figures where the shape is not
// quoted with it: the curve's best over the search grid is compared.
var mamfBest = []struct {
	gpu    string
	tflops float64
}{{"b200", 1745.0}, {"b300", 1769.0}, {"gb200", 1822.0}}

// mamfTolerance is the largest |pred/published - 1| accepted. The fit
// is on TRT-LLM Linear layers, not torch.mm, and MAMF keeps the best of
// many shapes (its noise rounds up), so 15% is what one curve per
// generation can promise.
const mamfTolerance = 0.15

func TestPublishedCuBLAS(t *testing.T) {
	for _, r := range mamf {
		c, _, err := GEMMFor(lookup(t, r.gpu), r.f)
		if err != nil {
			t.Fatal(err)
		}
		got := 2 * r.m * r.n * r.k / c.Time(r.m, r.n, r.k) / 1e12
		t.Logf("%-9s %-5v %gx%gx%g: model %.0f TFLOP/s, MAMF %.1f (%+.1f%%)", r.gpu, r.f, r.m, r.n, r.k, got, r.tflops, 100*(got/r.tflops-1))
		if math.Abs(got/r.tflops-1) > mamfTolerance {
			t.Errorf("%s %v: %.0f TFLOP/s against %.1f published", r.gpu, r.f, got, r.tflops)
		}
	}
	for _, r := range mamfBest {
		c, _, err := GEMMFor(lookup(t, r.gpu), BF16)
		if err != nil {
			t.Fatal(err)
		}
		got := bestTFLOPs(c)
		t.Logf("%-9s bf16  best of grid: model %.0f TFLOP/s, MAMF %.1f (%+.1f%%)", r.gpu, got, r.tflops, 100*(got/r.tflops-1))
		if math.Abs(got/r.tflops-1) > mamfTolerance {
			t.Errorf("%s: best %.0f TFLOP/s against %.1f published", r.gpu, got, r.tflops)
		}
	}
}

// bestTFLOPs is the curve's best TFLOP/s over m, n, k in 1024 ... 16384
// by 1024, MAMF's default search range.
func bestTFLOPs(c GEMM) float64 {
	var best float64
	for m := 1024.0; m <= 16384; m += 1024 {
		for n := 1024.0; n <= 16384; n += 1024 {
			for k := 1024.0; k <= 16384; k += 1024 {
				best = max(best, 2*m*n*k/c.Time(m, n, k)/1e12)
			}
		}
	}
	return best
}
