package search

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// disaggRounds bounds the alternation of fewestDisagg, which one round
// settles at a rate and, sized beside an unqueued prefill pool, for a
// closed loop too.
const disaggRounds = 8

// fewestDisagg is the cheapest deployment of prefill shape ps and decode
// shape ds: the fewest decode workers whose TPOT meets the target without
// running out of KV slots, sized first beside a prefill pool too large to
// queue (q.most workers), then the fewest prefill workers whose TTFT
// meets it without overload beside them. At a rate the decode pool does
// not depend on the prefill pool and one round settles it; a closed
// loop's rate falls as the prefill pool shrinks to its fewest, so the
// decode pool sized for the larger rate still meets TPOT; should it not,
// the two are alternated until neither moves. Nil with the reason when
// no count up to MaxReplicas does.
func (q DisaggQuery) fewestDisagg(ps, ds shape) (*DisaggDeployment, string, error) {
	np, nd := q.most(ps), 0
	var at *costmodel.DisaggLatency
	for range disaggRounds {
		n, _, why, err := q.fewest(func(n int) (*costmodel.DisaggLatency, error) { return q.disagg(ps, np, ds, n) }, q.meetsDecode, ds)
		if err != nil || why != "" {
			return nil, "decode: " + why, err
		}
		m, l, why, err := q.fewest(func(m int) (*costmodel.DisaggLatency, error) { return q.disagg(ps, m, ds, n) }, q.meetsPrefill, ps)
		if err != nil || why != "" {
			return nil, "prefill: " + why, err
		}
		at = l
		if n == nd && m == np || q.meetsDecode(l) && l.SlotWait == 0 {
			break
		}
		np, nd = m, n
	}
	if !q.meetsDecode(at) || !q.meetsPrefill(at) || at.SlotWait > 0 {
		return nil, fmt.Sprintf("TTFT %v (target %v), TPOT %v (target %v) with %d prefill and %d decode workers: the pools do not settle",
			at.TTFT, target(q.TTFT), at.TPOT, target(q.TPOT), at.Prefill.Workers, at.Decode.Workers), nil
	}
	return q.deployment(ps, ds, at), "", nil
}

// most is the largest worker count of shape sh the search tries:
// MaxReplicas, within half the GPU limit.
func (q DisaggQuery) most(sh shape) int {
	return max(min(q.MaxReplicas, hardware.MaxGPUs/2/(sh.tp*sh.pp*max(sh.dp, 1))), 1)
}

// fewest is the smallest count n with meets(eval(n)), by doubling and
// then bisection (more workers share the load, so the latencies fall),
// or the reason none up to MaxReplicas (and the GPU limit) does: the
// largest count is tried first, so a target below the per-request floor
// costs one estimate. (Past a scale-up domain the KV cache moves over
// the network, so a TTFT within a transfer's time of its target may be
// met by a few workers on NVLink and missed by many; the search then
// reports a miss.)
func (q DisaggQuery) fewest(eval func(int) (*costmodel.DisaggLatency, error), meets func(*costmodel.DisaggLatency) bool, sh shape) (int, *costmodel.DisaggLatency, string, error) {
	top := q.most(sh)
	if l, err := eval(top); err != nil || noRoom(l) != nil || !meets(l) {
		return q.rejectAtTop(l, top, err)
	}
	lo, hi := 0, 1
	var at *costmodel.DisaggLatency
	for {
		l, err := eval(hi)
		if err != nil {
			return 0, nil, "", err
		}
		if e := noRoom(l); e != nil {
			return 0, nil, "", e
		}
		if meets(l) {
			at = l
			break
		}
		if hi >= top {
			return 0, nil, q.disaggMiss(l, hi), nil
		}
		lo, hi = hi, min(2*hi, top)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		l, err := eval(mid)
		if err != nil {
			return 0, nil, "", err
		}
		if meets(l) {
			hi, at = mid, l
		} else {
			lo = mid
		}
	}
	return hi, at, "", nil
}

