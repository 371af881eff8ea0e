package costmodel

import (
	"math"
	"testing"
)

func speed(t *testing.T, model, gpu string, gpus int, s ServePlan, a Assumptions) ServeSpeed {
	t.Helper()
	m, err := LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if s.PP == 0 {
		s.PP = 1
	}
	s.Replicas = gpus / (s.TP * s.PP)
	v, err := EstimateServeSpeed(m, cluster(t, gpu, gpus), s, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDecodeBandwidthBound: Llama 3.1 8B in bf16 on one H100 at batch 1
// cannot beat HBM bandwidth / weight bytes: 3.35e12 / 16.06e9 = 209
// tokens/s with every weight read. The embedding table is only looked up,
// so the bytes a step streams are the 15.5 GB of the other weights plus
// the 0.54 GB cache of a 4,096-token sequence: at full bandwidth exactly
// 3.35e12 / 16.07e9 = 208 tokens/s, and less at the assumed efficiency.
func TestDecodeBandwidthBound(t *testing.T) {
	s := ServePlan{TP: 1, Context: 4096, Users: 1}
	def := speed(t, "llama3.1-8b", "h100-sxm", 1, s, DefaultAssumptions())
	if def.TokensPerSecondPerUser >= 3.35e12/16.06e9 {
		t.Errorf("%.1f tokens/s beats the 209 tokens/s bandwidth bound", def.TokensPerSecondPerUser)
	}
	ideal := DefaultAssumptions()
	ideal.ServeHBMEfficiency = 1
	v := speed(t, "llama3.1-8b", "h100-sxm", 1, s, ideal)
	m, _ := LookupModel("llama3.1-8b")
	p := m.Params()
	streamed := 2*(p.Total-p.Embedding) + float64(m.KVPerToken(DTypeBF16))*4096
	if want := 3.35e12 / streamed; !within(v.TokensPerSecondPerUser, want, 0.001) {
		t.Errorf("at full bandwidth %.2f tokens/s, want %.2f (= 3.35e12 / %.4g bytes)", v.TokensPerSecondPerUser, want, streamed)
	}
	if !v.Decode.MemoryBound || v.Decode.Compute > v.Decode.Memory/50 {
		t.Errorf("batch-1 decode should be memory-bound by far: memory %v, compute %v", v.Decode.Memory, v.Decode.Compute)
	}
	if r := def.TokensPerSecondPerUser / v.TokensPerSecondPerUser; !within(r, DefaultAssumptions().ServeHBMEfficiency, 0.001) {
		t.Errorf("default/ideal speed %.4f, want the HBM efficiency", r)
	}
}

// TestDecodeDirections: the decode step grows with the batch but the
// total throughput grows faster; fp8 and int4 weights stream fewer bytes;
// tensor parallelism splits the bytes but adds all-reduces; a pipeline
// stage costs a hand-off. Llama 3 70B at 8,192 tokens.
func TestDecodeDirections(t *testing.T) {
	a := DefaultAssumptions()
	base := ServePlan{TP: 8, Context: 8192, Users: 1}
	one := speed(t, "llama3-70b", "h100-sxm", 8, base, a)
	b := base
	b.Users = 32
	many := speed(t, "llama3-70b", "h100-sxm", 8, b, a)
	if !(many.TimePerOutputToken > one.TimePerOutputToken && many.TokensPerSecond > 10*one.TokensPerSecond) {
		t.Errorf("batch 32: step %v (batch 1: %v), %.0f tokens/s (batch 1: %.0f)", many.TimePerOutputToken, one.TimePerOutputToken, many.TokensPerSecond, one.TokensPerSecond)
	}
	prev := one.TimePerOutputToken
	for _, w := range []DType{DTypeFP8, DTypeInt4} {
		q := base
		q.Weights = w
		if v := speed(t, "llama3-70b", "h100-sxm", 8, q, a); v.TimePerOutputToken >= prev {
			t.Errorf("%v weights: %v per token, not below %v", w, v.TimePerOutputToken, prev)
		} else {
			prev = v.TimePerOutputToken
		}
	}
	// 16 layers' all-reduces: 161 x (10 µs + 1.75 x 16 kB / 360 GB/s).
	if want := 161 * (10e-6 + 1.75*16384/360e9); !within(float64(one.Decode.TensorParallel), want, 0.01) {
		t.Errorf("tp all-reduces %v, want %.4g s", one.Decode.TensorParallel, want)
	}
	pp := ServePlan{TP: 8, PP: 2, Context: 8192, Users: 1}
	two := speed(t, "llama3-70b", "h100-sxm", 16, pp, a)
	if want := 20e-6 + 16384/(50e9*0.8); !within(float64(two.Decode.Pipeline), want, 0.001) {
		t.Errorf("one network hand-off %v, want %.4g s", two.Decode.Pipeline, want)
	}
}

// TestComputeBoundBatch: with every weight read once per step, decode
// turns compute-bound when the batch reaches the GPU's ops:byte ratio
// (2 FLOPs per parameter per token over 2 bytes per bf16 parameter):
// 312 TFLOP/s / 1.5 TB/s = 208 for an A100 in Kipply's "Transformer
// Inference Arithmetic" (2022); 312 / 1.555 = 200.6 with the catalog's
// A100-40GB figure. The KV cache of a long context adds bytes as fast as
// FLOPs, so Llama 3 70B at 8,192 tokens never turns compute-bound.
func TestComputeBoundBatch(t *testing.T) {
	ideal := DefaultAssumptions()
	ideal.ServeHBMEfficiency, ideal.ServeFLOPEfficiency = 1, 1
	v := speed(t, "llama3-70b", "a100-40gb", 8, ServePlan{TP: 8, Context: 1, Users: 1}, ideal)
	if !within(v.ComputeBoundBatchShort, 312/1.555, 0.01) || !within(v.ComputeBoundBatch, v.ComputeBoundBatchShort, 0.01) {
		t.Errorf("crossover %.1f (short %.1f), want about %.1f", v.ComputeBoundBatch, v.ComputeBoundBatchShort, 312/1.555)
	}
	if !within(v.OpsPerByte, 312/1.555, 1e-9) {
		t.Errorf("ops:byte %.2f", v.OpsPerByte)
	}
	long := speed(t, "llama3-70b", "h100-sxm", 8, ServePlan{TP: 8, Context: 8192, Users: 1}, DefaultAssumptions())
	if long.ComputeBoundBatch != 0 {
		t.Errorf("70B at 8,192 tokens turns compute-bound at batch %.0f; the GQA cache keeps it memory-bound", long.ComputeBoundBatch)
	}
	// fp8 halves the bytes and doubles the peak: the same crossover.
	f := speed(t, "llama3-70b", "h100-sxm", 8, ServePlan{TP: 8, Context: 1, Users: 1, Weights: DTypeFP8}, ideal)
	b := speed(t, "llama3-70b", "h100-sxm", 8, ServePlan{TP: 8, Context: 1, Users: 1}, ideal)
	// The H100 holds 82% of its datasheet peak under load (hardware catalog).
	h100 := 989 * 0.82 / 3.35
	if !within(f.ComputeBoundBatchShort, b.ComputeBoundBatchShort, 0.01) || !within(b.ComputeBoundBatchShort, h100, 0.01) {
		t.Errorf("h100 crossover bf16 %.1f, fp8 %.1f, want about %.1f", b.ComputeBoundBatchShort, f.ComputeBoundBatchShort, h100)
	}
	// A batch past the crossover runs compute-bound.
	big := speed(t, "llama3-70b", "a100-40gb", 8, ServePlan{TP: 8, Context: 1, Users: 400}, ideal)
	if big.Decode.MemoryBound {
		t.Errorf("batch 400 past the crossover of %.0f is still memory-bound", v.ComputeBoundBatch)
	}
}

// TestPrefill: time to first token is at least the prompt's FLOPs over
// the tensor-core peak, and prefillFLOPs agrees with summing the decode
// FLOPs of every position (sliding windows included).
func TestPrefill(t *testing.T) {
	a := DefaultAssumptions()
	v := speed(t, "llama3-70b", "h100-sxm", 8, ServePlan{TP: 8, Context: 8192, Users: 1}, a)
	m, _ := LookupModel("llama3-70b")
	floor := m.prefillFLOPs(8192) / (8 * 989e12)
	if float64(v.TimeToFirstToken) < floor/a.ServeFLOPEfficiency || v.Prefill.MemoryBound {
		t.Errorf("TTFT %v below the compute floor %.3g s at %.2f efficiency", v.TimeToFirstToken, floor/a.ServeFLOPEfficiency, a.ServeFLOPEfficiency)
	}
	for _, name := range []string{"llama3.1-8b", "mistral-7b", "gpt-oss-20b"} {
		m, _ := LookupModel(name)
		n := 5000
		logits := 2 * float64(m.Vocab) * float64(m.Hidden)
		var sum float64
		for i := 1; i <= n; i++ {
			sum += m.decodeFLOPsPerToken(i) - logits
		}
		sum += logits
		if got := m.prefillFLOPs(n); !within(got, sum, 1e-9) {
			t.Errorf("%s: prefill %.6g FLOPs, sum of decode steps %.6g", name, got, sum)
		}
	}
}

// TestMoEReadsRoutedExperts: at batch 1 a decode step of Qwen3-30B-A3B
// streams about its 3.35B active parameters, not its 30.5B; a large batch
// touches every expert.
func TestMoEReadsRoutedExperts(t *testing.T) {
	m, _ := LookupModel("qwen3-30b-a3b")
	s := ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 1, Users: 1}
	layout, _ := (Plan{TP: 1, PP: 1, VPP: 1}).balanceLayers(m.Layers)
	e := speedModel{m: m, s: s, layout: layout}
	g := serveStage(m, s, layout, 0)
	p := m.Params()
	active := p.Active - p.Embedding
	if got := e.weightsRead(g, 1); !within(got, active, 0.001) {
		t.Errorf("batch 1 reads %.4g params, want the %.4g active", got, active)
	}
	if got := e.weightsRead(g, 4096); !within(got, p.Total-p.Embedding, 0.001) {
		t.Errorf("4,096 tokens read %.4g params, want all %.4g", got, p.Total-p.Embedding)
	}
}

// TestServeSpeedDeterministicAndFinite guards the JSON encoder: no NaN or
// infinity leaves the speed model.
func TestServeSpeedDeterministicAndFinite(t *testing.T) {
	for _, name := range []string{"llama3.1-8b", "deepseek-v3", "mistral-7b", "gpt-oss-120b", "gpt3-175b"} {
		s := ServePlan{TP: 8, Context: 32768, Users: 3, BlockTokens: 16}
		a := speed(t, name, "b200", 8, s, DefaultAssumptions())
		b := speed(t, name, "b200", 8, s, DefaultAssumptions())
		if a != b {
			t.Errorf("%s: two runs differ", name)
		}
		for _, x := range []float64{a.TokensPerSecond, a.ComputeBoundBatch, a.ComputeBoundBatchShort, float64(a.TimeToFirstToken), float64(a.TimePerOutputToken)} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				t.Errorf("%s: non-finite or negative value %v in %+v", name, x, a)
			}
		}
	}
}

