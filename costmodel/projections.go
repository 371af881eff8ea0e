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
		if i == 0 {
			q.linear(kk, n)
			continue
		}
		q.sharedInputLinear(kk, n)
	}
}

// sharedInputLinear is linearM on q.t rows without the casts of the
// input another projection already cast: the forward cast and the
// input's column-wise copy for the weight gradient.
func (q pass) sharedInputLinear(kk, n float64) {
	m, r := q.t, q.r
	nocast := r
	nocast.low = 0
	nocast.matmul(&q.c.fwd, m, kk, n)
	r.matmul(&q.c.bwd, m, n, kk)
	r.rescale(&q.c.bwd, 1, m, kk)
	if r.low > 0 && r.wgradCast > 0 {
		q.c.bwd.mem += m*n*r.wgradCast/r.mem + r.k0
	}
	r.wgrad().matmul(&q.c.bwd, kk, m, n)
	r.rescale(&q.c.bwd, 1, kk, n)
}
