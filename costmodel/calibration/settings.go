package calibration

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
)

// mpt sets MosaicML's MPT architecture (llm-foundry
// llmfoundry/models/mpt/configuration_mpt.py and
// scripts/train/yamls/pretrain/mpt-*.yaml; calibration README, sec.
// 4.4): LayerNorm without biases (no_bias: true), a two-matrix GELU MLP
// of 4h, multi-head attention with ALiBi (no rotary, no position table),
// tied embeddings, vocabulary 50,368, no dropout in pretraining.
func mpt(m *costmodel.Model) {
	m.Family, m.Norm, m.MLP, m.TiedEmbeddings = "mpt", costmodel.LayerNorm, costmodel.GeLU, true
	if m.FFN == 0 {
		m.FFN = 4 * m.Hidden
	}
	if m.Vocab == 0 {
		m.Vocab = 50368
	}
}

// precisionRule maps a CSV precision string to a recipe. The strings
// are as each source states them (calibration README, sec. 4).
type precisionRule struct {
	match   func(s string, c *Case) bool
	recipe  costmodel.Precision
	assumed string
}

func bridgeSource(c *Case) bool {
	return has(c.Row.Source(), "megatron_bridge") || has(c.Row.Source(), "nemo_perf_summary_25")
}

var precisionRules = []precisionRule{
	{func(s string, _ *Case) bool { return has(s, "nvfp4") }, costmodel.NVFP4, ""},
	// 25.09's parenthesised values: "MXFP8 32x32 on GB200/B200;
	// 128x128/1x128 blockwise on H100" (calibration README, sec. 4.3).
	{func(s string, c *Case) bool { return has(s, "alt. scaling") && !has(c.Row.Get("gpu"), "h100") }, costmodel.MXFP8, ""},
	{func(s string, _ *Case) bool { return has(s, "alt. scaling") }, costmodel.FP8Blockwise, ""},
	{func(s string, _ *Case) bool { return has(s, "mxfp8") || has(s, "fp8-mx") }, costmodel.MXFP8, ""},
	{func(s string, _ *Case) bool { return has(s, "rowwise") }, costmodel.FP8Rowwise, ""},
	// torchao Float8Linear "tensorwise" scales dynamically, each tensor
	// at its cast (torchao float8 README).
	{func(s string, _ *Case) bool {
		return has(s, "fp8-cs") || has(s, "current scaling") || has(s, "tensorwise")
	}, costmodel.FP8CS, ""},
	// llm-foundry's amp_fp8 runs Transformer Engine's default recipe.
	{func(s string, _ *Case) bool { return has(s, "amp_fp8") }, costmodel.FP8, ""},
	// Megatron-Bridge tables that say only "FP8": its performance
	// recipes' FP8 is fp8_cs (current scaling).
	{func(s string, c *Case) bool { return has(s, "fp8") && bridgeSource(c) }, costmodel.FP8CS,
		"FP8 recipe: tensorwise current scaling (Megatron-Bridge scripts/performance fp8_cs)"},
	// NeMo 24.07 and older: Transformer Engine's delayed scaling.
	{func(s string, _ *Case) bool { return has(s, "fp8") }, costmodel.FP8, ""},
	{func(s string, _ *Case) bool { return has(s, "bf16") }, costmodel.BF16, ""},
	{func(s string, _ *Case) bool { return has(s, "fp16") || has(s, "16-bit") }, costmodel.FP16, ""},
}

func (c *Case) precision() (costmodel.Precision, error) {
	s := c.Row.Get("precision")
	if has(s, "not stated") {
		assume(&c.Assumed, "precision from the MFU/peak ratio or the source's notes")
	}
	for _, r := range precisionRules {
		if r.match(s, c) {
			if r.assumed != "" {
				assume(&c.Assumed, "%s", r.assumed)
			}
			return r.recipe, nil
		}
	}
	return 0, fmt.Errorf("precision %q not understood", s)
}

func (c *Case) zero(p *costmodel.Plan) {
	s := c.Row.Get("zero_fsdp")
	switch {
	case has(s, "stage 3") || has(s, "full shard") || has(s, "full_shard") || has(s, "megatron-fsdp"):
		p.ZeRO = 3
	case has(s, "shard_grad_op"):
		p.ZeRO = 2
	case has(s, "stage 1") || has(s, "zero-1"):
		p.ZeRO = 1
	case has(s, "distributed optimizer") || has(s, "distributed-optimizer"):
		p.ZeRO = 1
	case has(s, "none"):
		p.ZeRO = 0
	default:
		p.ZeRO = c.fw.ZeRO
		assume(&c.Assumed, "zero=%d", p.ZeRO)
	}
	// Composer's FSDP mixed-precision DEFAULT (get_mixed_precision in
	// composer/trainer/mosaic_fsdp_utils.py, v0.16.4, the floor that
	// llm-foundry's setup.py pins at the benchmark commit b2a43a147)
	// gathers bf16 parameters and reduces gradients in fp32; PURE keeps
	// both in bf16. Only Composer 0.13's DEFAULT gathered fp32
	// parameters (param_dtype unset), a release no table here ran.
	if has(s, "mixed-precision mode default") {
		c.fw.GradAccumFP32 = true
		assume(&c.Assumed, "fp32 gradient reduction (FSDP DEFAULT: bf16 weight gathers)")
	}
}

