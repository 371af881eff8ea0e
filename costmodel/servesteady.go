package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// EstimateServeLoad computes the steady state of plan s (its TP, PP,
// Replicas, Weights and KV; the context, users and KV block follow from
// the load and the engine) serving load l with engine eng.
func EstimateServeLoad(m *Model, c hardware.Cluster, s ServePlan, l ServeLoad, eng Engine, a Assumptions) (*ServeLatency, error) {
	err := l.Validate()
	if err != nil {
		return nil, err
	}
	s.Context, s.Users, s.BlockTokens = l.InputTokens+l.OutputTokens, s.Replicas, eng.BlockTokens
	if a.HBMFraction, err = engineBudget(m, c, s, eng, a); err != nil {
		return nil, err
	}
	b, err := newBatchModel(m, c, s, eng, a)
	if err != nil {
		return nil, err
	}
	r := &ServeLatency{Engine: eng, Load: l, AdmitTokens: admitTokens(l, eng),
		MeanContext: float64(l.InputTokens) + float64(l.OutputTokens)/2}
	if s.dp() > 1 {
		r.AttentionDP = s.dp()
	}
	if r.Slots, err = kvSlots(m, c, s, r.AdmitTokens, a); err != nil {
		return nil, err
	}
	if r.Slots < 1 {
		r.Notes = append(r.Notes, fmt.Sprintf("the weights leave no room for one sequence of %.0f tokens: no steady state", r.AdmitTokens))
		return r, nil
	}
	reps := float64(s.Ranks())
	full := b.steady(l, float64(r.Slots), r.Slots)
	r.MaxRate = full.rate * reps
	st := full
	switch {
	case l.Concurrency > 0:
		st = b.steady(l, l.Concurrency/reps, r.Slots)
	case l.Rate < r.MaxRate:
		st = b.atRate(l, l.Rate/reps, r.Slots)
	default:
		r.Overloaded = true
	}
	r.fill(st, reps, s.GPUs(), l)
	if l.Concurrency > 0 && l.Rounds > 0 {
		o := b.burst(l, st.running)
		r.addBurst(o)
		if r.BurstShare == 1 {
			r.lockstepDecode(b, st.running)
		}
		r.addBurstStall(o)
	}
	return r, nil
}

// engineBudget is the share of HBM the engine's weights, overheads and
// KV cache may fill: MemoryFraction, or with OfFreeMemory (f x free +
// fixed) / HBM, where fixed is the weights and overheads of the most
// loaded GPU and free = HBM - fixed.
func engineBudget(m *Model, c hardware.Cluster, s ServePlan, eng Engine, a Assumptions) (float64, error) {
	if !eng.OfFreeMemory {
		return eng.MemoryFraction, nil
	}
	a.HBMFraction = 1
	r, err := EstimateServe(m, c, s, a)
	if err != nil {
		return 0, err
	}
	hbm := float64(c.GPU.HBM)
	fixed := float64(r.Memory.Total - r.Memory.Group(GroupKV))
	return min(max((eng.MemoryFraction*(hbm-fixed)+fixed)/hbm, 1e-6), 1), nil
}

// admitTokens is the KV length the engine reserves per admitted
// request: input + output when it reserves the whole length, else the
// mean length input + output/2 (admission on the blocks in use, Kwon et
// al. 2023, sec. 4.5, with preemption when the cache runs out).
func admitTokens(l ServeLoad, eng Engine) float64 {
	if eng.ReserveFullLength {
		return float64(l.InputTokens + l.OutputTokens)
	}
	return float64(l.InputTokens) + float64(l.OutputTokens)/2
}

// kvSlots is the sequences of admit tokens one replica's KV cache holds
// (EstimateServe's MaxUsers per replica).
func kvSlots(m *Model, c hardware.Cluster, s ServePlan, admit float64, a Assumptions) (int, error) {
	s.Context = max(int(math.Ceil(admit)), 1)
	r, err := EstimateServe(m, c, s, a)
	if err != nil {
		return 0, err
	}
	return r.MaxUsers / s.Ranks(), nil
}

