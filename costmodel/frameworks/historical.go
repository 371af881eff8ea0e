package frameworks

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/efficiency"
)

// historical are the presets of the calibration's older sources; each
// is selectable by name but not listed as a current framework.
var historical = []Preset{MegatronLM2022, MegatronDeepSpeed, MegatronDeepSpeedBF16, DeepSpeedZeRO3of2021, Torchtitan2024, LLMFoundry, MetaLlama3}

// MegatronLM2022 is Megatron-LM of 2020-2022: fused eager attention (no
// FlashAttention yet), the data-parallel all-reduce after the backward
// ("without overlapping the data-parallel all-reduce", Korthikanti et
// al. 2022, sec. 6.3), no TP or p2p overlap.
var MegatronLM2022 = Preset{Name: "megatron-lm-2022", Title: "Megatron-LM 2020-22",
	Attention: costmodel.Eager, MicroBatch: 1,
	Cite: map[string]string{SetAttention: "Korthikanti et al. 2022 sec. 4 (fused scale-mask-softmax, no FlashAttention)",
		SetElementwise: "Megatron-LM fused bias-GeLU and bias-dropout-add kernels", SetGradReduce: "Korthikanti et al. 2022 sec. 6.3",
		SetParamGather: "no distributed optimizer before 2022", SetTPOverlap: "not in Megatron-LM before 2023",
		SetP2P: "Narayanan et al. 2021 sec. 4.1 (scatter/gather, no overlap)", SetGradDType: "fp16 gradients (Narayanan et al. 2021)",
		SetSP: "only where a source says so (Korthikanti et al. 2022 sec. 4.2.2)", SetRecipes: "none (A100)"}}

// MegatronDeepSpeed is the Megatron-DeepSpeed of BLOOM and MT-NLG:
// DeepSpeed's PipelineEngine reduces gradients after the pipeline flush
// and all-gathers ZeRO-1 weights after the step, without overlap.
var MegatronDeepSpeed = Preset{Name: "megatron-deepspeed", Title: "Megatron-DeepSpeed (2021-22)",
	Attention: costmodel.Eager, StepFP32GradPartition: true, Recompute: costmodel.Full, MicroBatch: 1, ZeRO: 1,
	Cite: map[string]string{SetAttention: "Megatron-DeepSpeed fused softmax (no FlashAttention in 2021-22)",
		SetElementwise: "Megatron fused kernels", SetGradReduce: "DeepSpeed PipelineEngine TrainSchedule: ReduceGrads after the last backward",
		SetParamGather: "DeepSpeed ZeRO-1 all-gather after the optimizer step", SetTPOverlap: "none", SetP2P: "DeepSpeed PipelineEngine: blocking p2p",
		SetGradDType: "bf16/fp16", SetSP: "not in Megatron-DeepSpeed of 2021-22", SetRecipes: "none (A100)"}}

// MegatronDeepSpeedBF16 is BigScience's Megatron-DeepSpeed in bf16
// (BLOOM, 2022): MegatronDeepSpeed with DeepSpeed's BF16_Optimizer, which
// adds each micro-batch's bf16 gradients into fp32 ones and all-reduces
// those over dp after the pipeline flush (costmodel.Assumptions.
// BF16OptimizerGrads).
var MegatronDeepSpeedBF16 = Preset{Name: "megatron-deepspeed-bf16", Title: "Megatron-DeepSpeed with BF16_Optimizer (BLOOM, 2022)",
	Attention: costmodel.Eager, GradAccumFP32: true, BF16OptimizerGrads: true, Recompute: costmodel.Full, MicroBatch: 1, ZeRO: 1,
	Cite: map[string]string{SetAttention: MegatronDeepSpeed.Cite[SetAttention],
		SetElementwise: MegatronDeepSpeed.Cite[SetElementwise], SetGradReduce: srcBF16Reduce,
		SetParamGather: "DeepSpeed BF16_Optimizer.step: all_gather_dp_groups after the update", SetTPOverlap: "none",
		SetP2P: MegatronDeepSpeed.Cite[SetP2P], SetGradDType: srcBF16Accum, SetSP: MegatronDeepSpeed.Cite[SetSP], SetRecipes: "none (A100)"}}

