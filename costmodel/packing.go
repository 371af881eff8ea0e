package costmodel

import "fmt"

// Packed-sequence fine-tuning.
//
// Fine-tuning sets of short samples (SQuAD, chat turns) are packed many
// samples to a sequence, and the fused attention kernels then attend
// only within each sample: NeMo's GPTSFTPackedDataset passes the sample
// boundaries as cu_seqlens and Megatron-Core runs Transformer Engine's
// fused attention in the THD layout (NeMo docs, "Sequence Packing for
// SFT/PEFT": "the attention mask ... is replaced by cu_seqlens", and
// nemo/collections/nlp/data/language_modeling/megatron/
// gpt_sft_dataset.py, GPTSFTPackedDataset.collate_fn). The GEMMs, norms
// and element-wise kernels still see every token of the sequence; only
// the attention core changes.
//
// The statistic. A sequence of s tokens packed from samples of lengths
// l_i (sum l_i = s) does sum_i l_i(l_i+1)/2 causal (query, key) pairs,
// so a query meets on average (L+1)/2 keys with
//
//	L = sum l_i^2 / sum l_i = E[l^2] / E[l]
//
// the length-weighted mean sample length (a token's own sample, drawn by
// token rather than by sample). Plan.PackedSampleTokens is L: with it
// the attention FLOPs and the kernel time are exact for the causal
// FLOPs, and the kernel is priced as s/L samples of L tokens each (the
// kernel curves at that length; the spread of lengths around L is not
// priced). L = s is an unpacked sequence. The saved activations do not
// change: FlashAttention saves its output and a log-sum-exp per query
// and head whatever the keys (Dao 2023, sec. 3.1), and eager attention,
// which would need the block-diagonal s x s mask, is refused with
// packing (NeMo requires the fused kernels for packed sequences).

// AttentionSpan is the length of the causal span each query attends
// within: the packed samples' length-weighted mean length
// (PackedSampleTokens) when set, else the whole sequence.
func (p Plan) AttentionSpan() int {
	if p.PackedSampleTokens > 0 {
		return p.PackedSampleTokens
	}
	return p.Seq
}

// Packed reports whether p packs several samples into each sequence.
func (p Plan) Packed() bool { return p.PackedSampleTokens > 0 && p.PackedSampleTokens < p.Seq }

// checkPacking checks PackedSampleTokens: zero (not packed) or a length
// in [1, seq]; packed samples need the fused attention kernels, and
// under context parallelism each sample is split into 2*cp chunks as
// the sequence is (Transformer Engine's THD context parallelism), so it
// must hold at least 2*cp tokens.
func (p Plan) checkPacking() error {
	n := p.PackedSampleTokens
	switch {
	case n == 0:
		return nil
	case n < 0 || n > p.Seq:
		return fmt.Errorf("costmodel: packed sample tokens %d is not in [1, seq=%d] (the length-weighted mean sample length E[len^2]/E[len]; 0: not packed)", n, p.Seq)
	case p.Attention == Eager && n < p.Seq:
		return fmt.Errorf("costmodel: packed samples (%d tokens in seq=%d) need fused attention with per-sample boundaries (THD / cu_seqlens; use --attn flash)", n, p.Seq)
	case p.CP > 1 && n < 2*p.CP:
		return fmt.Errorf("costmodel: packed sample tokens %d is under 2*cp = %d (context parallelism splits each sample into 2*cp chunks)", n, 2*p.CP)
	}
	return nil
}

// packs is the number of packed samples of AttentionSpan tokens a
// sequence holds for the attention kernels: seq/L (1 unpacked).
func (p Plan) packs() float64 { return float64(p.Seq) / float64(p.AttentionSpan()) }
