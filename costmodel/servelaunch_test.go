package costmodel

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/gpu-planner/planner/costmodel/efficiency"
)

// TestGEMMLaunchPricesDecodeGEMMs: the decode-sized BF16 GEMMs of the
// kernel timings (m <= 16 tokens, weights of at least 4 MB) are the
// weight's read at the curve's HBM share plus one launch (GEMMLaunch):
// within a median 13% on every Hopper and Blackwell GPU timed, and at
// least 10 points closer than the read alone. The test prints both.
func TestGEMMLaunchPricesDecodeGEMMs(t *testing.T) {
	rows := readTestCSV(t, "efficiency/testdata/gemm.csv")
	gpus := map[string]string{"h100_sxm": "h100-sxm", "h200_sxm": "h200", "b200_sxm": "b200", "b300_sxm": "b300", "gb200": "gb200"}
	for _, key := range slices.Sorted(maps.Keys(gpus)) {
		g := mustGPU(t, gpus[key])
		c, _, err := efficiency.GEMMFor(g, efficiency.BF16)
		if err != nil {
			t.Fatal(err)
		}
		launch, bw := float64(GEMMLaunch(g)), float64(g.MemBandwidth)*c.HBMEff
		var with, without []float64
		for _, r := range rows[1:] {
			m, _ := strconv.ParseFloat(r[2], 64)
			n, _ := strconv.ParseFloat(r[3], 64)
			k, _ := strconv.ParseFloat(r[4], 64)
			ms, err := strconv.ParseFloat(r[5], 64)
			if r[0] != key || r[1] != "bf16" || m > 16 || 2*n*k < 4e6 || err != nil {
				continue
			}
			read := 2 * (m*k + k*n + m*n) / bw
			with = append(with, math.Abs((launch+read)/(ms/1e3)-1))
			without = append(without, math.Abs(read/(ms/1e3)-1))
		}
		a, b := median(with), median(without)
		t.Logf("%-9s %3d GEMMs: launch %.2f µs + read at %.3f of HBM: median |error| %.1f%%; read alone %.1f%%",
			key, len(with), launch*1e6, c.HBMEff, 100*a, 100*b)
		if len(with) < 400 || a > 0.13 || b < a+0.10 {
			t.Errorf("%s: %d GEMMs, median |error| %.1f%% with the launch, %.1f%% without", key, len(with), 100*a, 100*b)
		}
	}
}

// TestGEMMCalls counts a step's weight GEMM calls for three layer
// mixes: Llama 3.1 70B (4 a layer and the output layer), DeepSeek-V3
// (MLA's 5 a layer, 3 dense MLPs, 58 MoE layers with a shared expert)
// and Qwen3-235B-A22B (94 MoE layers without shared experts).
func TestGEMMCalls(t *testing.T) {
	for _, c := range []struct {
		model string
		want  int
	}{
		{"llama3.1-70b", 80*4 + 1},
		{"deepseek-v3", 61*5 + 3*2 + 58*5 + 1},
		{"qwen3-235b-a22b", 94*(2+3) + 1},
	} {
		m, err := LookupModel(c.model)
		if err != nil {
			t.Fatal(err)
		}
		layout, err := (Plan{TP: 1, PP: 1, VPP: 1}).balanceLayers(m.Layers)
		if err != nil {
			t.Fatal(err)
		}
		g := serveStage(m, ServePlan{TP: 1, PP: 1}, layout, 0)
		if got := m.gemmCalls(g); got != c.want {
			t.Errorf("%s: %d GEMM calls, want %d", c.model, got, c.want)
		}
	}
}
