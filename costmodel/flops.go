package costmodel

import "github.com/gpu-planner/planner/hardware"

// ForwardFLOPsPerToken is the forward-pass FLOPs of one token in a
// sequence of seq tokens (for packed samples, seq is Plan.AttentionSpan,
// the span the attention runs over): 2 FLOPs per multiply-accumulate of every weight
// the token passes through (the routed experts it uses, not all experts),
// the attention scores and weighted values against the keys before it
// under the causal mask (on average (seq+1)/2 of them), and the output
// logits. Embedding lookups are not matmuls and cost nothing.
//
// Kaplan et al. 2020 ("Scaling Laws for Neural Language Models", Table 1)
// count the same terms: 2N per token for the weights plus 2·l·s·d for
// attention, without the causal halving.
func (m *Model) ForwardFLOPsPerToken(seq int) hardware.FLOPs {
	p := m.Params()
	weights := p.Active - p.Embedding - p.OutputLayer - m.finalNormParams()
	logits := float64(m.Vocab) * float64(m.Hidden)
	keys := (float64(seq) + 1) / 2
	return hardware.FLOPs(2*weights + 2*logits + float64(m.Layers)*m.attentionFLOPsPerKey()*keys)
}

// attentionFLOPsPerKey is one layer's score and value FLOPs per query and
// key: 2·a·d_qk for Q·K and 2·a·d_v for the weighted sum of values.
func (m *Model) attentionFLOPsPerKey() float64 {
	qk, v := m.HeadDim, m.HeadDim
	if m.MLA != nil {
		qk, v = m.MLA.QKNopeDim+m.MLA.QKRopeDim, m.MLA.VDim
	}
	return 2 * float64(m.Heads) * float64(qk+v)
}
