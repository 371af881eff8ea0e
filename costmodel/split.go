package costmodel

import "fmt"

// The layer split of a pipeline. The model's layers run through pp*v
// model chunks (virtual stages) 0, 1, ..., pp*v-1 in order; pipeline rank
// r holds chunks r, r+pp, r+2pp, ... (Narayanan et al. 2021, sec. 2.2.2),
// so with v = 1 each rank holds one chunk, its stage.
//
// An even split gives every chunk layers/(pp*v) layers. An uneven split
// (Plan.FirstStageLayers and LastStageLayers) sets how many layers the
// first and the last pipeline rank hold in all their chunks; every chunk
// but the two end chunks (0 and pp*v-1) holds the same count c, and the
// end chunks hold what is left on their ranks:
//
//	chunk 0       = FirstStageLayers - (v-1)*c
//	chunk pp*v-1  = LastStageLayers  - (v-1)*c
//	c             = (layers - FirstStageLayers - LastStageLayers) / ((pp-2)*v)   for pp > 2
//	c             = ceil(layers / (2v))                                           for pp = 2
//
// (pp = 2 has no middle rank to fix c, so it takes the balanced chunk.)
// This is Llama 3 405B's split: 126 layers on pp 16, "we reduce one
// Transformer layer each from the first and the last stages" of an
// interleaved schedule, so that "the first model chunk on the first stage
// has only the embedding, and the last model chunk on the last stage has
// only output projection and loss calculation" (Dubey et al. 2024, sec.
// 3.3.2). Under interleaving an end chunk may therefore hold no layer at
// all (126 layers in 128 one-layer chunks, v = 8); without interleaving
// every stage keeps at least one.

// balanceLayers fills FirstStageLayers and LastStageLayers when the
// layers do not divide evenly into pp*v chunks: the middle chunks get
// ceil(layers/(pp*v)) layers and the two end chunks give up the
// difference, the first chunk the larger half (it carries the embedding
// and, under 1F1B, the most micro-batches in flight). A plan that names
// its split keeps it; one that names one end gives the other end the
// middle ranks' share; a split that does not add up is an error.
func (p Plan) balanceLayers(layers int) (Plan, error) {
	f, l := p.FirstStageLayers, p.LastStageLayers
	v := p.VPP
	switch {
	case p.PP > layers:
		return p, fmt.Errorf("costmodel: pp=%d exceeds the %d layers", p.PP, layers)
	case f == 0 && l == 0 && layers%(p.PP*v) == 0:
		return p, nil
	case p.PP == 1:
		return p, fmt.Errorf("costmodel: first/last stage layers (%d, %d) need pp > 1", f, l)
	case f == 0 && l == 0:
		p.FirstStageLayers, p.LastStageLayers = balancedEnds(layers, p.PP, v)
	case f == 0 || l == 0:
		set := f + l
		if (layers-set)%(p.PP-1) != 0 {
			return p, fmt.Errorf("costmodel: %d layers minus %d on one end stage do not divide over the other %d stages", layers, set, p.PP-1)
		}
		mid := (layers - set) / (p.PP - 1)
		if f == 0 {
			p.FirstStageLayers = mid
		} else {
			p.LastStageLayers = mid
		}
	}
	return p, p.checkSplit(layers)
}

// balancedEnds is the default uneven split of layers over pp ranks of v
// chunks: the valid split whose most loaded rank holds the fewest layers,
// and of those the one with the largest middle chunk. Every chunk but the
// two end chunks holds c layers and the end chunks share the other
// e = layers - (pp*v-2)*c, the first the smaller half; c starts at
// ceil(layers/(pp*v)), which is the answer whenever its end chunks are
// valid (not negative, and not empty without interleaving). A smaller c
// moves layers to the end chunks: 32 layers on pp 10 are 3 on each of the
// 8 middle stages and 4 on each end. pp 2 has no middle rank, so c is
// the balanced chunk (middleChunk). Without interleaving pp <= layers
// always has a valid split. Interleaved chunks keep c: a smaller one
// would heap the layers on the end ranks (32 layers on pp 4 with v 5 have
// no split of chunks of 2, and chunks of 1 would put 11 on each end), so
// such a plan is refused and the search moves on.
func balancedEnds(layers, pp, v int) (first, last int) {
	c := (layers + pp*v - 1) / (pp * v)
	ends := func(c int) (int, int) {
		e := layers - (pp*v-2)*c
		return e/2 + (v-1)*c, e - e/2 + (v-1)*c
	}
	if pp == 2 || v > 1 {
		return ends(c)
	}
	best, load := 0, 0
	for ; c >= 1; c-- {
		f, l := ends(c)
		e0 := f - (v-1)*c
		if e0 < 0 || f < 1 || v == 1 && e0 < 1 {
			continue
		}
		if m := max(v*c, l); best == 0 || m < load {
			best, load = c, m
		}
	}
	return ends(max(best, 1))
}

