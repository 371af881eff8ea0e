package frameworks

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/efficiency"
)

// Sources of the presets' settings.
const (
	srcMcoreArgs = "Megatron-LM megatron/training/arguments.py (--overlap-grad-reduce, --overlap-param-gather, " +
		"--tp-comm-overlap, --sequence-parallel, --fp8-recipe {delayed,tensorwise,mxfp8,blockwise}, --fp4-recipe nvfp4)"
	srcMcoreFP32 = "Megatron-LM arguments.py: bf16 sets accumulate_allreduce_grads_in_fp32 (main_grad in fp32)"
	srcMcoreP2P  = "Megatron-LM arguments.py: overlap_p2p_comm on by default with the interleaved schedule"
	srcTEAttn    = "Transformer Engine DotProductAttention: cuDNN fused / FlashAttention backends"
	srcTEFused   = "Megatron-Core fusions: bias-GeLU, bias-dropout-add, fused RoPE, TE LayerNormLinear"
	// srcBridge: scripts/performance of Megatron-Bridge
	// (configs/llama/llama3_workload_base_configs.py, utils/helpers.py):
	// the distributed optimizer with overlapped reduce and gather, TP
	// comm overlap, CUDA graphs, no recompute unless recompute_num_layers
	// is set.
	srcBridge   = "Megatron-Bridge scripts/performance recipes"
	srcBridgeFP = "Megatron-Bridge docs/performance-summary.md: BF16, FP8-CS, FP8-MX (MXFP8), NVFP4"
	srcTitanDoc = "torchtitan docs (FSDP2 prefetch, SDPA FlashAttention, torch.compile, float8 tensorwise/rowwise via torchao)"
	srcTitanMP  = "torchtitan job_config.py: mixed_precision_reduce = float32 (FSDP2 MixedPrecisionPolicy reduce_dtype)"
	srcTitanTP  = "torchtitan parallelize_llama: SequenceParallel norms in the TP plan; enable_async_tensor_parallel off by default"
	srcDSEngine = "DeepSpeed config docs: zero_optimization.overlap_comm, stage3_prefetch_bucket_size; fp16/bf16 sections"
	assumed     = "assumed: not stated by the framework's documentation"
)

// Sources of the attention-kernel and context-parallel settings.
const (
	srcTEKernel = "Transformer Engine DotProductAttention: cuDNN fused attention (FlashAttention-3 class on Hopper, " +
		"FlashAttention-4 class on Blackwell: cuDNN frontend sdpa_benchmark_training)"
	srcSDPA    = "PyTorch scaled_dot_product_attention: the flash backend is FlashAttention-2 (PyTorch 2.2-2.5 release notes)"
	srcMcoreCP = "Megatron-Core context_parallel docs: ring of p2p K/V exchanges overlapped with attention"
	srcTitanCP = "torchtitan job config: context_parallel_rotate_method defaults to allgather"
)

// userPresets are the current frameworks users pick with --framework.
var userPresets = []Preset{Megatron, NeMo, Torchtitan, DeepSpeed}

// Megatron is Megatron-Core as current Megatron-LM runs it with its
// recommended flags.
var Megatron = Preset{Name: "megatron", Title: "Megatron-Core (current Megatron-LM)",
	Attention: costmodel.Flash, OverlapGradReduce: true, OverlapParamGather: true, TPCommOverlap: true,
	OverlapP2P: true, GradAccumFP32: true, SequenceParallel: true, MoEWeightedActivation: true,
	Recipes:   []costmodel.Precision{costmodel.FP8, costmodel.FP8CS, costmodel.FP8Blockwise, costmodel.MXFP8, costmodel.NVFP4},
	Recompute: costmodel.NoRecompute, MicroBatch: 1, ZeRO: 1,
	Cite: map[string]string{SetKernel: srcTEKernel, SetCP: srcMcoreCP,
		SetAttention: srcTEAttn, SetElementwise: srcTEFused, SetGradReduce: srcMcoreArgs,
		SetParamGather: srcMcoreArgs, SetTPOverlap: srcMcoreArgs, SetP2P: srcMcoreP2P, SetGradDType: srcMcoreFP32,
		SetSP: srcMcoreArgs, SetRecipes: srcMcoreArgs}}

