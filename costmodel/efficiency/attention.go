package efficiency

import "math"

// Attention is a fitted curve of FlashAttention-style fused attention
// (Dao 2023, arXiv:2307.08691; Shah et al. 2024, arXiv:2407.08608) for
// one GPU and format. A small value type, copied by the hot loop.
//
// The forward cuts the queries of each (batch, head) into BlockQ-row
// tiles; a tile streams its keys through the tensor cores, paying a fixed
// cost worth KHalf keys; tiles run in waves of one per SM.
type Attention struct {
	// Ceiling is the forward's share of Peak at long keys and full waves.
	Ceiling float64
	// KHalf is a tile's fixed cost in keys: half-saturation at KHalf keys.
	KHalf float64
	// Launch is the fixed seconds of one call.
	Launch float64
	// BlockQ is the query rows of one tile (128 in FlashAttention-2/3 and
	// TRT-LLM's FMHA for head dim 128).
	BlockQ float64
	// SMs, Peak (dense FLOP/s of the format), HBM (bytes/s) and HBMEff as
	// in GEMM; Bytes is the bytes of one q, k, v or output element.
	SMs, Peak, HBM, HBMEff, Bytes float64
	// BackwardRatio and BackwardKeys shape the backward's rate relative
	// to the forward: ratio x keys / (keys + BackwardKeys), fitted on
	// FlashAttention-3's H100 forward and backward figures (backward.go).
	BackwardRatio, BackwardKeys float64
	// ExpHeadDim is the head dim below which a tile is bound by the
	// softmax's exponentials rather than its matmuls (expHeadDims): a
	// tile of smaller head dims takes as long as one of ExpHeadDim. Zero:
	// no floor.
	ExpHeadDim float64
}

// Forward is the seconds of one fused attention forward over batchHeads
// (batch x query heads on this GPU) of sq queries and skv keys, head
// dims dqk (scores) and dv (values), causal or not:
//
//	max(compute, bytes / (HBM x HBMEff)) + Launch
//
// where compute is tileTime over head dims dqk + dv, at least
// 2 ExpHeadDim (the exponentials' floor), and bytes reads q, k, v and
// writes the output once per head (an upper bound under grouped-query
// attention). The FLOPs
// are Flops(batchHeads, sq, skv, dqk, dv, causal). It does not allocate.
func (a Attention) Forward(batchHeads, sq, skv, dqk, dv float64, causal bool) float64 {
	if batchHeads <= 0 || sq <= 0 || skv <= 0 {
		return 0
	}
	keys := tileKeys(sq, skv, a.BlockQ, causal)
	compute := a.tileTime(batchHeads, sq, keys+a.KHalf, max(dqk+dv, 2*a.ExpHeadDim))
	bytes := a.Bytes * batchHeads * (sq*(dqk+dv) + skv*(dqk+dv))
	return max(compute, bytes/(a.HBM*a.HBMEff)) + a.Launch
}

// Backward is the seconds of the fused backward of the same call: 2.5
// times the forward FLOPs (five matmuls against two, the scores
// recomputed; FlashAttention-2 paper, sec. 4.1) at the forward's rate
// times backwardShare, its head dims floored at backwardExpShare of the
// forward's floor, reading q, k, v, output, its gradient and the softmax
// statistics and writing three gradients (about twice the forward's
// bytes).
func (a Attention) Backward(batchHeads, sq, skv, dqk, dv float64, causal bool) float64 {
	if batchHeads <= 0 || sq <= 0 || skv <= 0 {
		return 0
	}
	keys := tileKeys(sq, skv, a.BlockQ, causal)
	compute := 2.5 * a.tileTime(batchHeads, sq, keys+a.KHalf, max(dqk+dv, 2*backwardExpShare*a.ExpHeadDim)) / a.backwardShare(keys)
	bytes := 2 * a.Bytes * batchHeads * (sq*(dqk+dv) + skv*(dqk+dv))
	return max(compute, bytes/(a.HBM*a.HBMEff)) + a.Launch
}

// backwardShare is the backward's rate over the forward's at keys keys
// per query tile: BackwardRatio x keys / (keys + BackwardKeys). The
// backward's longer tile setup (dQ accumulation, dK and dV written per
// key block) costs more at short sequences.
func (a Attention) backwardShare(keys float64) float64 {
	return a.BackwardRatio * keys / (keys + a.BackwardKeys)
}

// tileTime is the tensor-core time of batchHeads x ceil(sq/BlockQ) query
// tiles that each multiply BlockQ rows against work keys with head dims
// summing to d (QK^T then PV; Forward and Backward raise d to the
// exponentials' floor, expHeadDims):
//
//	waves = ceil(tiles / SMs)
//	time  = waves x 2 BlockQ d work / (Ceiling x Peak / SMs)
func (a Attention) tileTime(batchHeads, sq, work, d float64) float64 {
	tiles := batchHeads * math.Ceil(sq/a.BlockQ)
	waves := math.Ceil(tiles / a.SMs)
	return waves * 2 * a.BlockQ * d * work * a.SMs / (a.Ceiling * a.Peak)
}

// tileKeys is the keys an average query tile visits. Without a mask, all
// skv. With a causal mask and the queries last in the sequence, query i
// of sq sees skv - sq + i + 1 keys, and a tile of BlockQ queries runs to
// its diagonal block: on average skv - sq + (sq + BlockQ) / 2, at most skv.
func tileKeys(sq, skv, blockQ float64, causal bool) float64 {
	if !causal {
		return skv
	}
	return min(skv, max(0, skv-sq)+(min(sq, skv)+blockQ)/2)
}

// Flops is the FLOPs of attention as FlashAttention's benchmarks count
// them: 2 x batchHeads x sq x skv x (dqk + dv), halved under a causal
// mask when sq = skv (FlashAttention-2 paper, sec. 4.1); for sq < skv
// the mask removes sq^2/2 of the pairs.
func Flops(batchHeads, sq, skv, dqk, dv float64, causal bool) float64 {
	pairs := sq * skv
	if causal {
		pairs -= min(sq, skv) * min(sq, skv) / 2
	}
	return 2 * batchHeads * pairs * (dqk + dv)
}
