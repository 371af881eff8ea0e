package search

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// dominance drops uneven layer splits that buy nothing. Lighter first and
// last stages (mid-extra, end-shift) exist to balance memory; a plan
// split unevenly whose peak is no lower and whose speed is no higher than
// the same plan split evenly (Normalize's balanced split, with the same
// virtual stages) is that plan made worse, and ranking it would only
// crowd the table. The balanced split of a layout and vpp is evaluated
// first (the MidExtra and EndShift axes start at 0), so its results are
// known when the uneven ones come; a plan whose balanced twin is unknown
// (rejected by a bound, or not on the axes) or over the budget is kept.
type dominance struct {
	layers int
	even   map[variantKey]evenResult
}

// variantKey is what distinguishes the plans of one layout and split:
// the plan's variant, its expert layout and its virtual stages (each vpp
// has its own balanced split).
type variantKey struct {
	zero, mbs, vpp, ep, etp int
	rec                     costmodel.Recompute
	sp                      bool
}

type evenResult struct {
	peak      hardware.Bytes
	tokensPer float64 // 0 when over the budget
}

func newDominance(layers int) *dominance {
	return &dominance{layers: layers, even: make(map[variantKey]evenResult, 128)}
}

// reset starts layout g (a new tp, cp, pp).
func (d *dominance) reset(costmodel.Plan) { clear(d.even) }

func key(p costmodel.Plan) variantKey {
	return variantKey{zero: p.ZeRO, mbs: p.MicroBatch, vpp: p.VPP, ep: p.EP, etp: p.ETP, rec: p.Recompute, sp: p.SP}
}

// balanced reports whether p has the balanced split of its layout and
// vpp.
func (d *dominance) balanced(p costmodel.Plan) bool {
	f, l, _ := layerSplit(d.layers, p.PP, p.VPP, 0, 0)
	return p.FirstStageLayers == f && p.LastStageLayers == l
}

// record keeps the result of a balanced plan.
func (d *dominance) record(p costmodel.Plan, peak hardware.Bytes, tokensPer float64) {
	if d.balanced(p) {
		d.even[key(p)] = evenResult{peak, tokensPer}
	}
}

// dominated reports whether fitting plan p, split unevenly, is no better
// than its balanced twin in memory and in speed.
func (d *dominance) dominated(p costmodel.Plan, peak hardware.Bytes, tokensPer float64) bool {
	if d.balanced(p) {
		return false
	}
	e, ok := d.even[key(p)]
	return ok && e.tokensPer > 0 && peak >= e.peak && tokensPer <= e.tokensPer
}
