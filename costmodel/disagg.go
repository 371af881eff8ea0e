package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// DisaggPlan is a disaggregated deployment: a pool of prefill workers and
// a pool of decode workers, each a ServePlan layout whose Replicas are
// its workers, serving with one engine preset (DistServe, Zhong et al.,
// OSDI 2024; Splitwise, Patel et al., ISCA 2024; Mooncake, Qin et al.,
// FAST 2025; NVIDIA Dynamo; vLLM's disaggregated prefill). Weights and
// KV formats are each plan's own; the KV cache moves in the prefill
// plan's format.
type DisaggPlan struct {
	Prefill ServePlan `json:"prefill"`
	Decode  ServePlan `json:"decode"`
}

// GPUs is Np x Gp + Nd x Gd.
func (d DisaggPlan) GPUs() int { return d.Prefill.GPUs() + d.Decode.GPUs() }

// DisaggLatency is the steady state of a disaggregated deployment under a
// load, itemized like ServeLatency.
type DisaggLatency struct {
	Engine Engine    `json:"engine"`
	Load   ServeLoad `json:"load"`
	// Concurrency is the requests in flight (given, or by Little's law
	// from Rate: Rate x (TTFT + (output - 1) x TPOT)) and Rate the
	// requests completed per second.
	Concurrency float64 `json:"concurrency"`
	Rate        float64 `json:"rate_per_s"`
	// GPUs is PrefillGPUs + DecodeGPUs; Ratio the prefill workers per
	// decode worker.
	GPUs        int         `json:"gpus"`
	PrefillGPUs int         `json:"prefill_gpus"`
	DecodeGPUs  int         `json:"decode_gpus"`
	Ratio       float64     `json:"prefill_per_decode_worker"`
	Prefill     PrefillPool `json:"prefill"`
	Transfer    KVTransfer  `json:"kv_transfer"`
	Decode      DecodePool  `json:"decode"`
	// TTFT is the first token as the client sees it: RequestOverhead +
	// SlotWait + QueueWait + PrefillTime + KVTime (Transfer.Time). With vLLM's
	// disaggregated proxy and with Dynamo the client's stream comes from
	// the decode worker, after the KV cache has arrived (vLLM sends the
	// prompt to the prefill instance with max_tokens 1, then to the
	// decode instance; Dynamo's flow: prefill, KV transfer, decode
	// generates and streams), so the transfer falls before the first
	// token. PrefillTTFT leaves it out: DistServe's TTFT is the prefill
	// phase (its abstract: "time to first token (TTFT) for the prefill
	// phase"), the transfer then adding to the first decode interval.
	TTFT            hardware.Seconds `json:"ttft_s"`
	PrefillTTFT     hardware.Seconds `json:"prefill_ttft_s"`
	RequestOverhead hardware.Seconds `json:"request_overhead_s"`
	SlotWait        hardware.Seconds `json:"slot_wait_s"`
	QueueWait       hardware.Seconds `json:"queue_wait_s"`
	PrefillTime     hardware.Seconds `json:"prefill_s"`
	KVTime          hardware.Seconds `json:"kv_transfer_s"`
	// TPOT is the decode step at the decode pool's batch (no prefill
	// joins it).
	TPOT hardware.Seconds `json:"tpot_s"`
	ServeThroughput
	// MaxRate is the most requests/s both pools sustain, the smaller of
	// theirs; Overloaded says the load asked for more.
	MaxRate    float64  `json:"max_rate_per_s"`
	Overloaded bool     `json:"overloaded"`
	Notes      []string `json:"notes,omitempty"`
}

// EstimateDisaggregated computes the steady state of deployment d on
// GPUs g in scale-up domains of perNode GPUs (0: the GPU's) serving load
// l with engine eng. Each plan's TP, PP, DP, EP, Replicas (its workers),
// Weights and KV are read; the context and users follow from the load.
func EstimateDisaggregated(m *Model, g hardware.GPU, perNode int, d DisaggPlan, l ServeLoad, eng Engine, a Assumptions) (*DisaggLatency, error) {
	e, err := newDisaggModel(m, g, perNode, d, l, eng, a)
	if err != nil {
		return nil, err
	}
	return e.estimate(), nil
}

// disaggModel holds both pools' step models and the KV transfer.
type disaggModel struct {
	d        DisaggPlan
	l        ServeLoad
	eng      Engine
	prefill  prefillModel
	decode   decodeModel
	transfer KVTransfer
}