// NeMo is NVIDIA's NeMo 2 / Megatron-Bridge performance recipes on
// Megatron-Core.
var NeMo = Preset{Name: "nemo", Title: "NeMo / Megatron-Bridge performance recipes",
	Attention: costmodel.Flash, OverlapGradReduce: true, OverlapParamGather: true, TPCommOverlap: true,
	OverlapP2P: true, SequenceParallel: true, MoEWeightedActivation: true,
	Recipes:   []costmodel.Precision{costmodel.FP8CS, costmodel.FP8Blockwise, costmodel.MXFP8, costmodel.NVFP4},
	Recompute: costmodel.NoRecompute, MicroBatch: 1, ZeRO: 1,
	Cite: map[string]string{SetKernel: srcTEKernel, SetCP: srcMcoreCP,
		SetAttention: srcTEAttn, SetElementwise: srcTEFused, SetGradReduce: srcBridge,
		SetParamGather: srcBridge, SetTPOverlap: srcBridge, SetP2P: srcMcoreP2P,
		SetGradDType: assumed + " (bf16 gradient reduction)", SetSP: srcBridge, SetRecipes: srcBridgeFP}}

// Torchtitan is current torchtitan: FSDP2, torch.compile, SDPA.
var Torchtitan = Preset{Name: "torchtitan", Title: "torchtitan (FSDP2, torch.compile)",
	Attention: costmodel.Flash, Kernel: efficiency.KernelFA2, CPAllGather: true, OverlapGradReduce: true, OverlapParamGather: true, GradAccumFP32: true,
	FSDPUnshardedUnderPP: true, EagerCrossEntropy: true, SequenceParallel: true, SeparateProjections: true, AsyncTP: true,
	Recipes:   []costmodel.Precision{costmodel.FP8CS, costmodel.FP8Rowwise, costmodel.FP8RowwiseGWHP, costmodel.MXFP8},
	Recompute: costmodel.Selective, MicroBatch: 1, ZeRO: 3, HighPrecisionSavedInputs: true, CompiledAmax: true, FP8TPAllGather: true,
	Cite: map[string]string{SetKernel: srcSDPA, SetCP: srcTitanCP,
		SetAttention: srcTitanDoc, SetElementwise: srcTitanDoc + ": torch.compile fuses them",
		SetGradReduce: srcTitanDoc, SetParamGather: srcTitanDoc, SetTPOverlap: srcTitanTP,
		SetP2P: assumed, SetGradDType: srcTitanMP, SetSP: srcTitanTP, SetRecipes: srcTitanDoc, SetFSDPUnderPP: srcTitanFSDPPP,
		SetLoss: srcTitanLoss, SetProjections: srcTitanModel, SetFP8Linears: srcTitanFP8Linears}}

// srcTitanLoss is torchtitan's loss.
// srcTitanModel is where torchtitan's Llama keeps its projections apart.
const srcTitanModel = "torchtitan models/llama3/model.py (models/llama/model.py in 2024): Attention.wq, wk, wv and " +
	"FeedForward.w1, w3 are separate nn.Linear layers"

const srcTitanLoss = "torchtitan train.py / components/loss.py: cross_entropy_loss = F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)); the bf16 pred is deleted before loss.backward()"

// srcTitanFSDPPP is where torchtitan keeps a pipeline stage unsharded.
const srcTitanFSDPPP = "torchtitan apply_fsdp: reshard_after_forward = not pp_enabled (\"avoid per-microbatch all-gathers\"); torch.distributed.pipelining stage.py: no reshard or gradient sync before the last micro-batch"

// DeepSpeed is DeepSpeed ZeRO with its overlapped communication.
var DeepSpeed = Preset{Name: "deepspeed", Title: "DeepSpeed ZeRO",
	Attention: costmodel.Flash, Kernel: efficiency.KernelFA2, OverlapGradReduce: true, OverlapParamGather: true, GradAccumFP32: true,
	StepFP32GradPartition: true, Recompute: costmodel.NoRecompute, MicroBatch: 1, ZeRO: 2,
	Cite: map[string]string{SetKernel: srcSDPA, SetCP: "DeepSpeed has no context parallelism of this kind (Ulysses is not modeled)",
		SetAttention: assumed + " (the model code's SDPA)", SetElementwise: assumed + " (Hugging Face eager kernels are counted as fused)",
		SetGradReduce: srcDSEngine, SetParamGather: srcDSEngine, SetTPOverlap: "DeepSpeed has no tensor-parallel overlap",
		SetP2P: "DeepSpeed PipelineEngine: blocking p2p", SetGradDType: "DeepSpeed keeps fp32 gradients for the fp32 master (bf16_optimizer)",
		SetSP: "DeepSpeed has no Megatron sequence parallelism", SetRecipes: "DeepSpeed has no FP8 recipe of its own"}}
