package costmodel

import "fmt"

// disaggNotes say plainly where the load sits against each pool.
func (r *DisaggLatency) disaggNotes() []string {
	var out []string
	p, d := r.Prefill, r.Decode
	switch {
	case p.Slots < 1:
		out = append(out, fmt.Sprintf("prefill pool: the weights leave no room for one prompt of %d tokens", r.Load.InputTokens))
	case p.Overloaded && r.Load.Concurrency > 0:
		out = append(out, fmt.Sprintf("prefill pool saturated: its %d workers take at most %.3g requests/s; the other requests of the %g in flight wait in the prefill queue (%v)",
			p.Workers, p.MaxRate, r.Load.Concurrency, p.QueueWait))
	case p.Overloaded:
		out = append(out, fmt.Sprintf("prefill pool overloaded: %.3g requests/s asked, its %d workers sustain at most %.3g; prompts queue without bound (shown at utilization %.2f)",
			r.Rate, p.Workers, p.MaxRate, p.Utilization))
	case p.Utilization > 0.8:
		out = append(out, fmt.Sprintf("prefill workers are %.0f%% busy: time to first token grows fast with load", 100*p.Utilization))
	}
	switch {
	case d.Slots < 1:
		out = append(out, fmt.Sprintf("decode pool: the weights leave no room for one sequence of %.0f tokens", d.AdmitTokens))
	case d.SlotLimited && r.SlotWait > 0:
		out = append(out, fmt.Sprintf("decode pool: the KV cache admits %d sequences of %.0f tokens per worker, all busy; the other requests wait %v for a slot",
			d.Slots, d.AdmitTokens, r.SlotWait))
	case d.SlotLimited:
		out = append(out, fmt.Sprintf("decode pool overloaded: the KV cache admits %d sequences of %.0f tokens per worker, fewer than the load keeps decoding; requests wait for a slot and the queue grows without bound (%.3g requests/s asked, at most %.3g)",
			d.Slots, d.AdmitTokens, r.Rate, d.MaxRate))
	}
	link := "the network"
	if r.Transfer.ScaleUp {
		link = "NVLink (one scale-up domain)"
	}
	out = append(out, fmt.Sprintf("each prompt's KV cache (%v) moves from the prefill to the decode worker over %s in %v, counted in TTFT (the decode worker streams the first token)",
		r.Transfer.Bytes, link, r.Transfer.Time))
	return out
}
