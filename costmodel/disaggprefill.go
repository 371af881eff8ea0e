package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// PrefillPool is the prefill side of a disaggregated deployment: Workers
// engines of one layout that run prompts only, no decodes (DistServe,
// Zhong et al., OSDI 2024, sec. 3: prefill instances; Splitwise, Patel
// et al., ISCA 2024: prompt machines). Rate, Slots, Batch and the waits
// are per worker (per attention dp rank when the layout has dp > 1).
type PrefillPool struct {
	Layout  string `json:"layout"`
	Workers int    `json:"workers"`
	// GPUsPerWorker is tp x pp x dp.
	GPUsPerWorker int `json:"gpus_per_worker"`
	// Rate is the prompts per second one worker (dp rank) receives.
	Rate float64 `json:"rate_per_s"`
	// Slots is the prompts of InputTokens whose KV cache one worker holds
	// at once; MaxBatch the prompts one step may carry (the engine's
	// token budget over the prompt, and Slots); Batch the prompts per
	// step at this load.
	Slots    int `json:"kv_slots"`
	MaxBatch int `json:"max_batch"`
	Batch    int `json:"batch"`
	// Chunks is the steps one batch takes (a prompt longer than the
	// budget enters in chunks of ChunkTokens) and Step one of them.
	Chunks      int       `json:"chunks"`
	ChunkTokens int       `json:"chunk_tokens"`
	Step        BatchStep `json:"step"`
	// Prefill is a batch's time, Chunks x Step; Service the worker time
	// per prompt, Prefill / Batch.
	Prefill hardware.Seconds `json:"prefill_s"`
	Service hardware.Seconds `json:"service_s"`
	// Utilization is Rate x Service; QueueWait a prompt's wait for the
	// batch under way and those ahead (queueWait).
	Utilization float64          `json:"utilization"`
	QueueWait   hardware.Seconds `json:"queue_wait_s"`
	// MaxRate is the prompts/s the pool sustains at MaxBatch (all its
	// workers); Overloaded says the load asks for more.
	MaxRate    float64 `json:"max_rate_per_s"`
	Overloaded bool    `json:"overloaded"`
}

// prefillModel prices one prefill worker.
type prefillModel struct {
	b       batchModel
	s       ServePlan
	slots   int
	maxK    int
	chunks  int
	chunk   int
	prompts int // input tokens
	// times[k-1] is batchTime(k), priced once for every rate asked.
	times []float64
}

// maxPrefillBatch bounds the prompts per step the batch search tries:
// far above any engine's budget over a prompt of 32 tokens.
const maxPrefillBatch = 256

// newPrefillModel builds the step model and the KV slots of one worker
// of plan s (its Replicas are the workers).
func newPrefillModel(m *Model, g hardware.GPU, perNode int, s ServePlan, l ServeLoad, eng Engine, a Assumptions) (prefillModel, error) {
	one, c, err := oneWorker(m, g, perNode, s, l, eng, a)
	if err != nil {
		return prefillModel{}, err
	}
	if a.HBMFraction, err = engineBudget(m, c, one, eng, a); err != nil {
		return prefillModel{}, err
	}
	b, err := newBatchModel(m, c, one, eng, a)
	if err != nil {
		return prefillModel{}, err
	}
	p := prefillModel{b: b, s: s, prompts: l.InputTokens}
	if p.slots, err = kvSlots(m, c, one, float64(l.InputTokens), a); err != nil {
		return prefillModel{}, err
	}
	p.chunks, p.chunk = chunking(l.InputTokens, eng.ChunkTokens)
	p.maxK = prefillBatchCap(l.InputTokens, eng.ChunkTokens, p.slots)
	p.times = make([]float64, max(p.maxK, 0))
	for k := range p.times {
		p.times[k] = p.batchTime(k + 1)
	}
	return p, nil
}