// steadyState is one replica's fixed point.
type steadyState struct {
	conc, running, batch, tau, prefill, queue, slot, rate, share float64
	wait                                                         float64
	chunk, chunks                                                int
	decode, chunked                                              BatchStep
}

// chunking splits a prompt of n tokens into ceil(n/cap) equal chunks
// (cap 0: one chunk of n).
func chunking(n, cap int) (chunks, size int) {
	if cap <= 0 || cap >= n {
		return 1, n
	}
	chunks = (n + cap - 1) / cap
	return chunks, (n + chunks - 1) / chunks
}

// steady is the fixed point of one replica with conc requests in flight:
// running = min(conc, slots) admitted, of which a decoding share
// D tau / (A + D tau) decodes (D = output - 1 steps, A = queue wait +
// own prefill), TPOT tau from cycleStep, the prefill queue from
// queueWait. Iterated with damping until tau and the queue wait move by
// less than 1e-6 of themselves, at most 60 times: deterministic.
func (b batchModel) steady(l ServeLoad, conc float64, slots int) steadyState {
	st := steadyState{conc: conc, running: min(conc, float64(slots))}
	st.chunks, st.chunk = chunking(l.InputTokens, b.eng.ChunkTokens)
	n, D, R := float64(st.chunks), float64(l.OutputTokens-1), st.running
	ctx := float64(l.InputTokens) + float64(l.OutputTokens)/2
	st.batch = R
	for range 60 {
		tau0, queue0 := st.tau, st.queue
		st.decode = b.step(st.batch, ctx, 0, 0)
		var delta float64
		st.chunked, delta = b.prefillStep(st.batch, ctx, st.chunk, l.InputTokens, st.decode)
		t0 := float64(st.decode.Total)
		st.prefill = n * float64(st.chunked.Total)
		st.wait = b.eng.batchWait(t0, st.rate, st.batch, l.InputTokens, b.s.dp())
		A := st.queue + st.wait + st.prefill
		st.tau = cycleStep(t0, n*delta, R, A, D)
		st.rate = R / (A + D*st.tau)
		st.share = st.rate * n * delta
		st.queue = 0.5*st.queue + 0.5*queueWait(st.share, n*delta)
		st.batch = R * D * st.tau / (A + D*st.tau)
		if math.Abs(st.tau-tau0) <= 1e-6*st.tau && math.Abs(st.queue-queue0) <= 1e-6*st.queue+1e-9 {
			break
		}
	}
	if conc > R {
		st.slot = (conc - R) / st.rate
	}
	return st
}

// prefillStep is the step that carries a prefill chunk of chunk tokens
// of a prompt, and the time it adds to what the decodes see. With
// MixedPrefill the chunk joins the batch's decode step and adds the
// difference; without it (SGLang's default: a prefill batch runs alone
// and the decodes wait for it, get_next_batch_to_run) the chunk is a
// step of its own, weights, overhead and all, and the decodes wait for
// the whole of it.
func (b batchModel) prefillStep(batch, ctx float64, chunk, prompt int, decode BatchStep) (BatchStep, float64) {
	if b.eng.MixedPrefill {
		t := b.step(batch, ctx, chunk, prompt)
		return t, float64(t.Total - decode.Total)
	}
	t := b.step(0, ctx, chunk, prompt)
	return t, float64(t.Total)
}

