package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// ServeLoad is the traffic a deployment serves: requests of InputTokens
// prompt tokens that generate OutputTokens each, either Concurrency
// requests in flight at all times (a closed-loop benchmark) or Rate
// requests per second (then the concurrency follows from the modeled
// latency by Little's law). Exactly one of Concurrency and Rate is set.
//
// Rounds is, for a closed-loop benchmark of a finite run, the requests
// each of the Concurrency clients sends: the run's first Concurrency
// requests arrive together at an idle engine (the opening burst, 1 /
// Rounds of the requests), the others as earlier ones finish. 0 is a
// run long enough that the burst does not count; with a Rate it must
// be 0. EqualLengths says every request has exactly InputTokens and
// OutputTokens (a benchmark with ignore_eos and no length spread): then
// on an engine without MixedPrefill the clients of the burst finish
// together, and every round is an opening burst.
type ServeLoad struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Concurrency  float64 `json:"concurrency,omitempty"`
	Rate         float64 `json:"rate_per_s,omitempty"`
	Rounds       float64 `json:"rounds,omitempty"`
	EqualLengths bool    `json:"equal_lengths,omitempty"`
}

// The largest load a ServeLoad describes: past these the fixed point's
// arithmetic loses meaning long before any deployment could run it.
const (
	maxConcurrency = 1 << 30
	maxRate        = 1e9
)

// Validate checks the load.
func (l ServeLoad) Validate() error {
	switch {
	case l.InputTokens < 1 || l.InputTokens > maxSeq:
		return fmt.Errorf("costmodel: input tokens %d is not in [1, %d]", l.InputTokens, maxSeq)
	case l.OutputTokens < 1 || l.OutputTokens > maxSeq-l.InputTokens:
		return fmt.Errorf("costmodel: output tokens %d is not in [1, %d]", l.OutputTokens, maxSeq-l.InputTokens)
	case (l.Concurrency > 0) == (l.Rate > 0):
		return fmt.Errorf("costmodel: give a concurrency or a rate, not both or neither (concurrency %g, rate %g)", l.Concurrency, l.Rate)
	case l.Concurrency < 0 || l.Concurrency > maxConcurrency || math.IsNaN(l.Concurrency):
		return fmt.Errorf("costmodel: concurrency %g is not in (0, %d] requests in flight", l.Concurrency, maxConcurrency)
	case l.Rate < 0 || l.Rate > maxRate || math.IsNaN(l.Rate):
		return fmt.Errorf("costmodel: rate %g is not in (0, %g] requests/s", l.Rate, maxRate)
	case l.Rounds != 0 && !(l.Rounds >= 1 && l.Rounds <= 1e9):
		return fmt.Errorf("costmodel: rounds %g is not 0 (a long run) or in [1, 1e9] requests per client", l.Rounds)
	case l.Rounds != 0 && l.Rate > 0:
		return fmt.Errorf("costmodel: rounds %g applies to a closed-loop load (a concurrency), not to a rate", l.Rounds)
	}
	return nil
}

// ServeThroughput is what a deployment under load produces: output
// tokens/s over it, per GPU and per user (1/TPOT), and the cost,
// GPU-seconds per output token (GPUs / TokensPerSecond).
type ServeThroughput struct {
	TokensPerSecond        float64 `json:"output_tokens_per_s"`
	TokensPerSecondPerGPU  float64 `json:"output_tokens_per_s_per_gpu"`
	TokensPerSecondPerUser float64 `json:"output_tokens_per_s_per_user"`
	GPUSecondsPerToken     float64 `json:"gpu_seconds_per_token"`
}

// throughput is the output of rate requests/s of output tokens each on
// gpus GPUs at a TPOT of tpot.
func throughput(rate float64, output, gpus int, tpot hardware.Seconds) ServeThroughput {
	t := ServeThroughput{TokensPerSecond: rate * float64(output)}
	t.TokensPerSecondPerGPU = t.TokensPerSecond / float64(gpus)
	if tpot > 0 {
		t.TokensPerSecondPerUser = 1 / float64(tpot)
	}
	if t.TokensPerSecond > 0 {
		t.GPUSecondsPerToken = float64(gpus) / t.TokensPerSecond
	}
	return t
}

