package costmodel

import (
	"math"
	"testing"
)

// TestBurstSteps: with a budget of B prompt tokens per step, the j-th
// of n prompts of I tokens is done after ceil(j I / B) steps. Four
// prompts of 1024 tokens at 2048 per step finish after 1, 1, 2, 2
// steps (mean 1.5); three of 8192 at 8192 after 1, 2, 3 (mean 2); one
// of 100 after 1.
func TestBurstSteps(t *testing.T) {
	for _, c := range []struct {
		n       int
		I, B, s float64
	}{{4, 1024, 2048, 1.5}, {3, 8192, 8192, 2}, {1, 100, 8192, 1}, {8, 3000, 8192, (1 + 1 + 2 + 2 + 2 + 3 + 3 + 3) / 8.0}} {
		if got := burstSteps(c.n, c.I, c.B); math.Abs(got-c.s) > 1e-12 {
			t.Errorf("burstSteps(%d, %g, %g) = %g, want %g", c.n, c.I, c.B, got, c.s)
		}
	}
}

// TestBurstShare: 1 / Rounds, except for equal lengths on an engine
// that runs prefill batches alone, where every round is a burst.
func TestBurstShare(t *testing.T) {
	l := ServeLoad{InputTokens: 1024, OutputTokens: 128, Concurrency: 16, Rounds: 10}
	if got := burstShare(l, Engines["vllm"]); got != 0.1 {
		t.Errorf("vllm, varied lengths: share %g, want 0.1", got)
	}
	l.EqualLengths = true
	if got := burstShare(l, Engines["vllm"]); got != 0.1 {
		t.Errorf("vllm (mixed prefill), equal lengths: share %g, want 0.1", got)
	}
	if got := burstShare(l, Engines["sglang"]); got != 1 {
		t.Errorf("sglang (prefill alone), equal lengths: share %g, want 1", got)
	}
}

// TestOpeningBurstTTFT: a finite closed loop's TTFT is the request
// overhead + (1 - 1/Rounds) x the steady TTFT + 1/Rounds x the burst's;
// the burst of 32 prompts of 4096 tokens waits (1 + 1 + 2 + 2 + ... +
// 16 + 16) / 32 = 8.5 steps of the 8192 budget on average, so it and
// the TTFT grow over a long run's.
func TestOpeningBurstTTFT(t *testing.T) {
	l := ServeLoad{InputTokens: 4096, OutputTokens: 256, Concurrency: 32}
	long := loadOf(t, "llama3.1-8b", "h100-sxm", 1, DTypeBF16, l, "vllm")
	l.Rounds = 10
	r := loadOf(t, "llama3.1-8b", "h100-sxm", 1, DTypeBF16, l, "vllm")
	if r.SteadyTTFT != long.SteadyTTFT || long.BurstShare != 0 || long.TTFT != long.RequestOverhead+long.SteadyTTFT {
		t.Errorf("a long run has no burst: %v = %v + %v, share %g", long.TTFT, long.RequestOverhead, long.SteadyTTFT, long.BurstShare)
	}
	if r.Running != 32 || r.BurstSteps != 8.5 {
		t.Errorf("burst steps %g with %g admitted, want 8.5 with 32", r.BurstSteps, r.Running)
	}
	want := float64(r.RequestOverhead) + 0.9*float64(r.SteadyTTFT) + 0.1*float64(r.BurstTTFT)
	if !within(float64(r.TTFT), want, 1e-12) || r.BurstTTFT <= r.SteadyTTFT || r.TTFT <= long.TTFT {
		t.Errorf("TTFT %v, want %.6g s (burst %v, steady %v, long run %v)", r.TTFT, want, r.BurstTTFT, r.SteadyTTFT, long.TTFT)
	}
	// The burst's early prompts decode in its remaining steps, each a
	// burst step instead of a decode step: 16 - 8.5 = 7.5 of them.
	stall := 7.5 * float64(r.Burst.Total-r.Decode.Total)
	if r.BurstLast != 16 || !within(float64(r.BurstStall), stall, 1e-12) ||
		!within(float64(r.TPOT), float64(long.TPOT)+0.1*stall/255, 1e-12) || r.TPOT <= long.TPOT {
		t.Errorf("TPOT %v, want the long run's %v + 0.1 x stall %.4g s / 255 (last step %g, stall %v)",
			r.TPOT, long.TPOT, stall, r.BurstLast, r.BurstStall)
	}
}

// TestLockstepRounds: with equal lengths on SGLang every round is a
// burst: TTFT is the request overhead + the burst's, and TPOT the
// decode step of the whole batch, no prefill joining it, plus the
// round's prefills after a request's own: 32 prompts of 2048 tokens at
// 8192 per step are done after 1, 1, 1, 1, 2, ..., 8 steps (mean 4.5,
// last 8), so each request waits 3.5 burst steps on average after its
// first token, spread over its 255 later tokens.
func TestLockstepRounds(t *testing.T) {
	l := ServeLoad{InputTokens: 2048, OutputTokens: 256, Concurrency: 32, Rounds: 10, EqualLengths: true}
	r := loadOf(t, "llama3.1-8b", "h100-sxm", 1, DTypeBF16, l, "sglang")
	if r.BurstShare != 1 || r.TTFT != r.RequestOverhead+r.BurstTTFT {
		t.Errorf("TTFT %v, want request overhead %v + burst %v", r.TTFT, r.RequestOverhead, r.BurstTTFT)
	}
	stall := 3.5 * float64(r.Burst.Total)
	if r.DecodeBatch != 32 || r.Decode.PrefillAttention != 0 || r.BurstSteps != 4.5 || r.BurstLast != 8 ||
		!within(float64(r.TPOT), float64(r.Decode.Total)+stall/255, 1e-12) {
		t.Errorf("TPOT %v, want the decode step of 32 (%v, batch %g) + %.4g s / 255 (burst steps %g, last %g)",
			r.TPOT, r.Decode.Total, r.DecodeBatch, stall, r.BurstSteps, r.BurstLast)
	}
}

// TestBurstStallOneToken: a request of one output token has no later
// tokens to spread a stall over; its TPOT is the decode step's.
func TestBurstStallOneToken(t *testing.T) {
	l := ServeLoad{InputTokens: 2048, OutputTokens: 1, Concurrency: 32, Rounds: 10, EqualLengths: true}
	r := loadOf(t, "llama3.1-8b", "h100-sxm", 1, DTypeBF16, l, "sglang")
	if r.BurstStall != 0 || r.TPOT != r.Decode.Total {
		t.Errorf("one output token: stall %v, TPOT %v, want 0 and the decode step %v", r.BurstStall, r.TPOT, r.Decode.Total)
	}
}

// TestRoundsValidate: rounds are 0 or at least 1, and only with a
// concurrency.
func TestRoundsValidate(t *testing.T) {
	for _, l := range []ServeLoad{
		{InputTokens: 10, OutputTokens: 10, Concurrency: 4, Rounds: 0.5},
		{InputTokens: 10, OutputTokens: 10, Concurrency: 4, Rounds: math.NaN()},
		{InputTokens: 10, OutputTokens: 10, Rate: 4, Rounds: 10},
	} {
		if err := l.Validate(); err == nil {
			t.Errorf("%+v: want an error", l)
		}
	}
}
