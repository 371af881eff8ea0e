package costmodel

// The memory-bound passes and GEMM variants of the low-precision
// recipes' backward (recipes.go): which copies the weight-gradient GEMM
// reads, the casts a recipe repeats for it, and the rescale of outputs
// computed with unit scales.

// wgrad is r for a weight-gradient GEMM: its operands, the input and the
// output gradient transposed, are the second copies CastWrites already
// counts (Transformer Engine's fused cast-transpose writes the FP8 copy
// and its transpose, or MXFP8's rowwise and columnwise copies, in one
// pass: srcTE), so it casts nothing; a recipe that casts them again
// charges that in wgradCasts. Under wgradHalf it is a 16-bit GEMM.
func (r rates) wgrad() rates {
	if r.wgradHalf {
		return r.sixteenBit()
	}
	r.low = 0
	return r
}

// wgradCasts is the column-wise casts of a weight-gradient GEMM's two
// operands, kk x m and m x n (groups of them for grouped experts):
// wgradCast bytes per element of each (Recipe.WgradCastBytes), one
// kernel each; m = 0 when the first operand was cast already.
func (r rates) wgradCasts(k *kernelCost, groups, m, kk, n float64) {
	if r.low > 0 && r.wgradCast > 0 {
		kernels := 2.0
		if m == 0 {
			kernels = 1
		}
		k.mem += groups*kk*(m+n)*r.wgradCast/r.mem + kernels*r.k0
	}
}

// rescale is the kernel that multiplies a backward GEMM's m x n 16-bit
// output by the operands' scales (Recipe.RescaleBackward): it reads and
// writes each element once.
func (r rates) rescale(k *kernelCost, groups, m, n float64) {
	if r.low > 0 && r.rescaleBwd {
		r.stream(k, groups*m*n*2*r.e)
	}
}
