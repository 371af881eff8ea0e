package search

import (
	"iter"

	"github.com/gpu-planner/planner/costmodel"
)

// Every point of the grid is accounted for exactly once: the iterators
// below walk the axes in the order tp, cp, pp, ep, etp, vpp, mid-extra, end-shift, ZeRO,
// recompute, SP, micro-batch, and a point that fails a check is counted
// under the first reason that rejects it; when a check rejects a value of
// an outer axis, every grid point below it is counted at once (Space's
// per-axis sizes). What the iterators yield is canonical: Plan.Normalize
// returns it unchanged.

// Layouts yields one plan per valid (tp, cp, pp, vpp, split, ZeRO) on
// gpus GPUs, with dp derived and the recompute, SP and micro-batch left
// for Variants. It adds the grid's size to c.Considered and counts the
// points it rejects.
func (s Space) Layouts(m *costmodel.Model, job Job, gpus int, c *Counts) iter.Seq[costmodel.Plan] {
	return func(yield func(costmodel.Plan) bool) {
		for g := range s.splits(m, job, gpus, c) {
			for l := range s.zeros(g, c) {
				if !yield(l) {
					return
				}
			}
		}
	}
}

// splits yields one plan per valid (tp, cp, pp, vpp, split), the layouts
// of which differ only in their ZeRO stage.
func (s Space) splits(m *costmodel.Model, job Job, gpus int, c *Counts) iter.Seq[costmodel.Plan] {
	return func(yield func(costmodel.Plan) bool) {
		n := s.below()
		c.Considered += n.all
		for _, tp := range s.TP {
			for _, cp := range s.CP {
				for _, pp := range s.PP {
					if !divides(gpus, tp, cp, pp) {
						c.reject(RejectLayout, n.pp)
						continue
					}
					p := job.base()
					p.TP, p.CP, p.PP, p.DP = tp, cp, pp, gpus/(tp*cp*pp)
					for _, ep := range s.EP {
						for _, etp := range s.ETP {
							if !expertsSplit(m, p, ep, etp) {
								c.reject(RejectExperts, n.ep)
								continue
							}
							p.EP, p.ETP = ep, etp
							for _, vpp := range s.VPP {
								for i, extra := range s.MidExtra {
									for j, shift := range s.EndShift {
										first, last, r := layerSplit(m.Layers, pp, vpp, moot(extra, i, pp <= 2), moot(shift, j, pp == 1))
										if r != noReason {
											c.reject(r, n.split)
											continue
										}
										p.VPP, p.FirstStageLayers, p.LastStageLayers = vpp, first, last
										if !yield(p) {
											return
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// zeros yields the ZeRO stages of a split. With nothing to shard over
// (dp*cp = 1) every stage is the same plan, and only the first of the
// axis is kept.
func (s Space) zeros(split costmodel.Plan, c *Counts) iter.Seq[costmodel.Plan] {
	return func(yield func(costmodel.Plan) bool) {
		p := split
		for i, z := range s.ZeRO {
			if i > 0 && p.ShardDegree() == 1 {
				c.reject(RejectDuplicate, s.below().zero)
				continue
			}
			p.ZeRO = z
			if !yield(p) {
				return
			}
		}
	}
}

// Variants yields the recompute x SP x micro-batch candidates of a layout
// from Layouts, counting the points it rejects.
func (s Space) Variants(layout costmodel.Plan, c *Counts) iter.Seq[costmodel.Plan] {
	return func(yield func(costmodel.Plan) bool) {
		p := layout
		for _, r := range s.Recompute {
			p.Recompute = r
			for i, sp := range s.SP {
				on, reason := seqParallel(p, sp, i)
				if reason != noReason {
					c.reject(reason, len(s.MicroBatch))
					continue
				}
				p.SP = on
				for _, b := range s.MicroBatch {
					if !batchDivides(p.GlobalBatch, p.DP, b) {
						c.reject(RejectBatch, 1)
						continue
					}
					p.MicroBatch = b
					if !yield(p) {
						return
					}
				}
			}
		}
	}
}

// rejectVariants counts every variant of a layout without yielding any:
// those Variants would reject under their own reasons, the rest under r.
// The count does not depend on the recompute policy, so one pass over
// SP x micro-batch is multiplied by the recompute axis.
func (s Space) rejectVariants(layout costmodel.Plan, r Reason, c *Counts) {
	var one Counts
	for i, sp := range s.SP {
		if _, reason := seqParallel(layout, sp, i); reason != noReason {
			one.reject(reason, len(s.MicroBatch))
			continue
		}
		for _, b := range s.MicroBatch {
			if batchDivides(layout.GlobalBatch, layout.DP, b) {
				one.reject(r, 1)
			} else {
				one.reject(RejectBatch, 1)
			}
		}
	}
	for i, v := range one.Rejected {
		c.Rejected[i] += v * len(s.Recompute)
	}
}

// variantCounts keeps what rejectVariants counts for the last layout it
// was asked about: the count depends on the layout's tp, cp and dp (the
// sequence-parallel and batch checks) and the reason only, which the
// splits and ZeRO stages of one (tp, cp, pp) share.
type variantCounts struct {
	key [5]int
	c   Counts
	ok  bool
}

// add counts the variants of layout l as rejectVariants does.
func (v *variantCounts) add(s Space, l costmodel.Plan, r Reason, c *Counts) {
	if k := [5]int{l.TP, l.CP, l.DP, l.EP, int(r)}; !v.ok || k != v.key {
		v.c = Counts{}
		s.rejectVariants(l, r, &v.c)
		v.key, v.ok = k, true
	}
	c.add(v.c)
}

// batchPossible reports whether some micro-batch size of the axis makes
// up the global batch over dp data-parallel ranks.
func (s Space) batchPossible(gbs, dp int) bool {
	for _, b := range s.MicroBatch {
		if batchDivides(gbs, dp, b) {
			return true
		}
	}
	return false
}

// Candidates yields every candidate plan of the space on gpus GPUs: the
// variants of every layout.
func (s Space) Candidates(m *costmodel.Model, job Job, gpus int, c *Counts) iter.Seq[costmodel.Plan] {
	return func(yield func(costmodel.Plan) bool) {
		for l := range s.Layouts(m, job, gpus, c) {
			for p := range s.Variants(l, c) {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// moot is axis value v (the i-th of its axis) where the axis changes
// nothing: a mid-stage extra without middle stages (pp <= 2), an end
// shift without a split (pp 1). There the axis's first value stands for
// the balanced split, and layerSplit rejects the others as duplicates;
// otherwise an axis without 0 (--mid-extra 10) would drop every plan
// with fewer stages.
func moot(v, i int, none bool) int {
	if none && i == 0 {
		return 0
	}
	return v
}
