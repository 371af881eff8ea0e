package search

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// fewestReplicas is the smallest replica count of shape sh that meets
// the targets, by doubling and then bisection (latency falls as the
// replicas share the load), or nil with the reason none up to
// MaxReplicas does.
func (q LoadQuery) fewestReplicas(sh shape) (*LoadLayout, string, error) {
	one, err := q.replica(sh, 1)
	if err != nil {
		return nil, "", err
	}
	if one.Slots < 1 {
		return nil, one.Notes[0], nil
	}
	if q.meets(one) {
		return q.layout(sh, 1, one), "", nil
	}
	lo, hi := 1, 2
	var at *costmodel.ServeLatency
	for ; ; lo, hi = hi, 2*hi {
		if hi > q.MaxReplicas {
			hi = q.MaxReplicas
		}
		if at, err = q.replica(sh, hi); err != nil {
			return nil, "", err
		}
		if q.meets(at) {
			break
		}
		if hi == q.MaxReplicas {
			return nil, q.missReason(at, hi), nil
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		l, err := q.replica(sh, mid)
		if err != nil {
			return nil, "", err
		}
		if q.meets(l) {
			hi, at = mid, l
		} else {
			lo = mid
		}
	}
	return q.layout(sh, hi, at), "", nil
}

// replica is the steady state of one replica of shape sh carrying
// 1/replicas of the load, with its totals scaled to the replicas.
func (q LoadQuery) replica(sh shape, replicas int) (*costmodel.ServeLatency, error) {
	c, err := hardware.ClusterForGPUs(q.GPU, sh.tp*sh.pp*max(sh.dp, 1), q.GPUsPerNode)
	if err != nil {
		return nil, err
	}
	l := q.Load
	l.Concurrency /= float64(replicas)
	l.Rate /= float64(replicas)
	s := costmodel.ServePlan{TP: sh.tp, PP: sh.pp, DP: sh.dp, EP: sh.ep, Replicas: 1, Weights: q.Weights, KV: q.KV}
	r, err := costmodel.EstimateServeLoad(q.Model, c, s, l, q.Engine, q.Assumptions)
	if err != nil {
		return nil, err
	}
	scale(r, replicas, q.Load)
	return r, nil
}

// scale turns one replica's steady state into that of n replicas.
func scale(r *costmodel.ServeLatency, n int, load costmodel.ServeLoad) {
	f := float64(n)
	r.Load = load
	r.Concurrency *= f
	r.Rate *= f
	r.MaxRate *= f
	r.TokensPerSecond *= f
}

// meets reports whether a steady state meets the targets: it fits, is
// not overloaded, every request in flight holds a KV slot, and TTFT and
// TPOT are within their targets.
func (q LoadQuery) meets(r *costmodel.ServeLatency) bool {
	switch {
	case r.Slots < 1 || r.Overloaded || r.SlotWait > 0:
		return false
	case q.TTFT > 0 && r.TTFT > q.TTFT:
		return false
	case q.TPOT > 0 && r.TPOT > q.TPOT:
		return false
	}
	return true
}

// missReason says why n replicas still miss the targets.
func (q LoadQuery) missReason(r *costmodel.ServeLatency, n int) string {
	switch {
	case r.Overloaded:
		return fmt.Sprintf("overloaded even on %d replicas", n)
	case r.SlotWait > 0:
		return fmt.Sprintf("the KV cache holds %d sequences per replica; requests still wait for a slot on %d replicas", r.Slots, n)
	}
	return fmt.Sprintf("on %d replicas TTFT %v (target %v), TPOT %v (target %v): the per-request floor is above the target",
		n, r.TTFT, target(q.TTFT), r.TPOT, target(q.TPOT))
}

// target prints a target, or "none".
func target(t hardware.Seconds) string {
	if t == 0 {
		return "none"
	}
	return t.String()
}

// layout names one answer.
func (q LoadQuery) layout(sh shape, replicas int, r *costmodel.ServeLatency) *LoadLayout {
	unit := "replicas"
	if replicas == 1 {
		unit = "replica"
	}
	return &LoadLayout{Layout: fmt.Sprintf("%s x %d %s", q.shapeName(sh), replicas, unit), TP: sh.tp, PP: sh.pp, DP: sh.dp, EP: sh.ep,
		Replicas: replicas, GPUs: sh.tp * sh.pp * max(sh.dp, 1) * replicas, Latency: r}
}

// shapeName names a replica shape: tpN-ppM, with -dpD and -epE when
// set.
func (LoadQuery) shapeName(sh shape) string {
	name := fmt.Sprintf("tp%d-pp%d", sh.tp, sh.pp)
	if sh.dp > 1 {
		name += fmt.Sprintf("-dp%d", sh.dp)
	}
	if sh.ep > 1 {
		name += fmt.Sprintf("-ep%d", sh.ep)
	}
	return name
}
