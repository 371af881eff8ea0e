package efficiency

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestPrintFits prints the GEMM fit table as Go source (PRINT_FITS=1).
func TestPrintFits(t *testing.T) {
	if os.Getenv("PRINT_FITS") == "" {
		t.Skip("set PRINT_FITS=1")
	}
	data := gemmSamples(t)
	for a := hardware.Ampere; a <= hardware.BlackwellUltra; a++ {
		for _, f := range measuredFormats {
			sets := fitSets(t, data, fitGPUs[a], f)
			if len(sets) == 0 {
				continue
			}
			p, err := FitGEMM(sets, gemmStart)
			if err != nil {
				t.Fatal(err)
			}
			var all []Sample
			var c []GEMM
			for _, s := range sets {
				all = append(all, s.Samples...)
				c = append(c, p.Apply(s.Base))
			}
			e := setErrors(c, sets)
			fmt.Printf("\t{hardware.%v, %v, Params{%.4g, %.4g, %.4g, %.4g}, Errors{%d, %.4f, %.4f, %.4f}},\n",
				archIdent[a], formatIdent[f], p.Ceiling, p.KHalf, p.Launch, p.HBMEff, e.Rows, e.RMS, e.Median, e.P90)
		}
	}
}

// TestPrintAttentionFits prints the attention fit table (PRINT_FITS=1).
func TestPrintAttentionFits(t *testing.T) {
	if os.Getenv("PRINT_FITS") == "" {
		t.Skip("set PRINT_FITS=1")
	}
	data := attentionSamples(t)
	for a := hardware.Ampere; a <= hardware.BlackwellUltra; a++ {
		for _, f := range []Format{BF16, FP8} {
			sets := attentionSets(t, data, fitGPUs[a], f)
			if len(sets) == 0 {
				continue
			}
			p, err := FitAttention(sets, attentionStart)
			if err != nil {
				t.Fatal(err)
			}
			e := attentionSetErrors(p, sets)
			fmt.Printf("\t{hardware.%v, %v, Params{%.4g, %.4g, %.4g, %.4g}, Errors{%d, %.4f, %.4f, %.4f}},\n",
				archIdent[a], formatIdent[f], p.Ceiling, p.KHalf, p.Launch, p.HBMEff, e.Rows, e.RMS, e.Median, e.P90)
		}
	}
}

var archIdent = map[hardware.Arch]string{hardware.Ampere: "Ampere", hardware.Ada: "Ada", hardware.Hopper: "Hopper", hardware.Blackwell: "Blackwell", hardware.BlackwellUltra: "BlackwellUltra"}
var formatIdent = map[Format]string{BF16: "BF16", FP8: "FP8", FP8Block: "FP8Block", NVFP4: "NVFP4"}

// fitSets builds the fit sets of the named GPUs for f.
func fitSets(t testing.TB, data map[gemmKey][]Sample, gpus []string, f Format) []Set {
	var sets []Set
	for _, name := range gpus {
		if s := data[gemmKey{name, f}]; len(s) > 0 {
			sets = append(sets, Set{GPU: name, Base: baseGEMM(lookup(t, name), f), Samples: s})
		}
	}
	return sets
}

// setErrors is the error over all rows of the sets, each predicted by its curve.
func setErrors(c []GEMM, sets []Set) Errors {
	var rel []float64
	for i, s := range sets {
		for _, r := range s.Samples {
			rel = append(rel, abs(c[i].Measured(r)/r.Seconds-1))
		}
	}
	return summarize(rel)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
