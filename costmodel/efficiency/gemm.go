package efficiency

import "math"

// GEMM is a fitted achieved-throughput curve for one GPU and one format.
// It is a small value type with no pointers, so a hot loop copies it.
//
// The time of a product is a roofline (Williams et al. 2009) whose
// compute side is quantized the way a tiled kernel runs on the GPU
// (NVIDIA, "Matrix Multiplication Background User's Guide", Deep Learning
// Performance docs, sections on tile and wave quantization): the output
// is cut into TileM x TileN tiles, the tiles run in waves of SMs, and each
// tile's k loop pays a fixed prologue and epilogue worth KHalf steps of k.
// Skinny products are cut along k (split-K) to fill the SMs, and short
// activations get a shorter tile (tileRows).
type GEMM struct {
	// Ceiling is the share of Peak a full wave of long-k tiles reaches:
	// the kernel's issue efficiency at the clock the microbenchmark ran at.
	// It does not include the lower clock of a long, power-limited run
	// (hardware.GPU.Sustained); see the package doc.
	Ceiling float64
	// KHalf is the tile's fixed cost as k steps: a tile of depth k runs at
	// k/(k+KHalf) of the ceiling, so k = KHalf is half-saturation.
	KHalf float64
	// Launch is the fixed seconds of one call: launch, prologue of the
	// grid, and for quantized formats the launches of the activation
	// quantization kernels the measured Linear layer runs.
	Launch float64
	// TileM and TileN are the output tile one SM computes.
	TileM, TileN float64
	// SMs is the number of streaming multiprocessors: tiles per wave.
	SMs float64
	// Peak is the dense datasheet tensor-core peak of the format, FLOP/s.
	Peak float64
	// HBM is the datasheet memory bandwidth in bytes/s and HBMEff the
	// share of it a memory-bound GEMM streams.
	HBM, HBMEff float64
	// InBytes and OutBytes are the bytes of one input and output element.
	InBytes, OutBytes float64
	// QuantBytes is the bytes per activation element that quantizing the
	// activation moves before the product (read bf16, reduce, write the
	// format); 0 for BF16. Time leaves it out; Quantize prices it.
	QuantBytes float64
}

// splitKMin is the shortest k slice a split-K (or stream-K) kernel gives
// one tile: a few k blocks of 64, so the fp32 partial sums stay cheap
// (CUTLASS split-K and stream-K). 256 fitted the calibration data best
// of 128, 256, 512 and no split (median error 13.5% against 18.5% with
// no split, over all GPUs and formats).
const splitKMin = 256

// Time is the seconds of one (m x k) by (k x n) product, 2mnk FLOPs:
//
//	max(compute, bytes / (HBM x HBMEff)) + Launch
//
// with compute from computeTime and bytes = InBytes(mk + kn) + OutBytes mn.
// It does not allocate.
func (c GEMM) Time(m, n, k float64) float64 {
	return c.Grouped(1, m, n, k)
}

// Efficiency is the achieved share of the peak: 2mnk / (Time x Peak).
func (c GEMM) Efficiency(m, n, k float64) float64 {
	return 2 * m * n * k / (c.Time(m, n, k) * c.Peak)
}

// Grouped is the seconds of groups independent m x k by k x n products
// issued as one grouped-GEMM kernel (MoE experts, CUTLASS grouped GEMM):
// the tiles of all groups share the waves and there is one launch.
func (c GEMM) Grouped(groups, m, n, k float64) float64 {
	if groups <= 0 || m <= 0 || n <= 0 || k <= 0 {
		return 0
	}
	tm := tileRows(m, c.TileM)
	tiles := groups * math.Ceil(m/tm) * math.Ceil(n/c.TileN)
	split := splitK(tiles, k, c.SMs)
	bytes := groups * (c.InBytes*(m*k+k*n) + c.OutBytes*m*n + partialBytes(split, m, n))
	return max(c.computeTime(tiles, split, k, tm), bytes/(c.HBM*c.HBMEff)) + c.Launch
}

// minTileM is the smallest tile height the kernels pick for skinny
// products (a 64-row wgmma on Hopper; 64-row CUTLASS tiles elsewhere).
const minTileM = 64

// tileRows is the tile height used for m rows: the full tile halved
// while half still holds m, down to minTileM (libraries pick a shorter
// tile for a short activation rather than pad it to 128 rows).
func tileRows(m, full float64) float64 {
	t := full
	for t > minTileM && t/2 >= m {
		t /= 2
	}
	return t
}

// computeTime is the tensor-core time of tiles output tiles of depth k cut
// into split slices:
//
//	waves = ceil(tiles x split / SMs)
//	time  = waves x 2 tm TileN (k/split + KHalf) / (Ceiling x Peak / SMs)
//
// a wave takes as long as one tile on one SM, so a partial last wave costs
// a full one (wave quantization) and a partial tile a full tile (tile
// quantization).
func (c GEMM) computeTime(tiles, split, k, tm float64) float64 {
	waves := math.Ceil(tiles * split / c.SMs)
	perSM := c.Ceiling * c.Peak / c.SMs
	return waves * 2 * tm * c.TileN * (k/split + c.KHalf) / perSM
}

// splitK is how many k slices a kernel cuts each tile into when the tiles
// alone fill less than one wave: floor(SMs / tiles), at most k / splitKMin
// and at least 1 (CUTLASS split-K / stream-K; cuBLAS picks such kernels
// by heuristic for skinny products).
func splitK(tiles, k, sms float64) float64 {
	s := math.Floor(sms / tiles)
	return max(1, min(s, math.Floor(k/splitKMin)))
}

// partialBytes is the fp32 partial-sum traffic of split-K: each of the
// split-1 extra slices writes and the reduction reads m x n fp32 values.
func partialBytes(split, m, n float64) float64 {
	return (split - 1) * m * n * 8
}

// Quantize is the seconds of quantizing an m x k bf16 activation to the
// format before the product: QuantBytes x m x k / (HBM x HBMEff). For
// FP8 per-tensor current scaling that is an amax pass (read 2 bytes) and
// a cast (read 2, write 1): 5 bytes per element (Transformer Engine's
// Float8CurrentScaling; TRT-LLM's dynamic FP8 quantization in the
// calibration data). The launches are in Launch.
func (c GEMM) Quantize(m, k float64) float64 {
	return c.QuantBytes * m * k / (c.HBM * c.HBMEff)
}

// Sustained returns the curve at a lower clock: Peak x s. Pass
// hardware.GPU.Sustained() for long power-limited runs; the fitted
// curves come from short microbenchmarks that do not throttle.
func (c GEMM) Sustained(s float64) GEMM {
	if s > 0 && s < 1 {
		c.Peak *= s
	}
	return c
}
