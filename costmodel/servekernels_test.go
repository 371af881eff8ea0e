package costmodel

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestServeKernelShares: Hopper and Blackwell GPUs take the measured
// kernel shares, the weight and expert GEMMs' by format
// (MeasuredKernelShares);
// Ampere keeps its fitted FLOP share for GEMMs and attention alike.
func TestServeKernelShares(t *testing.T) {
	for _, c := range []struct {
		gpu                  string
		w                    DType
		gemm, moe, attention float64
	}{
		{"h100-sxm", DTypeBF16, 0.937, 0.521, 0.542},
		{"h200", DTypeFP8, 0.753, 0.463, 0.542},
		{"h200", DTypeMXFP4, 0.937, 0.521, 0.542}, // dequantized to bf16 (weightPeak)
		{"b200", DTypeNVFP4, 0.359, 0.162, 0.395},
		{"gb200", DTypeFP8, 0.536, 0.314, 0.395},
		{"b300", DTypeInt4, 0.662, 0.417, 0.395},
		{"h100-sxm", DTypeFP8Block, 0.674, 0.267, 0.542},
		{"gb200", DTypeFP8Block, 0.590, 0.297, 0.395},
		{"a100-80gb", DTypeFP8, 0.65, 0.65, 0.65},
	} {
		g, err := hardware.LookupGPU(c.gpu)
		if err != nil {
			t.Fatal(err)
		}
		a := ServeAssumptions(DefaultAssumptions(), g)
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		if gemm, moe, att := a.computeShares(c.w); gemm != c.gemm || moe != c.moe || att != c.attention {
			t.Errorf("%s %v: GEMM share %g, MoE %g, attention %g; want %g, %g, %g", c.gpu, c.w, gemm, moe, att, c.gemm, c.moe, c.attention)
		}
	}
	a := DefaultAssumptions()
	a.ServeKernels = KernelShares{BF16: 1.2, FP8: 0.5, Attention: 0.5}
	if a.Validate() == nil {
		t.Error("a GEMM share of 1.2 passed validation")
	}
}

// TestRoutedFLOPs: Qwen3-235B-A22B routes each token to 8 experts of
// three 4096 x 1536 matrices, 302 MFLOP per MoE layer (config.json:
// num_experts_per_tok 8, moe_intermediate_size 1536, hidden_size 4096);
// a dense model routes none.
func TestRoutedFLOPs(t *testing.T) {
	m, err := LookupModel("qwen3-235b-a22b")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.routedFLOPsPerToken(), 2*8*3*4096*1536.0; got != want {
		t.Errorf("routed FLOPs per token and layer %g, want %g", got, want)
	}
	d, err := LookupModel("llama3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.routedFLOPsPerToken(); got != 0 {
		t.Errorf("dense model: %g routed FLOPs", got)
	}
}

