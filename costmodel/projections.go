package costmodel

// projections are linear layers of width kk reading the same input, of
// widths ns: one fused GEMM of their summed width, or under separate one
// linear each whose input-side casts happen once (the same cast of the
// same tensor, which AOTAutograd's common-subexpression elimination
// merges: torch/_functorch/config.py cse).
func (q pass) projections(kk float64, ns ...float64) {
	if !q.r.separate {
		sum := 0.0
		for _, n := range ns {
			sum += n
		}
		q.linear(kk, sum)
		return
	}
	for i, n := range ns {
		q.linearOn(q.t, kk, n, i == 0)
	}
}