// newDisaggModel checks the load and the plans and builds both pools.
func newDisaggModel(m *Model, g hardware.GPU, perNode int, d DisaggPlan, l ServeLoad, eng Engine, a Assumptions) (disaggModel, error) {
	if err := l.Validate(); err != nil {
		return disaggModel{}, err
	}
	if perNode == 0 {
		perNode = g.ScaleUpDomain
	}
	if d.Prefill.Replicas < 1 || d.Decode.Replicas < 1 || d.GPUs() > hardware.MaxGPUs {
		return disaggModel{}, fmt.Errorf("costmodel: %d prefill and %d decode workers: each pool needs at least one, %d GPUs in all at most", d.Prefill.Replicas, d.Decode.Replicas, hardware.MaxGPUs)
	}
	p, err := newPrefillModel(m, g, perNode, d.Prefill, l, eng, a)
	if err != nil {
		return disaggModel{}, fmt.Errorf("%w (prefill pool)", err)
	}
	dm, err := newDecodeModel(m, g, perNode, d.Decode, l, eng, a)
	if err != nil {
		return disaggModel{}, fmt.Errorf("%w (decode pool)", err)
	}
	c := hardware.Cluster{GPU: g, GPUsPerNode: perNode, Nodes: 1}
	return disaggModel{d: d, l: l, eng: eng, prefill: p, decode: dm, transfer: kvTransfer(m, c, d.Prefill, d.Decode, l.InputTokens, a)}, nil
}

// estimate is the steady state at the load's rate, or for a concurrency
// at the rate Little's law gives it.
func (e disaggModel) estimate() *DisaggLatency {
	if e.l.Rate > 0 {
		return e.atRate(e.l.Rate)
	}
	return e.atConcurrency(e.l.Concurrency)
}

// atRate is the deployment at rate requests/s.
func (e disaggModel) atRate(rate float64) *DisaggLatency {
	r := &DisaggLatency{Engine: e.eng, Load: e.l, Rate: rate, PrefillGPUs: e.d.Prefill.GPUs(), DecodeGPUs: e.d.Decode.GPUs(),
		GPUs: e.d.GPUs(), Ratio: float64(e.d.Prefill.Replicas) / float64(e.d.Decode.Replicas), Transfer: e.transfer}
	r.Prefill, r.Decode = e.prefill.at(rate), e.decode.at(rate)
	r.MaxRate = r.Prefill.MaxRate
	if e.decode.steps > 0 {
		r.MaxRate = min(r.MaxRate, r.Decode.MaxRate)
	}
	r.Overloaded = r.Prefill.Overloaded || r.Decode.SlotLimited
	r.fill()
	return r
}

// atConcurrency is the deployment with conc requests in flight: the rate
// whose Little's-law concurrency, rate x (TTFT + (output - 1) x TPOT),
// is conc, by 60 bisections of (0, MaxRate]. Past MaxRate the pool that
// sets it is saturated and the other requests wait conc / MaxRate -
// latency there: in the prefill queue (Prefill.Overloaded) or for a
// decode slot (SlotWait, Decode.SlotLimited).
func (e disaggModel) atConcurrency(conc float64) *DisaggLatency {
	top := e.atRate(0).MaxRate
	if top <= 0 {
		r := e.atRate(0)
		r.Concurrency = conc
		return r
	}
	full := e.atRate(top * (1 - 1e-9))
	if full.Concurrency <= conc {
		wait := hardware.Seconds(conc/full.Rate) - full.TTFT - hardware.Seconds(e.decode.steps)*full.TPOT
		if e.decode.steps == 0 || full.Prefill.MaxRate <= full.Decode.MaxRate {
			full.Prefill.QueueWait += wait
			full.Prefill.Overloaded = true
		} else {
			full.SlotWait, full.Decode.SlotLimited = wait, true
		}
		full.Overloaded = false
		full.fill()
		full.Concurrency = conc
		return full
	}
	lo, hi := 0.0, top
	for range 60 {
		mid := (lo + hi) / 2
		if e.atRate(mid).Concurrency < conc {
			lo = mid
		} else {
			hi = mid
		}
	}
	return e.atRate(lo)
}

// fill adds up the latencies and the throughput.
func (r *DisaggLatency) fill() {
	r.RequestOverhead = r.Engine.PerRequestOverhead()
	r.QueueWait, r.PrefillTime, r.KVTime = r.Prefill.QueueWait, r.Prefill.Prefill, r.Transfer.Time
	r.PrefillTTFT = r.RequestOverhead + r.SlotWait + r.QueueWait + r.PrefillTime
	r.TTFT = r.PrefillTTFT + r.KVTime
	r.TPOT = r.Decode.TPOT
	r.Concurrency = r.Rate * float64(r.TTFT+hardware.Seconds(r.Load.OutputTokens-1)*r.TPOT)
	r.ServeThroughput = throughput(r.Rate, r.Load.OutputTokens, r.GPUs, r.TPOT)
	r.Notes = r.disaggNotes()
}