func (c *Case) sequenceParallel(p *costmodel.Plan) {
	s := c.Row.Get("sequence_parallel")
	switch {
	case has(s, "yes"):
		p.SP = true
	case (s == "" || has(s, "not stated")) && p.TP > 1 && c.fw.TPCommOverlap:
		// Megatron-Core's TP overlap requires sequence parallelism.
		p.SP = true
		assume(&c.Assumed, "sp (implied by tp-comm-overlap)")
	case (s == "" || has(s, "not stated")) && p.TP > 1 && c.fw.SequenceParallel:
		p.SP = true
		assume(&c.Assumed, "sp (tensor parallelism after Korthikanti et al.)")
	}
}

func (c *Case) recompute(p *costmodel.Plan) error {
	s := c.Row.Get("recompute")
	switch {
	case has(s, "(layer)"):
		c.HalfRecompute = true
	case has(s, "(op)") || has(s, "per-op"):
		p.Recompute = costmodel.OpSAC
	case has(s, "selective") && has(c.Row.Source(), "torchtitan"):
		// torchtitan's train configs set selective_ac_option = "op".
		p.Recompute = costmodel.OpSAC
		assume(&c.Assumed, "recompute=opsac (torchtitan's default selective_ac_option \"op\")")
	case has(c.Row.Source(), "megatron_readme_2020") && has(s, "not stated"):
		// Megatron-LM's 2020 example scripts (examples/pretrain_gpt2*.sh)
		// pass --checkpoint-activations.
		p.Recompute = costmodel.Full
		assume(&c.Assumed, "recompute=full (the 2020 example scripts' --checkpoint-activations)")
	case has(s, "not stated") || has(s, "per recipe"):
		p.Recompute = c.fw.Recompute
		assume(&c.Assumed, "recompute=%s", p.Recompute)
	case has(s, "full"):
		p.Recompute = costmodel.Full
	case has(s, "selective"):
		p.Recompute = costmodel.Selective
	case s == "none":
		p.Recompute = costmodel.NoRecompute
	default:
		return fmt.Errorf("recompute %q not understood", s)
	}
	return nil
}

// loraSetting is the adapters a source's LoRA benchmark trains.
type loraSetting struct {
	rank    int
	targets costmodel.LoRATargets
	note    string
}

// loraSettings per source, each the framework's default at the release
// the table names:
//   - NeMo 24.07 (NeMo 1.x, Megatron-Core): peft.lora_tuning in
//     examples/nlp/language_modeling/tuning/conf/megatron_gpt_finetuning_config.yaml,
//     adapter_dim 32 on target_modules ['attention_qkv'], the fused QKV
//     projection only, one adapter (costmodel.TargetQKV).
//   - Megatron-Bridge: scripts/performance/configs/llama/llama3_llm_finetune.py
//     builds llama3_70b_peft_config(peft_scheme="lora"), whose LoRA() of
//     src/megatron/bridge/peft/lora.py has dim 32 on every projection, and
//     then, in each llama3_70b_lora_config_<gpu> from release 26.02 (v0.3.0)
//     to 26.06 (v0.5.0), the last before the file's removal, sets
//     cfg.peft.target_modules = ["linear_qkv"] ("Override target_modules
//     to only apply LoRA to QKV"): dim 32 on the fused QKV only.
var loraSettings = map[string]loraSetting{
	"nemo_perf_summary_24.07": {32, costmodel.TargetQKV,
		"LoRA rank 32 on the fused QKV (NeMo 1.x lora_tuning default)"},
	"megatron_bridge_perf_summary": {32, costmodel.TargetQKV,
		"LoRA rank 32 on linear_qkv only (Megatron-Bridge llama3_llm_finetune.py target_modules override)"},
}

// lora sets a LoRA row's task and adapters. The base stays in bf16, as
// Transformer Engine keeps it under an FP8 recipe (it casts at each GEMM).
func (c *Case) lora(p *costmodel.Plan) error {
	if c.Row.Get("task") != "lora" {
		return nil
	}
	s, ok := loraSettings[c.Row.Source()]
	if !ok {
		return fmt.Errorf("LoRA rank and targets of source %s are not known", c.Row.Source())
	}
	p.Task, p.LoRARank, p.LoRATargets = costmodel.LoRA, s.rank, s.targets
	assume(&c.Assumed, "%s", s.note)
	return nil
}
