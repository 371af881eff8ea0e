package calibration

import (
	"github.com/gpu-planner/planner/costmodel"
)

// framework is what a source's software did that the layout columns do
// not say: the attention kernel, which communication it overlapped, and
// the values assumed for columns the source leaves unstated. Each entry
// cites where its settings come from.
type framework struct {
	name      string
	attention costmodel.Attention
	// Overlaps (costmodel.Assumptions fields of the same names).
	overlapGrad, overlapParam, tpOverlap, overlapP2P bool
	// sp: sequence parallelism with tensor parallelism, when the row
	// does not say.
	sp bool
	// unfused: eager PyTorch elementwise chains (UnfusedElementwise).
	unfused bool
	// Assumed when the row does not state them.
	recompute  costmodel.Recompute
	microBatch int
	zero       int
	cite       string
}

var (
	// Megatron-LM 2021-2022: fused eager attention (no FlashAttention
	// yet), the data-parallel all-reduce after the backward ("without
	// overlapping the data-parallel all-reduce", Korthikanti et al.
	// 2022, sec. 6.3), no TP or p2p overlap.
	megatron2022 = framework{name: "Megatron-LM 2021-22", attention: costmodel.Eager, microBatch: 1,
		cite: "Korthikanti et al. 2022 sec. 6.3 (DP all-reduce not overlapped); Narayanan et al. 2021 Table 2 (mb 1 for PTD-P)"}
	// DeepSpeed ZeRO-3 on Megatron's GPT (Narayanan et al. 2021, Table
	// 2): eager attention, prefetched gathers, overlap_comm.
	deepspeedZeRO3 = framework{name: "DeepSpeed ZeRO-3", attention: costmodel.Eager, overlapGrad: true,
		overlapParam: true, microBatch: 1, cite: "DeepSpeed ZeRO-3 defaults: overlap_comm, prefetching"}
	// Megatron-DeepSpeed pipelines (BLOOM, MT-NLG): DeepSpeed's
	// PipelineEngine reduces gradients after the pipeline flush and
	// all-gathers ZeRO-1 weights after the step, without overlap.
	megatronDeepSpeed = framework{name: "Megatron-DeepSpeed", attention: costmodel.Eager, recompute: costmodel.Full,
		microBatch: 1, zero: 1, cite: "DeepSpeed PipelineEngine TrainSchedule: ReduceGrads after the last backward"}
	// torchtitan (2024): FSDP2 with prefetch, SDPA FlashAttention, the
	// model in eager PyTorch (RMSNorm, RoPE and SwiGLU unfused).
	torchtitan = framework{name: "torchtitan FSDP2", attention: costmodel.Flash, overlapGrad: true, overlapParam: true,
		unfused: true, microBatch: 1, zero: 3, cite: "torchtitan docs/performance.md (FSDP2, SDPA, eager: no torch.compile)"}
	// Megatron-Core r0.8 README runs: --overlap-grad-reduce
	// --overlap-param-gather --tp-comm-overlap, the distributed optimizer,
	// Transformer Engine attention.
	megatronCore = framework{name: "Megatron-Core r0.8", attention: costmodel.Flash, overlapGrad: true,
		overlapParam: true, tpOverlap: true, microBatch: 1, zero: 1,
		cite: "Megatron-LM README (July 2024): --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap"}
	// NeMo 24.07 recipes on Megatron-Core: the distributed optimizer with
	// overlapped reduce and gather, TP communication overlap, cuDNN
	// fused attention; recompute and micro-batch per recipe.
	nemo = framework{name: "NeMo 24.07", attention: costmodel.Flash, overlapGrad: true, overlapParam: true,
		tpOverlap: true, microBatch: 1, zero: 1,
		cite: "NeMo 24.07 performance recipes (Megatron-Core distributed optimizer, tp_comm_overlap)"}
	// Meta's Llama 3 405B training (Dubey et al. 2024, sec. 3.3.2): FSDP
	// that "shards optimizer states and gradients, but for model shards
	// we do not reshard after forward computation" (ZeRO-2), overlapped
	// as FSDP does; "asynchronous point-to-point communication in PP";
	// "we could pre-train Llama 3 on sequences of 8K tokens without
	// activation checkpointing"; tensor parallelism citing Korthikanti
	// et al. (sequence parallelism). Attention kernel, TP overlap and
	// micro-batch are not stated: FlashAttention, none, 1.
	llama3 = framework{name: "Meta Llama 3 (4D parallelism)", attention: costmodel.Flash, overlapGrad: true,
		overlapParam: true, overlapP2P: true, sp: true, recompute: costmodel.NoRecompute, microBatch: 1, zero: 2,
		cite: "Dubey et al. 2024, sec. 3.3.2 (FSDP sharding optimizer states and gradients, async p2p, no activation checkpointing at 8K)"}
)

