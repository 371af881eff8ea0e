package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// disaggOf estimates np prefill workers of tp ptp and nd decode workers
// of tp dtp serving model on gpu.
func disaggOf(t *testing.T, model, gpu string, ptp, np, dtp, nd int, l ServeLoad) *DisaggLatency {
	t.Helper()
	m, err := LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	g, e := mustGPU(t, gpu), Engines["vllm"]
	a := ServeAssumptions(DefaultAssumptions(), g)
	d := DisaggPlan{Prefill: ServePlan{TP: ptp, PP: 1, Replicas: np}, Decode: ServePlan{TP: dtp, PP: 1, Replicas: nd}}
	r, err := EstimateDisaggregated(m, g, 0, d, l, e, a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var longPrompts = ServeLoad{InputTokens: 8192, OutputTokens: 1024, Rate: 10}

// TestDisaggKVBytes: Llama 3.1 70B keeps 2 x 80 layers x 8 KV heads x
// 128 x 2 bytes = 327,680 bytes per token in bf16 (Pope et al. 2022,
// sec. 2), so an 8,192-token prompt is 2,684,354,560 bytes; on tp 8 each
// GPU holds one KV head of every layer, 1/8 of it.
func TestDisaggKVBytes(t *testing.T) {
	r := disaggOf(t, "llama3.1-70b", "h100", 8, 4, 8, 2, longPrompts)
	if want := hardware.Bytes(8192 * 327680); r.Transfer.Bytes != want {
		t.Errorf("KV of the prompt %v, want %v", float64(r.Transfer.Bytes), float64(want))
	}
	if want := hardware.Bytes(8192 * 327680 / 8); r.Transfer.SendPerGPU != want || r.Transfer.ReceivePerGPU != want {
		t.Errorf("shards %v / %v, want %v", float64(r.Transfer.SendPerGPU), float64(r.Transfer.ReceivePerGPU), float64(want))
	}
	// tp 4 sends twice the bytes per GPU that tp 8 receives.
	r = disaggOf(t, "llama3.1-70b", "h100", 4, 8, 8, 2, longPrompts)
	if r.Transfer.SendPerGPU != 2*r.Transfer.ReceivePerGPU {
		t.Errorf("tp4 -> tp8: send %v, receive %v per GPU", r.Transfer.SendPerGPU, r.Transfer.ReceivePerGPU)
	}
}

// TestDisaggTransferLink: 48 GPUs of GB200 fit one NVL72 rack, so the KV
// cache moves over NVLink at 900 GB/s x 0.8 per GPU; on H100 nodes of 8
// the same pools talk over the 400 Gb/s network.
func TestDisaggTransferLink(t *testing.T) {
	nvl := disaggOf(t, "llama3.1-70b", "gb200", 8, 3, 8, 3, longPrompts)
	net := disaggOf(t, "llama3.1-70b", "h100", 8, 3, 8, 3, longPrompts)
	if !nvl.Transfer.ScaleUp || net.Transfer.ScaleUp {
		t.Fatalf("scale-up: gb200 %v, h100 %v", nvl.Transfer.ScaleUp, net.Transfer.ScaleUp)
	}
	shard := 8192.0 * 327680 / 8
	a := DefaultAssumptions()
	if want := float64(a.ServeAllReduceLatency) + shard/(900e9*a.ServeLinkEfficiency); math.Abs(float64(nvl.Transfer.Time)-want) > 1e-12 {
		t.Errorf("NVLink transfer %v, want %g s", nvl.Transfer.Time, want)
	}
	if want := float64(a.ServeNetworkLatency) + shard/(50e9*a.ServeLinkEfficiency); math.Abs(float64(net.Transfer.Time)-want) > 1e-12 {
		t.Errorf("network transfer %v, want %g s", net.Transfer.Time, want)
	}
	// 5 + 5 tp8 workers on GB200 span 80 GPUs, more than a rack.
	if far := disaggOf(t, "llama3.1-70b", "gb200", 8, 5, 8, 5, longPrompts); far.Transfer.ScaleUp {
		t.Error("80 GPUs do not fit one 72-GPU NVLink domain")
	}
}

// TestDisaggLittlesLaw: the decode fixed point holds B = lambda x
// (output - 1) x TPOT(B) per worker, and TPOT is the decode step at B.
func TestDisaggLittlesLaw(t *testing.T) {
	r := disaggOf(t, "llama3.1-70b", "h100", 8, 4, 8, 3, longPrompts)
	d := r.Decode
	if want := d.Rate * 1023 * float64(d.TPOT); math.Abs(d.Batch-want) > 1e-6*want {
		t.Errorf("batch %g, Little's law gives %g", d.Batch, want)
	}
	if math.Abs(d.Rate-10.0/3) > 1e-12 || r.TPOT != d.Step.Total || d.SlotLimited {
		t.Errorf("rate per worker %g, TPOT %v vs step %v, slot-limited %v", d.Rate, r.TPOT, d.Step.Total, d.SlotLimited)
	}
	if want := r.Rate * float64(r.TTFT+1023*r.TPOT); math.Abs(r.Concurrency-want) > 1e-9*want {
		t.Errorf("concurrency %g, want %g", r.Concurrency, want)
	}
}

// TestDisaggTTFTBreakdown: TTFT is the request overhead, the queue, the
// prefill and the transfer, and the prefill of a lone 8,192-token prompt
// is one step of the budget's 8,192 tokens.
func TestDisaggTTFTBreakdown(t *testing.T) {
	r := disaggOf(t, "llama3.1-70b", "h100", 8, 4, 8, 3, longPrompts)
	sum := r.RequestOverhead + r.SlotWait + r.QueueWait + r.PrefillTime + r.KVTime
	if math.Abs(float64(r.TTFT-sum)) > 1e-12 || math.Abs(float64(r.PrefillTTFT+r.KVTime-r.TTFT)) > 1e-12 {
		t.Errorf("TTFT %v != %v", r.TTFT, sum)
	}
	p := r.Prefill
	if p.Batch != 1 || p.MaxBatch != 1 || p.Chunks != 1 || p.Step.DecodeAttention != 0 || math.Abs(p.Utilization-2.5*float64(p.Service)) > 1e-12 {
		t.Errorf("prefill %+v", p)
	}
}

// TestDisaggMorePrefillWorkers: more prefill workers never raise TTFT
// (on one side of the NVLink boundary, here the network).
func TestDisaggMorePrefillWorkers(t *testing.T) {
	prev := hardware.Seconds(math.Inf(1))
	for np := 2; np <= 12; np++ {
		r := disaggOf(t, "llama3.1-70b", "h100", 8, np, 8, 3, longPrompts)
		if r.TTFT > prev {
			t.Errorf("%d prefill workers: TTFT %v above %v with one fewer", np, r.TTFT, prev)
		}
		prev = r.TTFT
	}
}

// TestDisaggOverloadedPrefill: one tp8 prefill worker cannot take 10
// prompts of 8,192 tokens a second (each about a third of a second):
// the result says so.
func TestDisaggOverloadedPrefill(t *testing.T) {
	r := disaggOf(t, "llama3.1-70b", "h100", 8, 1, 8, 3, longPrompts)
	if !r.Overloaded || !r.Prefill.Overloaded || r.MaxRate >= 10 || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "prefill pool overloaded") {
		t.Errorf("overloaded %v/%v, max rate %g, notes %q", r.Overloaded, r.Prefill.Overloaded, r.MaxRate, r.Notes)
	}
}

// TestDisaggSlotLimitedDecode: one tp8 decode worker at 40 requests/s
// needs more sequences than its cache holds: overloaded, said so.
func TestDisaggSlotLimitedDecode(t *testing.T) {
	l := longPrompts
	l.Rate = 40
	r := disaggOf(t, "llama3.1-70b", "h100", 8, 20, 8, 1, l)
	if !r.Decode.SlotLimited || !r.Overloaded || r.Decode.Batch != float64(r.Decode.Slots) {
		t.Errorf("decode %+v", r.Decode)
	}
	found := false
	for _, n := range r.Notes {
		found = found || strings.Contains(n, "decode pool overloaded")
	}
	if !found {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestDisaggConcurrency: a closed loop of C requests runs at the rate
// whose Little's-law concurrency is C.
func TestDisaggConcurrency(t *testing.T) {
	l := ServeLoad{InputTokens: 2048, OutputTokens: 512, Concurrency: 64}
	r := disaggOf(t, "llama3.1-8b", "h100", 1, 2, 1, 2, l)
	if math.Abs(r.Concurrency-64) > 1e-6 || r.Rate <= 0 || r.SlotWait != 0 {
		t.Errorf("concurrency %g at rate %g, slot wait %v", r.Concurrency, r.Rate, r.SlotWait)
	}
}

// TestDisaggShortPromptsBatch: prompts of 512 tokens share the 8,192
// token budget, up to 16 a step, and a heavier load batches more (80/s, below the about 110/s
// that full batches of 16 sustain).
func TestDisaggShortPromptsBatch(t *testing.T) {
	l := ServeLoad{InputTokens: 512, OutputTokens: 128, Rate: 5}
	lo := disaggOf(t, "llama3.1-8b", "h100", 1, 1, 1, 4, l)
	l.Rate = 80
	hi := disaggOf(t, "llama3.1-8b", "h100", 1, 1, 1, 4, l)
	if lo.Prefill.MaxBatch != 16 || lo.Prefill.Batch < 1 || hi.Prefill.Batch <= lo.Prefill.Batch || hi.Prefill.Overloaded {
		t.Errorf("batches %d (max %d) at 5/s, %d at 80/s (overloaded %v)", lo.Prefill.Batch, lo.Prefill.MaxBatch, hi.Prefill.Batch, hi.Prefill.Overloaded)
	}
}

// TestDisaggBadPlans: a pool with no workers is an error naming it.
func TestDisaggBadPlans(t *testing.T) {
	m, _ := LookupModel("llama3.1-70b")
	g, _ := hardware.LookupGPU("h100")
	e, _ := LookupEngine("vllm")
	d := DisaggPlan{Prefill: ServePlan{TP: 8, PP: 1, Replicas: 0}, Decode: ServePlan{TP: 8, PP: 1, Replicas: 1}}
	if _, err := EstimateDisaggregated(m, g, 0, d, longPrompts, e, DefaultAssumptions()); err == nil || !strings.Contains(err.Error(), "0 prefill") {
		t.Errorf("no prefill workers: %v", err)
	}
	d.Prefill.Replicas, d.Decode.TP = 1, 3
	if _, err := EstimateDisaggregated(m, g, 0, d, longPrompts, e, DefaultAssumptions()); err == nil || !strings.Contains(err.Error(), "decode pool") {
		t.Errorf("tp 3 decode: %v", err)
	}
}