// ServeLatency is the steady state of a deployment under a load:
// continuous batching (Orca, Yu et al. 2022) with prefills entering
// whole or in chunks.
type ServeLatency struct {
	Engine Engine    `json:"engine"`
	Load   ServeLoad `json:"load"`
	// Concurrency is the requests in flight over the deployment (given,
	// or by Little's law from Rate) and Rate the requests completed per
	// second; both split evenly over the replicas.
	Concurrency float64 `json:"concurrency"`
	Rate        float64 `json:"rate_per_s"`
	// Slots is the sequences one replica's KV cache admits at once, at
	// AdmitTokens tokens each; Running the requests admitted per replica
	// and DecodeBatch those of them decoding on average.
	Slots int `json:"kv_slots_per_replica"`
	// AttentionDP is the plan's attention data-parallel ranks when > 1:
	// then Slots, Running and DecodeBatch are per dp rank.
	AttentionDP int     `json:"attention_dp,omitempty"`
	AdmitTokens float64 `json:"admit_tokens"`
	Running     float64 `json:"running_per_replica"`
	DecodeBatch float64 `json:"decode_batch"`
	// MeanContext is a decoding sequence's mean KV length, input +
	// output/2.
	MeanContext float64 `json:"mean_context_tokens"`
	// Decode is a step without prefill; Chunked one with a prefill chunk
	// of ChunkTokens (with the decodes under MixedPrefill, else alone);
	// Chunks the chunks of one prompt.
	Decode      BatchStep `json:"decode_step"`
	Chunked     BatchStep `json:"chunked_step"`
	ChunkTokens int       `json:"chunk_tokens"`
	Chunks      int       `json:"chunks"`
	// TPOT is the mean step a decoding request sees (prefills included).
	TPOT hardware.Seconds `json:"tpot_s"`
	// TTFT is the mean over the requests: RequestOverhead (the
	// engine's and its front end's, outside its steps,
	// Engine.PerRequestOverhead) + (1 - BurstShare) x SteadyTTFT +
	// BurstShare x BurstTTFT. SteadyTTFT is SlotWait (for a KV slot) +
	// QueueWait (behind other prefills) + SchedulerWait (held back by the
	// engine's scheduling rules) + StepWait (the step under way)
	// + Prefill (its own chunk steps); BurstTTFT is the mean of the
	// opening burst's requests (burst), BurstShare 1 / Rounds of them
	// (0 for a long run or a rate).
	TTFT            hardware.Seconds `json:"ttft_s"`
	RequestOverhead hardware.Seconds `json:"request_overhead_s"`
	SteadyTTFT      hardware.Seconds `json:"steady_ttft_s"`
	SlotWait        hardware.Seconds `json:"slot_wait_s"`
	QueueWait       hardware.Seconds `json:"queue_wait_s"`
	// SchedulerWait is what the engine's scheduling rules hold a prompt
	// back before its prefill: a polling interval, batch waiting,
	// attention-DP balancing (Engine.RecvInterval, BatchWaitIters,
	// ADPBalanceIters; batchWait); part of SteadyTTFT, 0 without them.
	SchedulerWait hardware.Seconds `json:"scheduler_wait_s,omitempty"`
	StepWait      hardware.Seconds `json:"step_wait_s"`
	Prefill       hardware.Seconds `json:"prefill_s"`
	BurstTTFT     hardware.Seconds `json:"burst_ttft_s,omitempty"`
	BurstShare    float64          `json:"burst_share,omitempty"`
	// BurstSteps is the mean steps an opening-burst request waits for
	// its last prompt token, Burst one such step.
	BurstSteps float64   `json:"burst_steps,omitempty"`
	Burst      BatchStep `json:"burst_step"`
	// BurstLast is the steps until the burst's last prompt has its
	// first token; BurstStall what a burst request loses between its
	// own first token and then (addBurstStall), spread over its later
	// tokens in TPOT.
	BurstLast  float64          `json:"burst_last_steps,omitempty"`
	BurstStall hardware.Seconds `json:"burst_stall_s,omitempty"`
	// PrefillShare is the share of the engine's time prefill chunks add.
	PrefillShare float64 `json:"prefill_share"`
	ServeThroughput
	// MaxRate is the most requests/s the deployment sustains (every
	// slot busy); Overloaded says Rate asked for more, so the queue grows
	// without bound and the latencies shown are at MaxRate.
	MaxRate    float64  `json:"max_rate_per_s"`
	Overloaded bool     `json:"overloaded"`
	Notes      []string `json:"notes,omitempty"`
}
