package servingcal

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// streamGEMMs are the decode-sized GEMMs of the kernel timings the
// efficiency fits use (AIConfigurator's TensorRT-LLM Linear layers in
// CUDA-graph replay, costmodel/efficiency/testdata/README.md): m <= 32
// tokens and a weight of at least 4 MB, so the time is the weight's read.
const streamGEMMs = "../efficiency/testdata/gemm.csv"

// weightBytes are the bytes per weight of the timed formats: NVFP4 adds
// an fp8 scale per 16 values.
var weightBytes = map[string]float64{"bf16": 2, "fp8": 1, "fp8_block": 1, "nvfp4": 0.5625}

// streamShare fits latency = t0 + bytes / B (least squares on the
// relative error) to the GPU's decode-sized GEMMs of one format and
// returns B over the GPU's HBM bandwidth.
func streamShare(rows [][]string, gpu hardware.GPU, name, dtype string) (share float64, n int) {
	var s, sx, sy, sxx, sxy float64
	for _, r := range rows {
		m, _ := strconv.Atoi(r[2])
		nn, _ := strconv.ParseFloat(r[3], 64)
		k, _ := strconv.ParseFloat(r[4], 64)
		ms, err := strconv.ParseFloat(r[5], 64)
		x := nn * k * weightBytes[dtype]
		if r[0] != name || r[1] != dtype || m > 32 || x < 4e6 || err != nil {
			continue
		}
		y := ms / 1e3
		w := 1 / (y * y)
		s, sx, sy, sxx, sxy, n = s+w, sx+w*x, sy+w*y, sxx+w*x*x, sxy+w*x*y, n+1
	}
	slope := (s*sxy - sx*sy) / (s*sxx - sx*sx)
	return 1 / slope / float64(gpu.MemBandwidth), n
}

// TestHBMShareMatchesStreamingGEMMs: the HBM shares fitted on the
// serving measurements lie within the bandwidth the decode-sized GEMMs of
// the kernel timings reach on the same generation, an independent
// measurement: Hopper's fitted share against H100's and H200's bf16,
// fp8 and fp8-block GEMMs (0.74 to 0.82 of the HBM bandwidth),
// Blackwell's against B200's, B300's and GB200's (bf16, fp8 and
// fp8-block 0.69 to 0.75, NVFP4 0.44 to 0.46: its rows mix both). The
// test prints the fitted shares beside the ranges.
func TestHBMShareMatchesStreamingGEMMs(t *testing.T) {
	f, err := os.Open(streamGEMMs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	gens := []struct {
		gen  costmodel.Generation
		gpus [][2]string
	}{
		{costmodel.Hopper, [][2]string{{"h100-sxm", "h100_sxm"}, {"h200", "h200_sxm"}}},
		{costmodel.Blackwell, [][2]string{{"b200", "b200_sxm"}, {"b300", "b300_sxm"}, {"gb200", "gb200"}}},
	}
	fittedShares := Defaults().Shares
	for _, gl := range gens {
		gen, list := gl.gen, gl.gpus
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, g := range list {
			gpu, err := hardware.LookupGPU(g[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, dt := range []string{"bf16", "fp8", "fp8_block", "nvfp4"} {
				sh, n := streamShare(rows, gpu, g[1], dt)
				if n == 0 {
					continue
				}
				if n < 50 || !(sh > 0.3 && sh < 1) {
					t.Errorf("%s %s: %d GEMMs, streaming share %.3f", g[0], dt, n, sh)
				}
				t.Logf("%-9s %-9s %3d GEMMs: %.3f of the HBM bandwidth", g[0], dt, n, sh)
				lo, hi = math.Min(lo, sh), math.Max(hi, sh)
			}
		}
		fit := fittedShares[gen].HBM
		t.Logf("%s: fitted HBM share %.3f, the streaming GEMMs %.3f to %.3f", gen, fit, lo, hi)
		if fit < lo || fit > hi {
			t.Errorf("%s: the fitted HBM share %.3f is outside what its decode-sized GEMMs reach (%.3f to %.3f)", gen, fit, lo, hi)
		}
	}
}