// TestMeasuredKernelSharesReproduce recomputes MeasuredKernelShares'
// GEMM shares from the subsample of the same AIConfigurator timings
// kept for the efficiency curves (efficiency/testdata/gemm.csv: the
// products with m >= 2048 and n, k >= 4096, mean TFLOP/s over the peak
// at the sustained clock, averaged over the generation's GPUs). The
// subsample is 180 of the 477 shapes per GPU and format, so it is held
// to 5%.
func TestMeasuredKernelSharesReproduce(t *testing.T) {
	type key struct {
		gen    Generation
		format string
	}
	perGPU := map[string]map[string][]float64{}
	for _, r := range readTestCSV(t, "efficiency/testdata/gemm.csv") {
		name, ok := moeLayerGPUs[r[0]]
		m, n, k := atof(t, r[2]), atof(t, r[3]), atof(t, r[4])
		if !ok || m < 2048 || n < 4096 || k < 4096 {
			continue
		}
		g := mustGPU(t, name)
		peak := map[string]float64{"bf16": float64(g.PeakBF16), "fp8": float64(g.PeakFP8), "fp8_block": float64(g.PeakFP8),
			"nvfp4": float64(FP4Peak(g))}[r[1]]
		if peak == 0 {
			continue
		}
		if perGPU[name] == nil {
			perGPU[name] = map[string][]float64{}
		}
		share := 2 * m * n * k / (atof(t, r[5]) * 1e-3) / (peak * g.Sustained())
		perGPU[name][r[1]] = append(perGPU[name][r[1]], share)
	}
	means := map[key][]float64{}
	for name, byFormat := range perGPU {
		gen := GenerationOf(mustGPU(t, name))
		for f, xs := range byFormat {
			sum := 0.0
			for _, x := range xs {
				sum += x
			}
			means[key{gen, f}] = append(means[key{gen, f}], sum/float64(len(xs)))
		}
	}
	for gen, k := range MeasuredKernelShares {
		for f, want := range map[string]float64{"bf16": k.BF16, "fp8": k.FP8, "fp8_block": k.FP8Block, "nvfp4": k.FP4} {
			xs := means[key{gen, f}]
			if want == 0 || len(xs) == 0 {
				continue
			}
			got := 0.0
			for _, x := range xs {
				got += x / float64(len(xs))
			}
			t.Logf("%v %s: %.3f from the subsample, %.3f in MeasuredKernelShares", gen, f, got, want)
			if math.Abs(got/want-1) > 0.05 {
				t.Errorf("%v %s GEMM share %.3f from the subsample, %.3f in MeasuredKernelShares", gen, f, got, want)
			}
		}
	}
}

// TestFP8BlockWeights: fp8-block stores one byte a weight and one fp32
// scale per 128 x 128 block, lists the scales in the inventory, runs on
// the fp8 tensor cores, and its prefill on Hopper is slower than
// per-tensor fp8's (its measured GEMMs reach 0.674 of the peak, not
// 0.753) while its decode reads about the same bytes.
func TestFP8BlockWeights(t *testing.T) {
	d, err := ParseDType("fp8-block")
	if err != nil || d != DTypeFP8Block || d.String() != "fp8-block" || !d.IsFP8() {
		t.Fatalf("ParseDType(fp8-block) = %v, %v", d, err)
	}
	if got, want := weightBytesPerParam(d), 1+4.0/16384; got != want {
		t.Errorf("bytes per weight %g, want %g", got, want)
	}
	m, err := LookupModel("qwen3-32b")
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, "h100-sxm", 1)
	a := ServeAssumptions(DefaultAssumptions(), c.GPU)
	l := ServeLoad{InputTokens: 4096, OutputTokens: 256, Concurrency: 8}
	e := Engines["vllm"]
	run := func(w DType) *ServeLatency {
		r, err := EstimateServeLoad(m, c, ServePlan{TP: 1, PP: 1, Replicas: 1, Weights: w, KV: DTypeBF16}, l, e, a)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fp8, block := run(DTypeFP8), run(DTypeFP8Block)
	if !(block.Prefill > fp8.Prefill) || math.Abs(float64(block.Decode.Total/fp8.Decode.Total)-1) > 0.01 {
		t.Errorf("prefill %v against fp8's %v (want slower); decode %v against %v (want within 1%%)", block.Prefill, fp8.Prefill, block.Decode.Total, fp8.Decode.Total)
	}
	r, err := EstimateServe(m, c, ServePlan{TP: 1, PP: 1, Replicas: 1, Users: 1, Context: 4096, Weights: d, KV: DTypeBF16}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range r.Memory.Lines {
		found = found || line.Name == "fp8-block block scales"
	}
	if !found {
		t.Error("no fp8-block block scales line in the inventory")
	}
	if _, err := EstimateServe(m, c, ServePlan{TP: 1, PP: 1, Replicas: 1, Users: 1, Context: 4096, Weights: DTypeBF16, KV: DTypeFP8Block}, DefaultAssumptions()); err == nil {
		t.Error("an fp8-block KV cache passed validation")
	}
}