// checkSplit verifies an uneven split: end ranks with at least one layer,
// middle ranks of equal chunks that account for every layer, and end
// chunks that are not negative (interleaved) or not empty (v = 1).
func (p Plan) checkSplit(layers int) error {
	f, l, v := p.FirstStageLayers, p.LastStageLayers, p.VPP
	rest := layers - f - l
	ok := f >= 1 && l >= 1 && rest >= 0
	if p.PP == 2 {
		ok = ok && rest == 0
	} else {
		ok = ok && rest >= (p.PP-2)*v && rest%((p.PP-2)*v) == 0
	}
	if !ok {
		if v > 1 {
			return fmt.Errorf("costmodel: %d layers cannot be split %d on the first stage, %d on the last and equally over the %d chunks of the %d middle stages",
				layers, f, l, (p.PP-2)*v, p.PP-2)
		}
		return fmt.Errorf("costmodel: %d layers cannot be split %d on the first stage, %d on the last and equally over %d middle stages",
			layers, f, l, p.PP-2)
	}
	c := p.middleChunk(layers)
	if first, last := f-(v-1)*c, l-(v-1)*c; first < 0 || last < 0 {
		return fmt.Errorf("costmodel: %d layers on the first stage and %d on the last leave their end chunks %d and %d layers beside %d-layer middle chunks (vpp=%d)",
			f, l, first, last, c, v)
	}
	return nil
}

// uneven reports whether the first and last stages have their own counts.
func (p Plan) uneven() bool { return p.FirstStageLayers != 0 || p.LastStageLayers != 0 }

// middleChunk is the layers of every chunk but the two end chunks.
func (p Plan) middleChunk(layers int) int {
	switch {
	case !p.uneven():
		return layers / (p.PP * p.VPP)
	case p.PP == 2:
		return (layers + 2*p.VPP - 1) / (2 * p.VPP)
	}
	return (layers - p.FirstStageLayers - p.LastStageLayers) / ((p.PP - 2) * p.VPP)
}

// chunkRange is the half-open layer range [lo, hi) of model chunk k,
// given the middle chunk size c (middleChunk).
func (p Plan) chunkRange(layers, c, k int) (lo, hi int) {
	if !p.uneven() {
		return k * c, (k + 1) * c
	}
	first := p.FirstStageLayers - (p.VPP-1)*c
	switch k {
	case 0:
		return 0, first
	case p.PP*p.VPP - 1:
		return layers - (p.LastStageLayers - (p.VPP-1)*c), layers
	}
	lo = first + (k-1)*c
	return lo, lo + c
}

// layerKinds says which of a model's layers are mixture-of-experts
// layers: after the first dense ones, every step-th (layers step-1,
// 2*step-1, ... from the start, as Llama 4's interleave_moe_layer_step
// and Qwen2-MoE's decoder_sparse_step place them; step 0 or 1: all).
type layerKinds struct{ layers, dense, step int }

// kinds is m's layer composition.
func (m *Model) kinds() layerKinds {
	if m.MoE == nil {
		return layerKinds{layers: m.Layers, dense: m.Layers, step: 1}
	}
	return layerKinds{layers: m.Layers, dense: m.MoE.DenseLayers, step: max(m.MoE.Step, 1)}
}

// moe counts the MoE layers among layers [lo, hi): the indices i >= dense
// with (i+1) divisible by step, hi/step - a/step for a = max(lo, dense)
// (hi - a at step 1).
func (k layerKinds) moe(lo, hi int) int {
	a := max(lo, min(hi, k.dense))
	s := max(k.step, 1)
	return hi/s - a/s
}

// stageLayers counts the layers pipeline rank r holds in all its chunks,
// and how many of them are mixture-of-experts layers (layerKinds).
func (p Plan) stageLayers(k layerKinds, r int) (n, moe int) {
	c := p.middleChunk(k.layers)
	for j := r; j < p.PP*p.VPP; j += p.PP {
		lo, hi := p.chunkRange(k.layers, c, j)
		n += hi - lo
		moe += k.moe(lo, hi)
	}
	return n, moe
}

// sameChunks reports whether ranks a and b hold chunks of the same
// composition, chunk by chunk: as many layers, as many of them MoE.
func (p Plan) sameChunks(k layerKinds, a, b int) bool {
	c := p.middleChunk(k.layers)
	for j := range p.VPP {
		la, ha := p.chunkRange(k.layers, c, a+j*p.PP)
		lb, hb := p.chunkRange(k.layers, c, b+j*p.PP)
		if ha-la != hb-lb || k.moe(la, ha) != k.moe(lb, hb) {
			return false
		}
	}
	return true
}
