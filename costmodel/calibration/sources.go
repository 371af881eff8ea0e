package calibration

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/frameworks"
)

// frameworkOf picks the framework preset of a row: what its software
// did that the layout columns do not say (frameworks package, each
// setting cited there). A row that states more (torchtitan's async TP,
// a run without torch.compile) adjusts its copy of the preset.
func frameworkOf(r Row) (frameworks.Preset, bool) {
	switch r.Source() {
	case "narayanan2021_table1", "korthikanti2022_table4", "korthikanti2022_table5", "korthikanti2022_sec6.3",
		"megatron_readme_2020_mp", "megatron_readme_2020_dp":
		return frameworks.MegatronLM2022, true
	case "narayanan2021_table2":
		if has(r.Get("zero_fsdp"), "zero stage 3") {
			return frameworks.DeepSpeedZeRO3of2021, true
		}
		return frameworks.MegatronLM2022, true
	case "bloom176b_tr11", "bloom_prequel_best_tflops", "bloom_prequel_48node":
		if has(r.Get("precision"), "bf16") {
			return frameworks.MegatronDeepSpeedBF16, true
		}
		return frameworks.MegatronDeepSpeed, true
	case "mtnlg530b_paper":
		return frameworks.MegatronDeepSpeed, true
	case "torchtitan_docs_perf_2024":
		return frameworks.Torchtitan2024, true
	case "torchtitan_bench_2024-12", "torchtitan_asynctp_2025-06":
		return torchtitanRow(r), true
	case "megatron_core_readme_h100_weak", "megatron_core_readme_h100_strong":
		return frameworks.Megatron, true
	case "nemo_perf_summary_24.07", "nemo_perf_summary_25.04_gb200", "nemo_perf_summary_25.07_gb200",
		"megatron_bridge_perf_summary":
		return frameworks.NeMo, true
	case "mosaicml_llmfoundry_benchmarks":
		return frameworks.LLMFoundry, true
	case "llama3_paper_table4":
		return frameworks.MetaLlama3, true
	}
	return frameworks.Preset{}, false
}

// torchtitanRow is the torchtitan preset as a 2024-25 benchmark row ran
// it: eager kernels (and the FP8 casts' amax as a pass of its own) where
// the framework column lacks torch.compile, and
// async TP where the row's notes say so (torchtitan
// benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md).
func torchtitanRow(r Row) frameworks.Preset {
	p := frameworks.Torchtitan
	if !has(r.Get("framework"), "torch.compile") {
		p.UnfusedElementwise, p.CompiledAmax = true, false
	}
	if has(r.Get("notes"), "async tp") || has(r.Get("other_metrics"), "asynctp") {
		p.TPCommOverlap = true
	}
	return p
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
