package costmodel

import "math"

// busiestRankExperts is the expected number of routed experts active on
// the busiest of ranks expert-parallel ranks that hold n experts each,
// when each expert is active with probability q independently of the
// others: E[max_j X_j] = sum over x from 0 to n-1 of 1 - F(x)^ranks, with
// X_j ~ Binomial(n, q) and F its distribution function (the expectation
// of a non-negative integer variable as the sum of its tail, applied to
// the maximum of independent draws). An expert-parallel MoE layer
// finishes when its slowest rank does (the combine gathers every rank's
// output), so at a small decode batch a step reads the weights of the
// busiest rank's experts, not the mean rank's: 32 experts a rank with
// q = 0.12 (DeepSeek-V3, 4 tokens of 8 experts each, ep 8) average 3.8
// active, the busiest of 8 ranks 6.6. One rank, or every expert
// active, is the mean n x q.
func busiestRankExperts(n int, q float64, ranks int) float64 {
	switch {
	case n <= 0 || q <= 0:
		return 0
	case q >= 1:
		return float64(n)
	case ranks <= 1:
		return float64(n) * q
	}
	pmf := math.Pow(1-q, float64(n))
	cdf, sum := 0.0, 0.0
	for x := 0; x < n; x++ {
		cdf += pmf
		tail := 1 - powInt(math.Min(cdf, 1), ranks)
		if tail < 1e-12 {
			break // the later terms are smaller still
		}
		sum += tail
		pmf *= float64(n-x) / float64(x+1) * q / (1 - q)
	}
	return sum
}

// powInt is x^k for k >= 0 by repeated squaring.
func powInt(x float64, k int) float64 {
	r := 1.0
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}
