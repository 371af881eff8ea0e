package efficiency_test

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel/efficiency"
	"github.com/gpu-planner/planner/hardware"
)

// A Llama-3-70B MLP up-projection (4096 tokens, 8192 -> 28672) on one
// H100 in BF16 and in FP8 with 1x128/128x128 block scales, and the
// causal attention of the same 4096 tokens as 2 sequences x 64 heads.
func Example() {
	h100, _ := hardware.LookupGPU("h100-sxm")
	for _, f := range []efficiency.Format{efficiency.BF16, efficiency.FP8Block} {
		c, ev, err := efficiency.GEMMFor(h100, f)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9v %.0f us, %.0f%% of peak (fit on %s, median error %.0f%%)\n", f,
			c.Time(4096, 28672, 8192)*1e6, 100*c.Efficiency(4096, 28672, 8192), ev.Fitted, 100*ev.Errors.Median)
	}
	a, _, _ := efficiency.AttentionFor(h100, efficiency.BF16)
	fmt.Printf("attention forward %.0f us, backward %.0f us\n",
		a.Forward(128, 2048, 2048, 128, 128, true)*1e6, a.Backward(128, 2048, 2048, 128, 128, true)*1e6)
	_, _, err := efficiency.GEMMFor(h100, efficiency.NVFP4)
	fmt.Println(err)
	// Output:
	// bf16      2417 us, 80% of peak (fit on h100_sxm+h200_sxm, median error 7%)
	// fp8-block 1611 us, 60% of peak (fit on h100_sxm+h200_sxm, median error 14%)
	// attention forward 343 us, backward 1092 us
	// efficiency: h100-sxm (hopper) has no nvfp4 tensor cores (valid: bf16, fp8, fp8-row, fp8-block)
}
