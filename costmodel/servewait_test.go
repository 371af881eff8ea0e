package costmodel

import (
	"math"
	"testing"
)

// TestBatchWaitRules checks batchWait against hand-computed waits.
func TestBatchWaitRules(t *testing.T) {
	e := Engine{BatchWaitIters: 20, BatchWaitTokenRatio: 0.9, ChunkTokens: 16384}
	// Timeout: 20 steps of 10 ms; 0.5 prompts/s arrive 0.1 in the wait:
	// 0.2 x (1 + 0.05) / 1.1.
	if got, want := e.batchWait(0.01, 0.5, 16, 1024, 1), 0.2*1.05/1.1; math.Abs(got-want) > 1e-12 {
		t.Errorf("timeout wait %g, want %g", got, want)
	}
	// Token threshold: ceil((14745.6 - 16) / 1024) = 15 prompts, the 14
	// others at 200/s arrive in 70 ms, before the 200 ms timeout.
	tFill := 14.0 / 200
	if got, want := e.batchWait(0.01, 200, 16, 1024, 1), tFill*(1+200*tFill/2)/(1+200*tFill); math.Abs(got-want) > 1e-12 {
		t.Errorf("threshold wait %g, want %g", got, want)
	}
	// One prompt that fills the threshold, no decode, or the rule off:
	// no wait.
	if got := e.batchWait(0.01, 0.5, 16, 16384, 1); got != 0 {
		t.Errorf("a prompt of the whole budget waits %g", got)
	}
	if got := e.batchWait(0.01, 0.5, 0, 1024, 1); got != 0 {
		t.Errorf("an idle engine waits %g", got)
	}
	if got := (Engine{ChunkTokens: 8192}).batchWait(0.01, 0.5, 16, 1024, 1); got != 0 {
		t.Errorf("the default engine waits %g", got)
	}
	// Attention-DP balance, 8 ranks at 0.25 prompts/s each: the other 7
	// prompts of the 2/s over the group arrive in 3.5 s, after the 60
	// steps of 20 ms (1.2 s).
	b := Engine{ADPBalanceIters: 60}
	x := 8 * 0.25 * 1.2
	if got, want := b.batchWait(0.02, 0.25, 16, 1024, 8), 1.2*(1+x/2)/(1+x); math.Abs(got-want) > 1e-12 {
		t.Errorf("balance wait %g, want %g", got, want)
	}
	if got := b.batchWait(0.02, 0.25, 16, 1024, 1); got != 0 {
		t.Errorf("balance without attention DP waits %g", got)
	}
}

// TestRecvWait: polling every 30 decode steps of 10 ms waits 14.5 steps
// beyond the step under way; every step (0 or 1) waits nothing more.
func TestRecvWait(t *testing.T) {
	if got := (Engine{RecvInterval: 30}).batchWait(0.01, 1, 8, 1024, 1); math.Abs(got-0.145) > 1e-12 {
		t.Errorf("interval 30: wait %g, want 0.145", got)
	}
	for _, n := range []int{0, 1} {
		if got := (Engine{RecvInterval: n}).batchWait(0.01, 1, 8, 1024, 1); got != 0 {
			t.Errorf("interval %d: wait %g", n, got)
		}
	}
}

// TestFP8KVAtBF16: the fp8 cache read at the bf16 cost doubles the
// decode attention's bytes, and only for an fp8 cache.
func TestFP8KVAtBF16(t *testing.T) {
	e := Engine{FP8KVAtBF16: true}
	if e.kvReadScale(DTypeFP8) != 2 || e.kvReadScale(DTypeBF16) != 1 || (Engine{}).kvReadScale(DTypeFP8) != 1 {
		t.Errorf("read scales %g %g %g, want 2 1 1", e.kvReadScale(DTypeFP8), e.kvReadScale(DTypeBF16), (Engine{}).kvReadScale(DTypeFP8))
	}
}

// TestBatchWaitInTTFT: the wait is part of the steady TTFT, and holding
// prompts back longer never shortens it.
func TestBatchWaitInTTFT(t *testing.T) {
	l := ServeLoad{InputTokens: 1024, OutputTokens: 1024, Concurrency: 16}
	m, err := LookupModel("llama3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	c := cluster(t, "b200", 1)
	a := ServeAssumptions(DefaultAssumptions(), c.GPU)
	s := ServePlan{TP: 1, PP: 1, Replicas: 1, Weights: DTypeNVFP4, KV: DTypeFP8}
	var last float64
	for _, iters := range []int{0, 10, 20, 40} {
		e := Engines["trtllm"]
		e.BatchWaitIters, e.BatchWaitTokenRatio, e.ChunkTokens = iters, 0.9, 16384
		r, err := EstimateServeLoad(m, c, s, l, e, a)
		if err != nil {
			t.Fatal(err)
		}
		if sum := r.SlotWait + r.QueueWait + r.SchedulerWait + r.StepWait + r.Prefill; math.Abs(float64(sum-r.SteadyTTFT)) > 1e-12 {
			t.Errorf("%d iterations: steady TTFT %v is not the sum of its parts %v", iters, r.SteadyTTFT, sum)
		}
		if (iters == 0) != (r.SchedulerWait == 0) {
			t.Errorf("%d iterations: batch wait %v", iters, r.SchedulerWait)
		}
		if float64(r.TTFT) < last {
			t.Errorf("%d iterations: TTFT %v shorter than with fewer", iters, r.TTFT)
		}
		last = float64(r.TTFT)
	}
}