// Sources of the BF16_Optimizer's gradient handling (microsoft/DeepSpeed
// v0.6, deepspeed/runtime/bf16_optimizer.py and runtime/pipe/engine.py;
// bigscience-workshop/bigscience train/tr11-176B-ml/README.md names it).
const (
	srcBF16Reduce = "DeepSpeed PipelineEngine._bf16_reduce_grads: buffered all-reduce of BF16_Optimizer.get_grads_for_reduction (the fp32 gradients) after the last backward"
	srcBF16Accum  = "DeepSpeed BF16_Optimizer.update_hp_grads after every micro-batch's backward: hp_grad.add_(lp.grad.to(fp32))"
)

// DeepSpeedZeRO3of2021 is DeepSpeed ZeRO-3 on Megatron's GPT (Narayanan
// et al. 2021, Table 2): eager attention, prefetched gathers,
// overlap_comm, and the collectives of DeepSpeed v0.3 (one per weight
// matrix, in list form; costmodel.Assumptions.ZeRO3PerMatrix).
var DeepSpeedZeRO3of2021 = Preset{Name: "deepspeed-zero3-2021", Title: "DeepSpeed ZeRO-3 (2021)",
	Attention: costmodel.Eager, OverlapGradReduce: true, OverlapParamGather: true, ZeRO3PerMatrix: true, MicroBatch: 1, ZeRO: 3,
	Cite: map[string]string{SetAttention: "Megatron GPT model code of 2021", SetGradReduce: srcDSEngine, SetParamGather: srcDSEngine,
		SetZeRO3Calls: srcDSv03}}

// srcDSv03 is where DeepSpeed's 2021 ZeRO-3 issues its collectives.
const srcDSv03 = "DeepSpeed v0.3.13 partition_parameters.py: _allgather_param and _reduce_scatter_gradient per parameter, " +
	"one tensor per rank; stage3.py: torch.cuda.synchronize() in each fetch, release after use, prefetch under " +
	"stage3_max_live_parameters (1e8 in DeepSpeedExamples Megatron-LM-v1.1.5-ZeRO3 ds_zero_stage_3_config.json)"

// Torchtitan2024 is torchtitan's 2024 performance docs: FSDP2 with
// prefetch, SDPA FlashAttention, the model in eager PyTorch (RMSNorm,
// RoPE and SwiGLU unfused: no torch.compile).
var Torchtitan2024 = Preset{Name: "torchtitan-2024", Title: "torchtitan 2024 (FSDP2, eager)",
	Attention: costmodel.Flash, Kernel: efficiency.KernelFA2, CPAllGather: true, OverlapGradReduce: true, OverlapParamGather: true, UnfusedElementwise: true,
	FSDPUnshardedUnderPP: true, EagerCrossEntropy: true, MicroBatch: 1, ZeRO: 3,
	Cite: map[string]string{SetKernel: srcSDPA, SetCP: srcTitanCP, SetAttention: "torchtitan docs/performance.md (SDPA)", SetElementwise: "torchtitan docs/performance.md (eager: no torch.compile)",
		SetGradReduce: "FSDP2 reduce-scatter overlapped with backward", SetParamGather: "FSDP2 prefetch", SetFSDPUnderPP: srcTitanFSDPPP,
		SetLoss: srcTitanLoss}}

