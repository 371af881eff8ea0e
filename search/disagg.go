package search

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// DisaggQuery asks for the fewest GPUs of a disaggregated deployment, a
// prefill pool and a decode pool (costmodel.DisaggPlan), that serves the
// load within the targets. The embedded LoadQuery carries the model,
// GPU, load, engine, targets and the dp and ep of every layout; its TP
// and PP pin both pools unless the pool's own pin is set.
type DisaggQuery struct {
	LoadQuery
	// PrefillTP, PrefillPP, DecodeTP and DecodePP pin one pool's layout
	// when > 0.
	PrefillTP, PrefillPP, DecodeTP, DecodePP int
}

// DisaggDeployment is one pair of layouts with the workers that meet the
// targets.
type DisaggDeployment struct {
	// Prefill and Decode name the pools: "tp8-pp1 x 4".
	Prefill        string                   `json:"prefill"`
	Decode         string                   `json:"decode"`
	Plan           costmodel.DisaggPlan     `json:"plan"`
	PrefillWorkers int                      `json:"prefill_workers"`
	DecodeWorkers  int                      `json:"decode_workers"`
	GPUs           int                      `json:"gpus"`
	Latency        *costmodel.DisaggLatency `json:"latency"`
}

// DisaggResult answers a DisaggQuery: the deployments that meet the
// targets, fewest GPUs first, the pairs that cannot with the reason, and
// the aggregated answer of the same query beside them.
type DisaggResult struct {
	ServeContext
	// GPUs is the fewest GPUs of any deployment that meets the targets
	// (0: none does).
	GPUs        int                `json:"gpus"`
	Deployments []DisaggDeployment `json:"deployments"`
	Missed      []Missed           `json:"missed,omitempty"`
	// Aggregated is the aggregated search of the same load and targets
	// (ServeLoad); Saved is its fewest GPUs less GPUs (negative:
	// disaggregation takes more), 0 when either finds none.
	Aggregated *LoadResult `json:"aggregated"`
	Saved      int         `json:"gpus_saved"`
}

// Best is the deployment with the fewest GPUs, or nil.
func (r *DisaggResult) Best() *DisaggDeployment {
	if len(r.Deployments) == 0 {
		return nil
	}
	return &r.Deployments[0]
}

// ServeDisaggregated searches every pair of a prefill layout and a
// decode layout among those the aggregated search enumerates
// (LoadQuery.shapes, each pool pinned by its own TP and PP) and, for
// each, the fewest decode workers that meet TPOT and the fewest prefill
// workers that meet TTFT (fewestDisagg), ranked by GPUs, then
// GPU-seconds per token.
func ServeDisaggregated(q DisaggQuery) (*DisaggResult, error) {
	base, err := q.LoadQuery.normalize()
	if err != nil {
		return nil, err
	}
	q.LoadQuery = base
	pq, dq, err := q.pools()
	if err != nil {
		return nil, err
	}
	agg, err := ServeLoad(base)
	if err != nil {
		return nil, err
	}
	r := &DisaggResult{ServeContext: q.context(), Aggregated: agg}
	if err := q.searchPairs(r, pq.shapes(), dq.shapes()); err != nil {
		return nil, err
	}
	slices.SortStableFunc(r.Deployments, rankDisagg)
	if best := r.Best(); best != nil {
		r.GPUs = best.GPUs
		if agg.GPUs > 0 {
			r.Saved = agg.GPUs - r.GPUs
		}
	}
	return r, nil
}

// pools are the load queries whose shapes each pool searches.
func (q DisaggQuery) pools() (LoadQuery, LoadQuery, error) {
	pq, dq := q.LoadQuery, q.LoadQuery
	for _, pin := range []struct {
		name   string
		v      int
		target *int
	}{{"prefill tp", q.PrefillTP, &pq.TP}, {"prefill pp", q.PrefillPP, &pq.PP}, {"decode tp", q.DecodeTP, &dq.TP}, {"decode pp", q.DecodePP, &dq.PP}} {
		if pin.v < 0 || pin.v > hardware.MaxGPUs {
			return pq, dq, fmt.Errorf("search: %s %d is not in [0, %d] (0: search)", pin.name, pin.v, hardware.MaxGPUs)
		}
		if pin.v > 0 {
			*pin.target = pin.v
		}
	}
	for _, tp := range []int{pq.TP, dq.TP} {
		if tp > 0 {
			if err := q.Model.CheckTP(tp); err != nil {
				return pq, dq, err
			}
		}
	}
	return pq, dq, nil
}

// searchPairs fills r with the deployments of every pair of shapes. A
// pool's pipeline shapes are tried only while none of its pp = 1 shapes
// has met the targets and its pp is not pinned (a pipeline only
// lengthens the step once one stage holds the model); a shape whose
// weights leave no KV room is reported once and dropped.
func (q DisaggQuery) searchPairs(r *DisaggResult, prefill, decode []shape) error {
	metP, metD := false, false
	full := map[bool]map[shape]bool{true: {}, false: {}}
	for _, ps := range prefill {
		if ps.pp > 1 && q.PrefillPP == 0 && q.PP == 0 && metP {
			continue
		}
		for _, ds := range decode {
			if ds.pp > 1 && q.DecodePP == 0 && q.PP == 0 && metD || full[true][ps] || full[false][ds] {
				continue
			}
			dep, why, err := q.fewestDisagg(ps, ds)
			var room *errNoRoom
			if errors.As(err, &room) {
				sh, pool := ds, "decode "
				if room.prefill {
					sh, pool = ps, "prefill "
				}
				full[room.prefill][sh] = true
				r.Missed = append(r.Missed, Missed{Layout: pool + q.shapeName(sh), Reason: room.why})
				continue
			}
			if err != nil {
				return err
			}
			if dep == nil {
				r.Missed = append(r.Missed, Missed{Layout: "prefill " + q.shapeName(ps) + ", decode " + q.shapeName(ds), Reason: why})
				continue
			}
			metP, metD = metP || ps.pp == 1, metD || ds.pp == 1
			r.Deployments = append(r.Deployments, *dep)
		}
	}
	return nil
}

// rankDisagg orders deployments by GPUs, then GPU-seconds per token,
// then TTFT, then the smaller layouts.
func rankDisagg(a, b DisaggDeployment) int {
	pa, pb := a.Plan.Prefill, b.Plan.Prefill
	da, db := a.Plan.Decode, b.Plan.Decode
	return cmp.Or(cmp.Compare(a.GPUs, b.GPUs), cmp.Compare(a.Latency.GPUSecondsPerToken, b.Latency.GPUSecondsPerToken),
		cmp.Compare(a.Latency.TTFT, b.Latency.TTFT), cmp.Compare(pa.TP, pb.TP), cmp.Compare(pa.PP, pb.PP),
		cmp.Compare(da.TP, db.TP), cmp.Compare(da.PP, db.PP), cmp.Compare(pa.DP, pb.DP), cmp.Compare(da.DP, db.DP))
}
