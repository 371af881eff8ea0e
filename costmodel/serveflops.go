package costmodel

// decodeFLOPsPerToken is the forward FLOPs of one new token whose cache
// holds n tokens (its own included): ForwardFLOPsPerToken at one key,
// with the attention term taken at the n keys the token attends to, or
// at the window on sliding-window layers. n = 0 leaves the weights and
// the logits alone.
func (m *Model) decodeFLOPsPerToken(n int) float64 {
	perKey := m.attentionFLOPsPerKey()
	return float64(m.ForwardFLOPsPerToken(1)) - float64(m.Layers)*perKey + perKey*m.attendedKeys(n)
}

// attendedKeys is the keys one query at position n attends to, summed
// over layers: n on full-attention layers, min(n, window) on windowed ones.
func (m *Model) attendedKeys(n int) float64 {
	windowed := n
	if m.SlidingWindow > 0 {
		windowed = min(n, m.SlidingWindow)
	}
	return float64(m.Layers-m.SlidingLayers)*float64(n) + float64(m.SlidingLayers)*float64(windowed)
}

// prefillFLOPs is the forward FLOPs of a prompt of n tokens: n x
// ForwardFLOPsPerToken(n) (which averages the causal mask), less the
// output logits of every token but the last (an engine samples only the
// last position of a prompt), less what sliding windows skip: a query at
// position i > w attends to w keys, not i, on the windowed layers.
func (m *Model) prefillFLOPs(n int) float64 {
	N := float64(n)
	f := N*float64(m.ForwardFLOPsPerToken(n)) - (N-1)*2*float64(m.Vocab)*float64(m.Hidden)
	if w := m.SlidingWindow; w > 0 && n > w && m.SlidingLayers > 0 {
		W := float64(w)
		causal := N * (N + 1) / 2
		windowed := W*(W+1)/2 + (N-W)*W
		f -= float64(m.SlidingLayers) * m.attentionFLOPsPerKey() * (causal - windowed)
	}
	return f
}
