package costmodel

import (
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// openingBurst is the start of a closed-loop benchmark on one replica:
// R prompts arriving together at an idle engine.
type openingBurst struct {
	steps, last float64
	step        BatchStep
	ttft        float64
}

// burst prices the opening burst of a closed-loop run of load l with R
// requests admitted per replica. The engine admits prefill tokens at
// its per-step budget B (ChunkTokens: vLLM's max_num_batched_tokens,
// SGLang's chunked_prefill_size, TensorRT-LLM's max_num_tokens; the
// waiting prompts share it first come, first served: Agrawal et al.
// 2024, Sarathi-Serve, OSDI, sec. 4.2, the token budget of
// stall-free batching), so the j-th of the R prompts of I tokens gets
// its first token after ceil(j I / B) steps; the mean over j of those
// steps is burstSteps. Each step carries min(B, R I) prompt tokens
// and, with MixedPrefill, the decodes of the prompts already done, R/2
// on average, with the cache at I tokens (without it the decodes wait
// for the burst's prefills).
func (b batchModel) burst(l ServeLoad, R float64) openingBurst {
	I := float64(l.InputTokens)
	B := float64(b.eng.ChunkTokens)
	if B <= 0 {
		B = math.Ceil(R) * I
	}
	o := openingBurst{steps: burstSteps(int(math.Ceil(R)), I, B), last: math.Ceil(math.Ceil(R)*I/B - 1e-9)}
	chunk := int(math.Min(B, math.Ceil(R)*I))
	decodes := 0.0
	if b.eng.MixedPrefill {
		decodes = R / 2
	}
	o.step = b.step(decodes, I, chunk, l.InputTokens)
	o.ttft = o.steps * float64(o.step.Total)
	return o
}

// burstSteps is the mean over j = 1..n of ceil(j x I / B): the steps
// the j-th of n prompts of I tokens waits at a budget of B prompt
// tokens per step; 0 without prompts.
func burstSteps(n int, I, B float64) float64 {
	if n <= 0 {
		return 0
	}
	var s float64
	for j := 1; j <= n; j++ {
		s += math.Ceil(float64(j)*I/B - 1e-9)
	}
	return s / float64(n)
}

// burstShare is the share of a closed loop's requests that arrive in
// an opening burst: 1 / Rounds, the first request of each client. When
// the requests have equal lengths and the engine runs prefill batches
// alone (no MixedPrefill), every request of the burst starts decoding
// after the burst's last prefill and all finish in the same step, so
// the clients send their next requests together: every round is a
// burst and the share is 1. With mixed steps a request decodes as soon
// as its prefill is done, the burst's requests finish as far apart as
// their prefills, and the next round arrives spread at the rate the
// engine admits it (the steady state).
func burstShare(l ServeLoad, eng Engine) float64 {
	if l.EqualLengths && !eng.MixedPrefill {
		return 1
	}
	return 1 / l.Rounds
}

// addBurst mixes the opening burst into the mean TTFT
// (ServeLatency.TTFT).
func (r *ServeLatency) addBurst(o openingBurst) {
	r.BurstShare = burstShare(r.Load, r.Engine)
	r.BurstSteps, r.Burst, r.BurstTTFT = o.steps, o.step, hardware.Seconds(o.ttft)
	r.TTFT = r.RequestOverhead + hardware.Seconds(1-r.BurstShare)*r.SteadyTTFT + hardware.Seconds(r.BurstShare)*r.BurstTTFT
}

// addBurstStall adds to TPOT what an opening burst's request loses
// after its first token (BurstStall): its prompt is done after
// BurstSteps steps on average, the burst's last after BurstLast, and
// the steps between are the burst's. Without MixedPrefill they emit
// nothing for it, since the scheduler runs a prefill batch whenever it
// can form one and decodes only when it cannot (SGLang's
// get_next_batch_to_run, "run prefill first if possible";
// sgl-project/sglang#32549 measures the starvation), so each costs a
// whole burst step; with MixedPrefill it decodes in them, each a burst
// step instead of a decode step. The stall is spread over the
// request's osl - 1 later tokens and weighed by BurstShare, as the
// burst is in the TTFT (addBurst). Call it after the TPOT is set.
func (r *ServeLatency) addBurstStall(o openingBurst) {
	D := float64(r.Load.OutputTokens - 1)
	if D <= 0 || r.BurstShare <= 0 {
		return
	}
	n := max(o.last-o.steps, 0)
	per := float64(o.step.Total)
	if r.Engine.MixedPrefill {
		n, per = min(n, D), max(float64(o.step.Total-r.Decode.Total), 0)
	}
	r.BurstLast, r.BurstStall = o.last, hardware.Seconds(n*per)
	r.TPOT += r.BurstStallPerToken()
	if r.TPOT > 0 {
		r.TokensPerSecondPerUser = 1 / float64(r.TPOT)
	}
}

// BurstStallPerToken is the part of TPOT the opening burst's stall
// adds (addBurstStall): BurstShare x BurstStall over the request's
// osl - 1 later tokens; 0 without a stall.
func (r *ServeLatency) BurstStallPerToken() hardware.Seconds {
	D := r.Load.OutputTokens - 1
	if r.BurstStall <= 0 || D <= 0 {
		return 0
	}
	return hardware.Seconds(r.BurstShare) * r.BurstStall / hardware.Seconds(D)
}

// lockstepDecode is the decoding of rounds that are all bursts
// (burstShare 1): the R requests of a round decode together with no
// prefill joining until they all finish, so TPOT is the decode step at
// batch R; the rounds' prefills are in their TTFT, and the wait after a
// request's first token for the round's last prefill is added by
// addBurstStall.
func (r *ServeLatency) lockstepDecode(b batchModel, R float64) {
	r.Decode = b.step(R, r.MeanContext, 0, 0)
	r.DecodeBatch, r.TPOT = R, r.Decode.Total
	if r.TPOT > 0 {
		r.TokensPerSecondPerUser = 1 / float64(r.TPOT)
	}
}
