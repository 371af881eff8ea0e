package costmodel

import (
	"github.com/gpu-planner/planner/hardware"
)

// DecodePool is the decode side of a disaggregated deployment: Workers
// engines of one layout that only decode, continuously batched (Yu et
// al. 2022, Orca, OSDI, sec. 3), each request arriving with its prompt's
// KV cache (DistServe, Zhong et al., OSDI 2024, sec. 3: decoding
// instances). Rate, Slots and Batch are per worker (per attention dp
// rank when the layout has dp > 1).
type DecodePool struct {
	Layout        string  `json:"layout"`
	Workers       int     `json:"workers"`
	GPUsPerWorker int     `json:"gpus_per_worker"`
	Rate          float64 `json:"rate_per_s"`
	// Slots is the sequences of AdmitTokens one worker's KV cache admits
	// (kvSlots, admitTokens); Batch the sequences decoding at once.
	Slots       int     `json:"kv_slots"`
	AdmitTokens float64 `json:"admit_tokens"`
	Batch       float64 `json:"batch"`
	// MeanContext is a decoding sequence's mean KV length, input +
	// output/2; Step the decode step at Batch, and TPOT its time.
	MeanContext float64          `json:"mean_context_tokens"`
	Step        BatchStep        `json:"step"`
	TPOT        hardware.Seconds `json:"tpot_s"`
	// MaxRate is the requests/s the pool sustains with every slot
	// decoding; SlotLimited says the load needs more slots than the
	// cache admits, so requests wait for one and the queue grows.
	MaxRate     float64 `json:"max_rate_per_s"`
	SlotLimited bool    `json:"slot_limited"`
}

// decodeModel prices one decode worker.
type decodeModel struct {
	b     batchModel
	s     ServePlan
	slots int
	admit float64
	ctx   float64
	steps float64 // decode steps per request, output - 1
}

// newDecodeModel builds the step model and the KV slots of one worker
// of plan s (its Replicas are the workers).
func newDecodeModel(m *Model, g hardware.GPU, perNode int, s ServePlan, l ServeLoad, eng Engine, a Assumptions) (decodeModel, error) {
	one, c, err := oneWorker(m, g, perNode, s, l, eng, a)
	if err != nil {
		return decodeModel{}, err
	}
	if a.HBMFraction, err = engineBudget(m, c, one, eng, a); err != nil {
		return decodeModel{}, err
	}
	b, err := newBatchModel(m, c, one, eng, a)
	if err != nil {
		return decodeModel{}, err
	}
	d := decodeModel{b: b, s: s, admit: admitTokens(l, eng), steps: float64(l.OutputTokens - 1),
		ctx: float64(l.InputTokens) + float64(l.OutputTokens)/2}
	if d.slots, err = kvSlots(m, c, one, d.admit, a); err != nil {
		return decodeModel{}, err
	}
	return d, nil
}

// at is the pool at rate requests/s over all its workers. By Little's
// law a worker receiving lambda requests/s, each decoding D = output - 1
// steps of TPOT seconds, holds B = lambda x D x TPOT(B) sequences
// (Little 1961, "A proof for the queuing formula L = lambda W"), TPOT(B)
// the decode step at batch B (batchModel.step with no prefill): the
// fixed point B is found by 60 bisections of (0, Slots], deterministic,
// as B - lambda D TPOT(B) rises with B while the step grows sublinearly.
// A load that needs more than Slots sequences is SlotLimited and shown
// at Slots.
func (d decodeModel) at(rate float64) DecodePool {
	ranks := float64(d.s.Ranks())
	r := DecodePool{Layout: d.s.stageLayoutName(), Workers: d.s.Replicas, GPUsPerWorker: d.s.GPUs() / d.s.Replicas,
		Rate: rate / ranks, Slots: d.slots, AdmitTokens: d.admit, MeanContext: d.ctx}
	if d.slots < 1 {
		r.SlotLimited = true
		return r
	}
	S := float64(d.slots)
	if d.steps <= 0 {
		r.MaxRate = 0
		r.Step = d.b.step(0, d.ctx, 0, 0)
		return r
	}
	r.MaxRate = S / (d.steps * d.tpot(S)) * ranks
	lo, hi := 0.0, S
	if r.Rate*d.steps*d.tpot(S) > S {
		lo, r.SlotLimited = S, true
	}
	for range 60 {
		if lo >= hi {
			break
		}
		mid := (lo + hi) / 2
		if r.Rate*d.steps*d.tpot(mid) > mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	r.Batch = hi
	r.Step = d.b.step(r.Batch, d.ctx, 0, 0)
	r.TPOT = r.Step.Total
	return r
}

// tpot is the decode step at batch b.
func (d decodeModel) tpot(b float64) float64 {
	return float64(d.b.step(b, d.ctx, 0, 0).Total)
}
