package costmodel

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestSeparateProjections: torchtitan's wq, wk, wv as three linears cast
// their shared input once, as the fused QKV GEMM does, and cost more GEMM
// time than it at tp 8 (Llama 3 70B: widths 1024, 128, 128 of 8192).
func TestSeparateProjections(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	g, _ := hardware.LookupGPU("h100")
	c, _ := hardware.ClusterForGPUs(g, 8, 8)
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range []Precision{BF16, FP8CS, FP8Rowwise} {
		var fused, sep layerCost
		r := e.rates(Plan{Precision: pr})
		pass{r: r, c: &fused, t: 131072}.projections(8192, 1024, 128, 128)
		r.separate = true
		pass{r: r, c: &sep, t: 131072}.projections(8192, 1024, 128, 128)
		if math.Abs(sep.fwd.mem-fused.fwd.mem) > 1e-12 {
			t.Errorf("%v: forward casts %.4g s separate, %.4g s fused", pr, sep.fwd.mem, fused.fwd.mem)
		}
		if sep.fwd.flops != fused.fwd.flops || sep.bwd.flops != fused.bwd.flops {
			t.Errorf("%v: FLOPs differ", pr)
		}
		if sep.bwd.gemm <= fused.bwd.gemm {
			t.Errorf("%v: separate backward GEMMs %.4g s, not above fused %.4g s", pr, sep.bwd.gemm, fused.bwd.gemm)
		}
	}
}
