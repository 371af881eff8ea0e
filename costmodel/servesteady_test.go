package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

func loadOf(t *testing.T, model, gpu string, tp int, w DType, l ServeLoad, eng string) *ServeLatency {
	t.Helper()
	m, err := LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	e, err := LookupEngine(eng)
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, gpu, tp)
	a := ServeAssumptions(DefaultAssumptions(), c.GPU)
	r, err := EstimateServeLoad(m, c, ServePlan{TP: tp, PP: 1, Replicas: 1, Weights: w, KV: DTypeBF16}, l, e, a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCycleStepRoot: the mean step solves tau = t0 + W lambda tau with
// lambda = R / (A + D tau), and is t0 without prefill work.
func TestCycleStepRoot(t *testing.T) {
	if got := cycleStep(0.01, 0, 32, 0.5, 1023); math.Abs(got-0.01) > 1e-15 {
		t.Errorf("no prefill work: tau %g, want t0 0.01", got)
	}
	t0, W, R, A, D := 0.012, 0.15, 64.0, 0.4, 1023.0
	tau := cycleStep(t0, W, R, A, D)
	if rhs := t0 + W*R/(A+D*tau)*tau; math.Abs(tau-rhs) > 1e-12 {
		t.Errorf("tau %g does not solve the fixed point (rhs %g)", tau, rhs)
	}
	if tau <= t0 {
		t.Errorf("prefill work must lengthen the mean step: %g <= %g", tau, t0)
	}
}

// TestDecodeStepBandwidth: a lone decode step of Llama 3.1 8B in bf16 on
// one H100 streams its 15.0 GB of non-embedding weights (plus a tiny
// cache) at the achieved bandwidth, 15.0e9 / (3.35e12 x share), plus
// the fixed launch of its 129 weight GEMM calls (4 a layer and the output
// layer, GEMMLaunch), and the engine's step overhead.
func TestDecodeStepBandwidth(t *testing.T) {
	r := loadOf(t, "llama3.1-8b", "h100-sxm", 1, DTypeBF16, ServeLoad{InputTokens: 128, OutputTokens: 128, Concurrency: 1}, "vllm")
	m, _ := LookupModel("llama3.1-8b")
	p := m.Params()
	calls := 32*4 + 1
	want := 2*(p.Total-p.Embedding)/(3.35e12*GenerationShares[Hopper].HBM) + float64(calls)*float64(GEMMLaunch(mustGPU(t, "h100-sxm")))
	if got := float64(r.Decode.Linear); !within(got, want, 0.01) || r.Decode.LinearCalls != calls {
		t.Errorf("decode linear %v in %d calls, want %.4g s in %d (weights / achieved bandwidth + the calls' launches)",
			r.Decode.Linear, r.Decode.LinearCalls, want, calls)
	}
	if r.Decode.Overhead != Engines["vllm"].StepOverhead {
		t.Errorf("overhead %v, want the preset's %v", r.Decode.Overhead, Engines["vllm"].StepOverhead)
	}
}

// TestLoadDirections: more concurrency lengthens TTFT and TPOT and
// raises throughput; a rate gives the concurrency by Little's law;
// asking more than the maximum rate says it is overloaded.
func TestLoadDirections(t *testing.T) {
	l := ServeLoad{InputTokens: 8192, OutputTokens: 1024, Concurrency: 4}
	lo := loadOf(t, "llama3.1-70b", "h100-sxm", 4, DTypeFP8, l, "vllm")
	l.Concurrency = 64
	hi := loadOf(t, "llama3.1-70b", "h100-sxm", 4, DTypeFP8, l, "vllm")
	if !(hi.TTFT > lo.TTFT && hi.TPOT > lo.TPOT && hi.TokensPerSecond > 4*lo.TokensPerSecond) {
		t.Errorf("c=4: TTFT %v TPOT %v %.0f tok/s; c=64: %v %v %.0f", lo.TTFT, lo.TPOT, lo.TokensPerSecond, hi.TTFT, hi.TPOT, hi.TokensPerSecond)
	}
	rate := ServeLoad{InputTokens: 8192, OutputTokens: 1024, Rate: hi.Rate / 2}
	r := loadOf(t, "llama3.1-70b", "h100-sxm", 4, DTypeFP8, rate, "vllm")
	little := r.Rate * float64(r.TTFT+1023*r.TPOT)
	if !within(r.Rate, rate.Rate, 1e-6) || !within(r.Concurrency, little, 0.02) {
		t.Errorf("rate %g (asked %g), concurrency %g, Little's law %g", r.Rate, rate.Rate, r.Concurrency, little)
	}
	rate.Rate = 10 * r.MaxRate
	over := loadOf(t, "llama3.1-70b", "h100-sxm", 4, DTypeFP8, rate, "vllm")
	if !over.Overloaded || !strings.Contains(strings.Join(over.Notes, ";"), "overloaded") {
		t.Errorf("10x the maximum rate: overloaded %v, notes %q", over.Overloaded, over.Notes)
	}
}

// TestAdmission: TensorRT-LLM reserves input + output per request, vLLM
// the mean length, so vLLM admits more sequences on the same memory;
// requests beyond the slots wait for one.
func TestAdmission(t *testing.T) {
	l := ServeLoad{InputTokens: 1024, OutputTokens: 8192, Concurrency: 512}
	trt := loadOf(t, "llama3.1-70b", "h200", 1, DTypeFP8, l, "trtllm")
	vllm := loadOf(t, "llama3.1-70b", "h200", 1, DTypeFP8, l, "vllm")
	if trt.AdmitTokens != 9216 || vllm.AdmitTokens != 1024+4096 || vllm.Slots <= trt.Slots {
		t.Errorf("trtllm admits %d at %.0f tokens, vllm %d at %.0f", trt.Slots, trt.AdmitTokens, vllm.Slots, vllm.AdmitTokens)
	}
	if trt.SlotWait <= 0 || trt.Running != float64(trt.Slots) {
		t.Errorf("512 requests on %d slots: slot wait %v, running %g", trt.Slots, trt.SlotWait, trt.Running)
	}
}

// TestFP4Weights: gpt-oss-120b in MXFP4 (4.25 bits a weight with its
// e8m0 scales) takes 117 B x 0.53125 = 62 GB, within 6% of the 60.8 GiB
// (65.3 GB) checkpoint of the model card (OpenAI 2025, "gpt-oss-120b &
// gpt-oss-20b Model Card", Table 1), whose attention stays in bf16; and
// the FP4 peak is used only where the GPU has FP4 tensor cores.
func TestFP4Weights(t *testing.T) {
	m, _ := LookupModel("gpt-oss-120b")
	r, err := EstimateServe(m, cluster(t, "h100-sxm", 1), ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 1024, Users: 1, Weights: DTypeMXFP4}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(r.Memory.Group(GroupStates)); !within(got, 60.8*float64(hardware.GiB), 0.06) {
		t.Errorf("gpt-oss-120b MXFP4 weights %v, want about 60.8 GiB", hardware.Bytes(got))
	}
	b200, _ := hardware.LookupGPU("b200")
	h100, _ := hardware.LookupGPU("h100-sxm")
	if weightPeak(b200, DTypeNVFP4) != 9000*hardware.TFLOPPerSecond || weightPeak(h100, DTypeMXFP4) != h100.PeakBF16*hardware.FLOPRate(h100.Sustained()) {
		t.Errorf("fp4 peaks: b200 %v, h100 %v", weightPeak(b200, DTypeNVFP4), weightPeak(h100, DTypeMXFP4))
	}
	if GenerationOf(b200) != Blackwell || GenerationOf(h100) != Hopper {
		t.Errorf("generations %s %s", GenerationOf(b200), GenerationOf(h100))
	}
}

// TestLoadErrors name the bad value.
func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		l    ServeLoad
		want string
	}{
		{ServeLoad{InputTokens: 0, OutputTokens: 1, Concurrency: 1}, "input tokens 0"},
		{ServeLoad{InputTokens: 10, OutputTokens: 0, Concurrency: 1}, "output tokens 0"},
		{ServeLoad{InputTokens: 10, OutputTokens: 10}, "give a concurrency or a rate"},
		{ServeLoad{InputTokens: 10, OutputTokens: 10, Concurrency: 1, Rate: 1}, "not both"},
	} {
		if err := tt.l.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.l, err, tt.want)
		}
	}
	if _, err := LookupEngine("tgi"); err == nil || !strings.Contains(err.Error(), "valid: sglang, trtllm, vllm") {
		t.Errorf("unknown engine: %v", err)
	}
}