// prefillBatchCap is the most whole prompts of n tokens one step takes:
// budget / n (at least 1: a longer prompt enters alone, in chunks), no
// more than the KV slots, and with no budget (0) the slots alone
// (Engine.ChunkTokens; Agrawal et al. 2024, Sarathi-Serve, OSDI, sec.
// 4.2: the token budget of a step).
func prefillBatchCap(n, budget, slots int) int {
	k := slots
	if budget > 0 {
		k = min(k, max(budget/n, 1))
	}
	return min(k, maxPrefillBatch)
}

// oneWorker is plan s as one replica with the context of load l, on a
// cluster of its GPUs.
func oneWorker(m *Model, g hardware.GPU, perNode int, s ServePlan, l ServeLoad, eng Engine, a Assumptions) (ServePlan, hardware.Cluster, error) {
	one := s
	one.Replicas, one.Users, one.BlockTokens = 1, 1, eng.BlockTokens
	one.Context = l.InputTokens + l.OutputTokens
	c, err := hardware.ClusterForGPUs(g, one.GPUs(), perNode)
	return one, c, err
}

// at is the pool at rate requests/s over all its workers. The worker
// takes the waiting prompts, up to maxK, into one batch (vLLM's and
// SGLang's schedulers admit every waiting prompt that fits the budget);
// the batch it settles on is taken as the k of 1..maxK that keeps up
// (utilization rho = rate x step(k) / k below 1) with the least queue
// wait + batch time, the wait from queueWait (Kingman's approximation,
// one batch the unit of service). With no such k the pool is
// overloaded, shown at maxK.
func (p prefillModel) at(rate float64) PrefillPool {
	ranks := float64(p.s.Ranks())
	r := PrefillPool{Layout: p.s.stageLayoutName(), Workers: p.s.Replicas, GPUsPerWorker: p.s.GPUs() / p.s.Replicas,
		Rate: rate / ranks, Slots: p.slots, MaxBatch: p.maxK, Chunks: p.chunks, ChunkTokens: p.chunk}
	if p.slots < 1 {
		r.Overloaded = true
		return r
	}
	best, bestT := 0, math.Inf(1)
	for k := 1; k <= p.maxK; k++ {
		t := p.times[k-1]
		rho := r.Rate * t / float64(k)
		if rho >= 1 {
			continue
		}
		if total := queueWait(rho, t) + t; total < bestT {
			best, bestT = k, total
		}
	}
	full := p.times[p.maxK-1]
	r.MaxRate = float64(p.maxK) / full * ranks
	if best == 0 {
		best, r.Overloaded = p.maxK, true
	}
	p.fill(&r, best)
	return r
}

// batchTime is the time of one batch of k prompts: its chunks' steps,
// each with k x chunk prompt tokens and no decodes.
func (p prefillModel) batchTime(k int) float64 {
	return float64(p.chunks) * float64(p.b.step(0, 0, k*p.chunk, p.prompts).Total)
}

// fill sets the batch of k prompts and what follows from it.
func (p prefillModel) fill(r *PrefillPool, k int) {
	r.Batch = k
	r.Step = p.b.step(0, 0, k*p.chunk, p.prompts)
	r.Prefill = hardware.Seconds(float64(p.chunks)) * r.Step.Total
	r.Service = r.Prefill / hardware.Seconds(k)
	r.Utilization = r.Rate * float64(r.Service)
	r.QueueWait = hardware.Seconds(queueWait(r.Utilization, float64(r.Prefill)))
}

// stageLayoutName is tpN-ppM, with -dpD and -epE when set.
func (s ServePlan) stageLayoutName() string {
	name := fmt.Sprintf("tp%d-pp%d", s.TP, s.PP)
	if s.dp() > 1 {
		name += fmt.Sprintf("-dp%d", s.dp())
	}
	if s.ep() > 1 {
		name += fmt.Sprintf("-ep%d", s.ep())
	}
	return name
}