// LLMFoundry is MosaicML Composer + llm-foundry's MPT benchmarks:
// PyTorch FSDP (FULL_SHARD or SHARD_GRAD_OP) with forward and backward
// prefetch, FlashAttention (attn_impl flash/triton), fused LayerNorm
// (low_precision_layernorm), no tensor parallelism.
//
// What the tables of scripts/train/benchmarking/README.md ran (git
// history of mosaicml/llm-foundry): submit_benchmarks.py sets
// model.attn_impl from --attn_impl, default triton until 2024-03
// (7f0fdae66), and always sets activation_checkpointing_reentrant false
// and limit_all_gathers true. The A100 40GB table is unchanged since
// 2023-05 (300cc5c58: torch 1.13.1 image, precision bf16 with FSDP
// mixed_precision PURE, i.e. bf16 parameters, gradient reduction and
// buffers). The A100 80GB and H100 tables date from 2023-10 (b2a43a147:
// llm-foundry v0.3.0 with triton-pre-mlir and flash-attn 1.0.9; sweep.sh
// passes no --attn_impl; amp_bf16 with DEFAULT: Composer's
// get_mixed_precision gathers bf16 parameters in every release from 0.14
// on, and from 0.16.4, the floor setup.py pins at that commit, reduces
// gradients in fp32 (0.16.0-0.16.3 left reduce_dtype unset: bf16). The
// large-scale H100 table (2024-01, 5e85bd62d, sweep.py) states flash
// (flash-attn 2.4.2) for 1b, 3b, 7b and 70b and triton for 13b and 30b.
// The rows keep FlashAttention-2: costed with efficiency.KernelTriton
// the refit moves attention from its fitted share to 0.854 of its curve and the
// MoE rows, which are not fitted, to a 19% median error, above their
// guard.
var LLMFoundry = Preset{Name: "llm-foundry", Title: "MosaicML Composer + llm-foundry (FSDP)",
	Attention: costmodel.Flash, Kernel: efficiency.KernelFA2, OverlapGradReduce: true, OverlapParamGather: true,
	Recipes: []costmodel.Precision{costmodel.FP8}, Recompute: costmodel.NoRecompute, MicroBatch: 1, ZeRO: 3,
	Cite: map[string]string{SetKernel: "llm-foundry attn_impl flash: flash-attn 2 (FlashAttention-2)",
		SetAttention:   "llm-foundry scripts/train/benchmarking/README.md (attn_impl flash/triton)",
		SetElementwise: "MPT low_precision_layernorm; " + assumed + " for GELU", SetGradReduce: "PyTorch FSDP backward_prefetch",
		SetParamGather: "PyTorch FSDP forward_prefetch", SetRecipes: "llm-foundry amp_fp8: Transformer Engine DelayedScaling"}}

// MetaLlama3 is Meta's Llama 3 405B training (Dubey et al. 2024, sec.
// 3.3.2): FSDP that "shards optimizer states and gradients, but for
// model shards we do not reshard after forward computation" (ZeRO-2),
// overlapped as FSDP does; "asynchronous point-to-point communication in
// PP"; "we could pre-train Llama 3 on sequences of 8K tokens without
// activation checkpointing"; tensor parallelism citing Korthikanti et
// al. (sequence parallelism); context parallelism all-gathers the keys
// and values. Attention kernel, TP overlap and micro-batch are not
// stated: the generation's best fused attention (assumed; with
// FlashAttention-2 the three Table 4 rows are 13%, 12% and 19% slower
// than measured instead of 9%, 8% slower and 11% faster), none, 1.
var MetaLlama3 = Preset{Name: "meta-llama3", Title: "Meta Llama 3 (4D parallelism)",
	Attention: costmodel.Flash, Kernel: efficiency.KernelBest, CPAllGather: true, OverlapGradReduce: true, OverlapParamGather: true, OverlapP2P: true,
	SequenceParallel: true, Recompute: costmodel.NoRecompute, MicroBatch: 1, ZeRO: 2,
	Cite: map[string]string{SetKernel: assumed + " (not stated: the generation's best fused attention)",
		SetCP:        "Dubey et al. 2024 sec. 3.3.2 (all-gather based context parallelism)",
		SetAttention: assumed, SetGradReduce: "Dubey et al. 2024 sec. 3.3.2 (FSDP)",
		SetParamGather: "Dubey et al. 2024 sec. 3.3.2 (FSDP)", SetTPOverlap: assumed,
		SetP2P: "Dubey et al. 2024 sec. 3.3.2 (asynchronous p2p in PP)", SetSP: "Dubey et al. 2024 sec. 3.3.2 (Korthikanti et al.)",
		SetRecipes: "none (BF16 training)"}}
