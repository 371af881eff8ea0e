package costmodel

import (
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// srcPaged cites paged KV-cache allocation.
const srcPaged = "Kwon et al. 2023, PagedAttention/vLLM (arXiv:2309.06180), sec. 4.1: waste only in a sequence's last block"

// PagedKV is the cost of allocating a sequence's KV cache in fixed-size
// blocks (PagedAttention, Kwon et al. 2023, section 4.1): a sequence of n
// tokens holds ceil(n/b) blocks of b tokens, so only the last block is
// partly empty, by b*ceil(n/b) - n tokens. Over a sequence's growth from
// one token to many, that emptiness is (b-1)/2 tokens on average.
type PagedKV struct {
	// BlockTokens is b; 0 means contiguous allocation (no padding).
	BlockTokens int `json:"block_tokens"`
	// BlocksPerSequence is ceil(context/b) for a full-attention layer
	// (0 when the cache is contiguous).
	BlocksPerSequence int `json:"blocks_per_sequence"`
	// PaddingTokens is the empty part of the last block at the context.
	PaddingTokens int `json:"padding_tokens"`
	// PaddingPerSequence is the bytes of that emptiness over all layers,
	// unsharded; AveragePaddingPerSequence the (b-1)/2-token average.
	PaddingPerSequence        hardware.Bytes `json:"padding_per_sequence_bytes"`
	AveragePaddingPerSequence hardware.Bytes `json:"average_padding_per_sequence_bytes"`
	// WasteFraction is PaddingPerSequence over the allocated cache.
	WasteFraction float64 `json:"waste_fraction"`
}

// PagedKV is the block waste of one sequence of context tokens in blocks
// of block tokens, with a KV cache of dtype d.
func (m *Model) PagedKV(context, block int, d DType) PagedKV {
	if block < 1 {
		return PagedKV{}
	}
	p := PagedKV{BlockTokens: block}
	p.BlocksPerSequence = (context + block - 1) / block
	p.PaddingTokens = paddingTokens(context, block)
	paged := m.kvPerSequenceBlocks(context, block, m.Layers, m.SlidingLayers, 1, d)
	p.PaddingPerSequence = hardware.Bytes(paged - m.kvPerSequence(context, m.Layers, m.SlidingLayers, 1, d))
	p.AveragePaddingPerSequence = m.KVPerToken(d) * hardware.Bytes(block-1) / 2
	if paged > 0 {
		p.WasteFraction = float64(p.PaddingPerSequence) / paged
	}
	return p
}

// paddingTokens is the empty part of the last block: b*ceil(n/b) - n.
func paddingTokens(n, block int) int {
	if block < 1 {
		return 0
	}
	return roundUp(n, block) - n
}

func roundUp(n, block int) int {
	if block < 1 {
		return n
	}
	return (n + block - 1) / block * block
}

// kvPerSequenceBlocks is kvPerSequence with every layer's tokens rounded
// up to whole blocks: full-attention layers hold ceil(n/b) blocks,
// sliding-window layers ceil(min(n, window)/b).
func (m *Model) kvPerSequenceBlocks(n, block, layers, sliding, t int, d DType) float64 {
	windowed := n
	if m.SlidingWindow > 0 {
		windowed = min(n, m.SlidingWindow)
	}
	full, win := float64(roundUp(n, block)), float64(roundUp(windowed, block))
	return m.kvPerTokenLayer(t, d) * (float64(layers-sliding)*full + float64(sliding)*win)
}

// longestContext is the longest sequence of which the stage's users fit
// in free bytes: the largest n with users x kvPerSequenceBlocks(n) <=
// free, by bisection (the cache grows monotonically with n). A stage
// whose every layer is windowed stops growing at the window and returns
// maxSeq when the window fits.
func (m *Model) longestContext(s ServePlan, g servingStage, free float64) int {
	users := float64(s.UsersPerReplica())
	fits := func(n int) bool {
		return users*m.kvPerSequenceBlocks(n, s.BlockTokens, g.layers, g.sliding, s.TP, s.KV) <= free
	}
	if free <= 0 || math.IsNaN(free) || !fits(1) {
		return 0
	}
	lo, hi := 1, maxSeq
	if fits(hi) {
		return hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// KVPerSequence is the KV cache of one sequence of n tokens over all
// layers, unsharded; sliding-window layers keep at most their window.
func (m *Model) KVPerSequence(n int, d DType) hardware.Bytes {
	return hardware.Bytes(m.kvPerSequence(n, m.Layers, m.SlidingLayers, 1, d))
}