// launchPair estimates Llama 3.1 8B on one H100 under vLLM (512 + 128
// tokens, 4 in flight) with the preset and with set applied to it.
func launchPair(t *testing.T, set func(*Engine)) (with, changed *ServeLatency) {
	t.Helper()
	m, _ := LookupModel("llama3.1-8b")
	c := cluster(t, "h100-sxm", 1)
	s := ServePlan{TP: 1, PP: 1, Replicas: 1, Weights: DTypeBF16, KV: DTypeBF16}
	l := ServeLoad{InputTokens: 512, OutputTokens: 128, Concurrency: 4}
	e := Engines["vllm"]
	with, err := EstimateServeLoad(m, c, s, l, e, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	set(&e)
	changed, err = EstimateServeLoad(m, c, s, l, e, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	return with, changed
}

// TestNoCUDAGraphs: without graphs each of a layer's ten kernels costs
// one launch, 10 x 32 x 4 µs = 1.28 ms per step for Llama 3.1 8B.
func TestNoCUDAGraphs(t *testing.T) {
	with, without := launchPair(t, func(e *Engine) { e.CUDAGraphs = false })
	if d := float64(without.Decode.Overhead - with.Decode.Overhead); !within(d, 1.28e-3, 1e-9) {
		t.Errorf("launch cost per step %.4g s, want 1.28 ms", d)
	}
}

// TestDecodeOnlyGraphs: with graphs for the decode-only steps alone
// (vLLM's FULL_DECODE_ONLY) a step with a prefill chunk pays the ten
// launches per layer, 1.28 ms for Llama 3.1 8B, and a decode step none.
func TestDecodeOnlyGraphs(t *testing.T) {
	with, decodeOnly := launchPair(t, func(e *Engine) { e.DecodeOnlyGraphs = true })
	if d := float64(decodeOnly.Chunked.Overhead - with.Chunked.Overhead); !within(d, 1.28e-3, 1e-9) {
		t.Errorf("launch cost of a mixed step %.4g s, want 1.28 ms", d)
	}
	if decodeOnly.Decode.Overhead != with.Decode.Overhead {
		t.Errorf("decode step overhead %v, want the graphed %v", decodeOnly.Decode.Overhead, with.Decode.Overhead)
	}
}
