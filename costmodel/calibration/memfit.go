package calibration

import (
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// RanFit is the fit check of the compared configurations that ran but
// report no memory: each is predicted at the whole HBM (--hbm-fraction
// 1), since the source does not say how close to it the run came.
type RanFit struct {
	// Rows checked, of which Fit are predicted to fit; NotFit are the
	// others, each with its Reason.
	Rows, Fit int
	NotFit    []MemoryRow
}

// ranFit checks every compared case (one per experiment, as Cases keeps
// them) whose row reports no memory and whose run completed.
func ranFit(rows []Row, base costmodel.Assumptions) RanFit {
	var f RanFit
	cases, _ := Cases(rows)
	for _, c := range cases {
		if measured, _, err := measuredMemory(c.Row); err != nil || measured > 0 || c.Row.Get("outcome") != "ok" {
			continue
		}
		m, err := c.memoryRow(base, 0, "", true)
		if err != nil {
			continue
		}
		m.WholeHBM, m.Budget = true, c.Cluster.GPU.HBM
		m.Fits = m.Peak <= m.Budget
		f.Rows++
		if m.Fits {
			f.Fit++
			continue
		}
		m.Reason = c.fitReason()
		f.NotFit = append(f.NotFit, m)
	}
	return f
}

// fitReason says, from what the row states, why a configuration that
// ran is predicted not to fit.
func (c Case) fitReason() string {
	var why []string
	if c.Target.Metric == LayerTime {
		why = append(why, "the source times single layers; it does not claim that the whole model ran in this plan")
	}
	rc := c.Row.Get("recompute")
	if has(rc, "not stated") || has(rc, "per recipe") {
		why = append(why, "the source does not state its recompute or activation offload (the case assumes "+c.Plan.Recompute.String()+")")
	}
	if len(why) == 0 {
		return "over-predicted; no setting the row states explains it"
	}
	return strings.Join(why, "; ")
}