// cycleStep is the mean step time tau a decoding request sees when each
// of R admitted requests adds prefill work W (its chunks' extra step
// time) once per cycle of A + D tau seconds (A: queue wait and own
// prefill, D decode steps): tau = t0 + W lambda tau with lambda = R / (A
// + D tau), the positive root of
//
//	D tau^2 + (A - t0 D - W R) tau - t0 A = 0
//
// (the fluid approximation of iteration-level scheduling: prefill chunks
// lengthen the steps they join; Agrawal et al. 2024, Sarathi-Serve,
// OSDI, sec. 3). Without decode steps (D = 0) it is t0 / (1 - W R / A).
func cycleStep(t0, W, R, A, D float64) float64 {
	if D <= 0 {
		return t0 / max(1-W*R/A, 1e-3)
	}
	bq := A - t0*D - W*R
	return (-bq + math.Sqrt(bq*bq+4*D*t0*A)) / (2 * D)
}

// queueWait is a prefill's wait behind the others, each of service
// seconds of prefill work, at prefill utilization rho: Kingman's
// approximation of a G/G/1 queue (Kingman 1961, "The single server
// queue in heavy traffic") with Poisson arrivals and deterministic
// service, rho / (1 - rho) x (1 + 0) / 2 x service (rho capped at
// 0.99). A closed loop's arrivals after its opening burst (burstTTFT)
// are the completions of requests of unequal lengths, taken as random
// too.
func queueWait(rho, service float64) float64 {
	rho = min(max(rho, 0), 0.99)
	return rho / (1 - rho) / 2 * service
}

// atRate is the steady state at rate requests/s per replica, below the
// rate of every slot busy: the concurrency c with steady(c).rate = rate
// (Little's law), by 60 bisections of (0, slots].
func (b batchModel) atRate(l ServeLoad, rate float64, slots int) steadyState {
	lo, hi := 0.0, float64(slots)
	for range 60 {
		mid := (lo + hi) / 2
		if b.steady(l, mid, slots).rate < rate {
			lo = mid
		} else {
			hi = mid
		}
	}
	return b.steady(l, hi, slots)
}

// fill copies the fixed point into the report.
func (r *ServeLatency) fill(st steadyState, reps float64, gpus int, l ServeLoad) {
	r.Concurrency, r.Rate = st.conc*reps, st.rate*reps
	r.Running, r.DecodeBatch = st.running, st.batch
	r.Decode, r.Chunked, r.ChunkTokens, r.Chunks = st.decode, st.chunked, st.chunk, st.chunks
	r.TPOT = hardware.Seconds(st.tau)
	r.SlotWait, r.QueueWait = hardware.Seconds(st.slot), hardware.Seconds(st.queue)
	r.StepWait, r.Prefill = hardware.Seconds(st.tau/2), hardware.Seconds(st.prefill)
	r.SchedulerWait = hardware.Seconds(st.wait)
	r.SteadyTTFT = r.SlotWait + r.QueueWait + r.SchedulerWait + r.StepWait + r.Prefill
	r.RequestOverhead = r.Engine.PerRequestOverhead()
	r.TTFT = r.RequestOverhead + r.SteadyTTFT
	r.PrefillShare = st.share
	r.ServeThroughput = throughput(r.Rate, l.OutputTokens, gpus, r.TPOT)
	r.Notes = append(r.Notes, r.loadNotes()...)
}

// loadNotes say plainly where the load sits against the engine.
func (r *ServeLatency) loadNotes() []string {
	var out []string
	if r.Overloaded {
		out = append(out, fmt.Sprintf("overloaded: %.3g requests/s asked, the deployment sustains at most %.3g; the queue grows without bound (latencies shown at the maximum rate)",
			r.Load.Rate, r.MaxRate))
	}
	if r.SlotWait > 0 {
		out = append(out, fmt.Sprintf("the KV cache admits %d sequences of %.0f tokens per replica; the other requests wait %v for a slot",
			r.Slots, r.AdmitTokens, r.SlotWait))
	}
	if r.PrefillShare > 0.5 {
		out = append(out, fmt.Sprintf("prefill takes %.0f%% of the engine's time: time to first token grows fast with load", 100*r.PrefillShare))
	}
	return out
}
