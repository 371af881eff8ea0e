package costmodel

import "fmt"

// slidingNote says that a training step prices the model's sliding-window
// layers as full causal attention over the sequence when the window is
// shorter than it. A kernel that skips the blocks outside the band
// (FlashAttention-2's window_size, cuDNN's diagonal band) would do less
// work, but the measured rows do not show the saving: crediting it moves
// the six Megatron-Bridge gpt-oss-120b rows of the calibration set (18 of
// 36 layers windowed at 128 tokens, 4,096-8,192-token sequences) from
// +3.0..+41.0% to +6.1..+49.2% optimistic, each 3 to 13 points further
// off (measured 2026-12-03 with the window's mean keys per query,
// w - w(w-1)/2s, priced as unmasked attention). Serving credits the
// window in its KV cache and attention (serve.go).
func (e *Evaluator) slidingNote(p Plan) string {
	m := e.m
	span := p.AttentionSpan()
	if m.SlidingLayers == 0 || m.SlidingWindow <= 0 || m.SlidingWindow >= span {
		return ""
	}
	return fmt.Sprintf("%d of %d layers attend over a %d-token sliding window; their attention is priced as full causal "+
		"attention over %d tokens (crediting the window puts the calibration's gpt-oss rows 3 to 13 points further "+
		"from their measured speed)",
		m.SlidingLayers, m.Layers, m.SlidingWindow, span)
}