// rejectAtTop is fewest's answer when the largest count top misses:
// the error, the pool without room, or why top still misses.
func (q DisaggQuery) rejectAtTop(l *costmodel.DisaggLatency, top int, err error) (int, *costmodel.DisaggLatency, string, error) {
	if err != nil {
		return 0, nil, "", err
	}
	if e := noRoom(l); e != nil {
		return 0, nil, "", e
	}
	return 0, nil, q.disaggMiss(l, top), nil
}

// noRoom says a pool's weights leave no KV room (errNoRoom naming the
// pool), or nil.
func noRoom(l *costmodel.DisaggLatency) *errNoRoom {
	switch {
	case l.Prefill.Slots < 1:
		return &errNoRoom{prefill: true, why: fmt.Sprintf("the weights leave no room for one prompt of %d tokens", l.Load.InputTokens)}
	case l.Decode.Slots < 1:
		return &errNoRoom{why: fmt.Sprintf("the weights leave no room for one sequence of %.0f tokens", l.Decode.AdmitTokens)}
	}
	return nil
}

// errNoRoom is a layout of one pool that holds no request, whatever the
// other pool: the search drops it from every pair.
type errNoRoom struct {
	prefill bool
	why     string
}

func (e *errNoRoom) Error() string { return e.why }

// meetsDecode: the decode pool keeps every request in a KV slot and TPOT
// is within its target.
func (q DisaggQuery) meetsDecode(l *costmodel.DisaggLatency) bool {
	return !l.Decode.SlotLimited && (q.TPOT == 0 || l.TPOT <= q.TPOT)
}

// meetsPrefill: the prefill pool keeps up and TTFT, less a wait for a
// decode slot (the decode pool's to remove), is within its target.
func (q DisaggQuery) meetsPrefill(l *costmodel.DisaggLatency) bool {
	return !l.Prefill.Overloaded && (q.TTFT == 0 || l.TTFT-l.SlotWait <= q.TTFT)
}

// disaggMiss says why n workers still miss.
func (q DisaggQuery) disaggMiss(l *costmodel.DisaggLatency, n int) string {
	switch {
	case l.Prefill.Overloaded:
		return fmt.Sprintf("overloaded even on %d workers", n)
	case l.Decode.SlotLimited || l.SlotWait > 0:
		return fmt.Sprintf("the KV cache holds %d sequences per worker; requests still wait for a slot on %d workers", l.Decode.Slots, n)
	}
	return fmt.Sprintf("on %d workers TTFT %v (target %v), TPOT %v (target %v): the per-request floor is above the target",
		n, l.TTFT, target(q.TTFT), l.TPOT, target(q.TPOT))
}

// disagg estimates np workers of ps and nd of ds.
func (q DisaggQuery) disagg(ps shape, np int, ds shape, nd int) (*costmodel.DisaggLatency, error) {
	d := costmodel.DisaggPlan{Prefill: q.plan(ps, np), Decode: q.plan(ds, nd)}
	return costmodel.EstimateDisaggregated(q.Model, q.GPU, q.GPUsPerNode, d, q.Load, q.Engine, q.Assumptions)
}

// plan is n workers of shape sh in the query's formats.
func (q DisaggQuery) plan(sh shape, n int) costmodel.ServePlan {
	return costmodel.ServePlan{TP: sh.tp, PP: sh.pp, DP: sh.dp, EP: sh.ep, Replicas: n, Weights: q.Weights, KV: q.KV}
}

// deployment names one answer.
func (q DisaggQuery) deployment(ps, ds shape, l *costmodel.DisaggLatency) *DisaggDeployment {
	np, nd := l.Prefill.Workers, l.Decode.Workers
	return &DisaggDeployment{Prefill: fmt.Sprintf("%s x %d", q.shapeName(ps), np), Decode: fmt.Sprintf("%s x %d", q.shapeName(ds), nd),
		Plan: costmodel.DisaggPlan{Prefill: q.plan(ps, np), Decode: q.plan(ds, nd)}, PrefillWorkers: np, DecodeWorkers: nd, GPUs: l.GPUs, Latency: l}
}
