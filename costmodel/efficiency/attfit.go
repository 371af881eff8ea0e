package efficiency

import "math"

// AttentionSample is one measured prefill attention call: batch
// sequences of Seq tokens, Heads query and KVHeads key/value heads of
// HeadDim, in Seconds.
type AttentionSample struct {
	Batch, Seq, Heads, KVHeads, HeadDim, Seconds float64
}

// AttentionSet is one GPU's samples with its curve before the fit.
type AttentionSet struct {
	GPU     string
	Base    Attention
	Samples []AttentionSample
}

// ApplyAttention sets fitted parameters on a GPU's attention curve.
func (p Params) ApplyAttention(a Attention) Attention {
	a.Ceiling, a.KHalf, a.Launch, a.HBMEff = p.Ceiling, p.KHalf, p.Launch, p.HBMEff
	return a
}

// Measured is what a TRT-LLM context-attention row times: the causal
// fused forward plus the memory-bound kernel before it that applies RoPE
// and writes the KV cache (calibration/kernels/SOURCES.md: "RoPE and
// KV-cache writes in attention"), whose bytes are prepBytes.
func (a Attention) Measured(s AttentionSample) float64 {
	return a.Forward(s.Batch*s.Heads, s.Seq, s.Seq, s.HeadDim, s.HeadDim, true) +
		a.prepBytes(s)/(a.HBM*a.HBMEff)
}

// prepBytes is the traffic of TRT-LLM's QKV preprocessing (RoPE, KV-cache
// update): read the bf16 QKV projection, (heads + 2 kv heads) x d x 2
// bytes per token, and write q and the k, v cache in the attention
// format, (heads + 2 kv heads) x d x Bytes.
func (a Attention) prepBytes(s AttentionSample) float64 {
	return s.Batch * s.Seq * (s.Heads + 2*s.KVHeads) * s.HeadDim * (2 + a.Bytes)
}

// FitAttention fits Ceiling, KHalf, Launch and HBMEff by least squares in
// log time, as FitGEMM.
func FitAttention(sets []AttentionSet, start Params) (Params, error) {
	return fitLog(start, func(p Params) float64 {
		var sum float64
		for _, s := range sets {
			a := p.ApplyAttention(s.Base)
			for _, r := range s.Samples {
				d := math.Log(a.Measured(r) / r.Seconds)
				sum += d * d
			}
		}
		return sum
	})
}

// AttentionErrors compares a curve with measured rows.
func AttentionErrors(a Attention, rows []AttentionSample) Errors {
	rel := make([]float64, len(rows))
	for i, r := range rows {
		rel[i] = math.Abs(a.Measured(r)/r.Seconds - 1)
	}
	return summarize(rel)
}