// BenchmarkEstimateServeSpeed times the speed of one layout: Llama 3.1
// 405B on 16 H100s, tp8-pp2, 16 users of 8,192 tokens.
func BenchmarkEstimateServeSpeed(b *testing.B) {
	m, _ := LookupModel("llama3.1-405b")
	c := cluster(b, "h100-sxm", 16)
	s := ServePlan{TP: 8, PP: 2, Replicas: 1, Context: 8192, Users: 16, BlockTokens: 16}
	a := DefaultAssumptions()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EstimateServeSpeed(m, c, s, a); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMoEReadsBusiestRank: with DeepSeek-V3's experts split over ep 8
// (tp 8), a 4-token decode step reads on each GPU the experts of the
// busiest rank (busiestRankExperts), more than the mean rank's, and
// every local expert at a large batch.
func TestMoEReadsBusiestRank(t *testing.T) {
	m, _, s := dsServe(t, 8, 1, 8)
	layout, _ := (Plan{TP: 8, PP: 1, VPP: 1}).balanceLayers(m.Layers)
	e := speedModel{m: m, s: s, layout: layout}
	g := serveStage(m, s, layout, 0)
	moe := float64(g.moe)
	q := 1 - math.Pow(1-8.0/256, 4)
	local := float64(m.MoE.Experts / 8)
	all := e.weightsRead(g, math.MaxInt32)
	want := all - moe*(1-busiestRankExperts(32, q, 8)/local)*m.routedParams(s)
	if got := e.weightsRead(g, 4); !within(got, want, 1e-9) {
		t.Errorf("ep 8, 4 tokens: %.5g params read, want %.5g (the busiest rank's experts)", got, want)
	}
	mean := all - moe*(1-q)*m.routedParams(s)
	if !(want > mean*1.1) {
		t.Errorf("the busiest rank's read %.5g is not well above the mean rank's %.5g", want, mean)
	}
	if got := e.weightsRead(g, 4096); !within(got, all, 1e-9) {
		t.Errorf("4,096 tokens read %.5g params, want every local expert's %.5g", got, all)
	}
}