// frameworkOf picks the framework of a row.
func frameworkOf(r Row) (framework, bool) {
	switch r.Source() {
	case "narayanan2021_table1", "korthikanti2022_table4", "korthikanti2022_table5", "korthikanti2022_sec6.3":
		return megatron2022, true
	case "narayanan2021_table2":
		if has(r.Get("zero_fsdp"), "zero stage 3") {
			return deepspeedZeRO3, true
		}
		return megatron2022, true
	case "bloom176b_tr11", "mtnlg530b_paper":
		return megatronDeepSpeed, true
	case "torchtitan_docs_perf_2024":
		return torchtitan, true
	case "megatron_core_readme_h100_weak":
		return megatronCore, true
	case "nemo_perf_summary_24.07":
		return nemo, true
	case "llama3_paper_table4":
		return llama3, true
	}
	return framework{}, false
}

// FLOP conventions of the sources that publish only TFLOP/s (calibration
// README, section 2), per token of a sequence of s tokens.

// megatronFLOPsPerToken is Megatron-LM's num_floating_point_operations
// (megatron/training/training.py, 2024; the Megatron-Core README's
// TFLOP/s): 12 l h^2 [(1 + kv/a + s/h) q/h + f/h x gate + V/(2 l h)],
// with q = heads x head dim and gate 3/2 for SwiGLU; no recompute, no
// causal halving.
func megatronFLOPsPerToken(m *costmodel.Model, s int) float64 {
	l, h := float64(m.Layers), float64(m.Hidden)
	q := float64(m.Heads*m.HeadDim) / h
	gate := 1.0
	if m.MLP == costmodel.SwiGLU {
		gate = 1.5
	}
	attn := (1 + float64(m.KVHeads)/float64(m.Heads) + float64(s)/h) * q
	return 12 * l * h * h * (attn + float64(m.FFN)/h*gate + float64(m.Vocab)/(2*l*h))
}

// narayananFLOPsPerToken is Narayanan et al. 2021, eq. 3, per token:
// 96 l h^2 (1 + s/6h + V/16lh), which counts the recompute forward;
// Megatron-DeepSpeed's TFLOP/s (BLOOM) use the same formula.
func narayananFLOPsPerToken(m *costmodel.Model, s int) float64 {
	l, h := float64(m.Layers), float64(m.Hidden)
	return 96 * l * h * h * (1 + float64(s)/(6*h) + float64(m.Vocab)/(16*l*h))
}

// palmFLOPsPerToken is the model FLOPs per token of Chowdhery et al.
// 2022 (PaLM), Appendix B, which the Llama 3 paper reports its MFU and
// TFLOP/s by (Dubey et al. 2024, sec. 3.3.2): 6N + 12 L H Q T, with N the
// parameters other than the input embedding (the output projection is a
// matrix multiply and counts, as in torchtitan's reading of the same
// formula), H Q = heads x head dim, and the attention not halved for the
// causal mask.
func palmFLOPsPerToken(m *costmodel.Model, s int) float64 {
	n := m.Params().Total - m.Params().Embedding
	return 6*n + 12*float64(m.Layers)*float64(m.Heads*m.HeadDim)*float64(s)
}
