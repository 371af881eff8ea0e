package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel/efficiency"
	"github.com/gpu-planner/planner/hardware"
)

// Assumptions are every number the estimate depends on that is not a
// property of the model, the hardware or the plan. Each default cites
// where it comes from; every report prints the assumptions it used.
// Start from DefaultAssumptions and change fields.
type Assumptions struct {
	// HBMFraction is the share of the driver-reported memory a plan may
	// use. The rest is a safety margin for allocator spikes and for
	// memory the model does not see.
	HBMFraction float64 `json:"hbm_fraction"`
	// CUDAContext is the memory the CUDA runtime, cuBLAS, cuDNN and NCCL
	// kernels take per process before any tensor is allocated.
	CUDAContext hardware.Bytes `json:"cuda_context_bytes"`
	// NCCLPerGroup is NCCL's buffer memory per communicator a rank
	// belongs to (one per parallel dimension larger than one).
	NCCLPerGroup hardware.Bytes `json:"nccl_per_group_bytes"`
	// NCCLByTier sizes each communicator from NCCL's default buffers and
	// the channels of its tier instead (nccl.go, NCCLCommBuffers).
	NCCLByTier bool `json:"nccl_by_tier,omitempty"`
	// TrainWorkspace is the cuBLAS and attention-kernel scratch space of
	// a training process.
	TrainWorkspace hardware.Bytes `json:"train_workspace_bytes"`
	// ServeWorkspace is the activation scratch of a serving engine: the
	// intermediate tensors of the largest prefill batch.
	ServeWorkspace hardware.Bytes `json:"serve_workspace_bytes"`
	// Fragmentation is the allocator's overhead as a fraction of the
	// tensors allocated during training.
	Fragmentation float64 `json:"fragmentation"`
	// GradAccumFP32 keeps gradients in an fp32 buffer (Megatron-LM's
	// default main_grad for bf16) instead of the parameter dtype.
	GradAccumFP32 bool `json:"grad_accum_fp32"`
	// StepFP32GradPartition: the optimizer step of ZeRO-1/2 casts the
	// GPU's gradient partition to a flat fp32 copy (DeepSpeed's
	// DeepSpeedZeroOptimizer; stepGradCopy).
	StepFP32GradPartition bool `json:"step_fp32_grad_partition"`
	// FSDPUnshardedUnderPP: with pipeline parallelism, ZeRO-3 (FSDP2)
	// keeps the stage's layers unsharded from the first forward to the
	// last backward and accumulates their unsharded gradients over the
	// micro-batches, reducing once (torchtitan; see stageUnsharded).
	FSDPUnshardedUnderPP bool `json:"fsdp_unsharded_under_pp"`
	// EagerCrossEntropy: the loss is PyTorch's cross_entropy on the
	// logits cast to fp32, not a fused in-place kernel, so its backward
	// holds two more fp32 copies of the logits beside the saved
	// log-softmax (lossBackward; torchtitan).
	EagerCrossEntropy bool `json:"eager_cross_entropy"`
	// SeparateProjections: the attention's query, key and value
	// projections and the SwiGLU gate and up projections are separate
	// linear layers on the same input, not one fused GEMM (torchtitan's
	// Llama: wq, wk, wv and w1, w3 are nn.Linear each).
	SeparateProjections bool `json:"separate_projections,omitempty"`
	// ZeRO3PerMatrix: ZeRO-3 runs as DeepSpeed's v0.3 releases of 2021 do
	// (zero3PerMatrix): one list-form collective per weight matrix, the
	// recomputed forward gathering again, prefetch only under 1e8 live
	// parameters, a per-matrix working set. Dense models only.
	ZeRO3PerMatrix bool `json:"zero3_per_matrix,omitempty"`
	// BF16OptimizerGrads: ZeRO-1 keeps the gradients as DeepSpeed's
	// BF16_Optimizer does (bf16Grads): each micro-batch's bf16 gradients
	// added into fp32 ones in a pass of their own, and those all-reduced
	// over dp after the last micro-batch instead of reduce-scattered.
	BF16OptimizerGrads bool `json:"bf16_optimizer_grads,omitempty"`
	// FP8ParamStorage keeps the transformer layers' weights only in the
	// recipe's low format (Megatron-Core's fp8_param_gather: "keep the
	// compute param in fp8 (do not use any other intermediate dtype)";
	// fp8params.go): no 16-bit copy beside the low-format one.
	FP8ParamStorage bool `json:"fp8_param_storage,omitempty"`
	// BF16OptimizerStates: the optimizer keeps its state in bf16 and
	// reduces the gradients in bf16, as Apex's DistributedFusedAdam does
	// under NeMo 1.x's optim dtype: bf16 and grad_sync_dtype: bf16
	// (ModelStateBytes).
	BF16OptimizerStates bool `json:"bf16_optimizer_states,omitempty"`
	// ServeHBMEfficiency is the share of the datasheet HBM bandwidth a
	// decode step reaches while it streams the weights and the KV cache.
	ServeHBMEfficiency float64 `json:"serve_hbm_efficiency"`
	// ServeFLOPEfficiency is the share of the dense tensor-core peak the
	// GEMMs of a prefill (and of a compute-bound decode) reach.
	ServeFLOPEfficiency float64 `json:"serve_flop_efficiency"`
	// ServeKernels, when set, replaces ServeFLOPEfficiency in a serving
	// step by measured kernel shares: the weight GEMMs' by the format they
	// run in, the prefill attention's (MeasuredKernelShares; the zero
	// value: ServeFLOPEfficiency for all).
	ServeKernels KernelShares `json:"serve_kernel_shares,omitzero"`
	// ServeLinkEfficiency is the share of a link's per-direction
	// bandwidth the data phase of a serving collective reaches.
	ServeLinkEfficiency float64 `json:"serve_link_efficiency"`
	// ServeAllReduceLatency is the fixed time of one tensor-parallel
	// all-reduce inside the scale-up domain: what a message of a few
	// bytes costs.
	ServeAllReduceLatency hardware.Seconds `json:"serve_allreduce_latency_s"`
	// ServeNetworkLatency is the fixed time of one message between GPUs
	// on different nodes: a pipeline hand-off across the network.
	ServeNetworkLatency hardware.Seconds `json:"serve_network_latency_s"`

	// GEMMEfficiency is the share of its measured speed (the efficiency
	// package's curve for the GEMM's shape, GPU and format) that a matrix
	// multiply reaches inside a training step, where it shares the GPU
	// with communication kernels and finds cold caches (fitted; see
	// costmodel/calibration).
	GEMMEfficiency float64 `json:"gemm_efficiency"`
	// AttentionEfficiency is the share of the fused-attention kernel's
	// benchmark speed (AttentionKernel on the efficiency package's
	// curve) that it reaches inside a training step.
	AttentionEfficiency float64 `json:"attention_efficiency"`
	// AttentionKernel is the fused-attention implementation: best (the
	// generation's fastest training kernel), fa2, fa3, triton or fa4.
	AttentionKernel efficiency.Kernel `json:"attention_kernel"`
	// HBMEfficiency is the share of the HBM bandwidth that memory-bound
	// kernels (norms, activations, dropout, softmax, optimizer) reach
	// (fitted).
	HBMEfficiency float64 `json:"hbm_efficiency"`
	// ScaleUpEfficiency and ScaleOutEfficiency are the bus bandwidth NCCL
	// collectives reach as a share of the per-direction NVLink and
	// per-GPU network bandwidth. ScaleUpEfficiency 0 (the default) means
	// measured: each generation's fitted bus bandwidth and latency per
	// operation (scaleUpFits); a value in (0, 1] is one share for every
	// operation and message size.
	ScaleUpEfficiency  float64 `json:"scale_up_efficiency"`
	ScaleOutEfficiency float64 `json:"scale_out_efficiency"`
	// CollectiveLatency is the fixed cost of one collective call;
	// ScaleUpHopLatency and ScaleOutHopLatency the cost of each step of
	// its algorithm over NVLink and over the network.
	CollectiveLatency  hardware.Seconds `json:"collective_latency_s"`
	ScaleUpHopLatency  hardware.Seconds `json:"scale_up_hop_latency_s"`
	ScaleOutHopLatency hardware.Seconds `json:"scale_out_hop_latency_s"`
	// OverlapGradReduce overlaps the data-parallel gradient reduction
	// with the backward pass (PyTorch DDP buckets, FSDP, Megatron-Core
	// --overlap-grad-reduce); off, it runs after the last backward.
	OverlapGradReduce bool `json:"overlap_grad_reduce"`
	// OverlapParamGather overlaps ZeRO-1/2's all-gather of updated
	// weights with the next step's forward (Megatron-Core
	// --overlap-param-gather). ZeRO-3 always prefetches its gathers.
	OverlapParamGather bool `json:"overlap_param_gather"`
	// TPCommOverlap hides tensor-parallel collectives behind the layer's
	// matrix multiplies (Megatron-Core --tp-comm-overlap, Transformer
	// Engine userbuffers); off, they are on the critical path.
	TPCommOverlap bool `json:"tp_comm_overlap"`
	// TPOverlapShare is the share of the overlappable tensor-parallel
	// communication that TPCommOverlap actually hides (Transformer
	// Engine's; AsyncTP has its own model): of a pass's
	// collectives taking t beside GEMMs taking g, share x min(t, g) is
	// hidden. Below 1 because the overlapped GEMM and the collective
	// contend for SMs and memory, and the first chunk of each
	// decomposed GEMM waits for its data.
	TPOverlapShare float64 `json:"tp_overlap_share"`
	// AsyncTP runs TPCommOverlap as PyTorch's micro-pipeline tensor
	// parallelism (torchtitan's AsyncTP: torch._inductor's
	// micro_pipeline_tp pass and torch.distributed._symmetric_memory's
	// fused all-gather-matmul and matmul-reduce-scatter) instead of
	// Transformer Engine userbuffers (asyncTPExposed).
	AsyncTP bool `json:"async_tp"`
	// AsyncTPContention is the GEMM time each second of transfer that
	// AsyncTP hides costs: the copy engines' pulls contend with the
	// concurrent GEMM for HBM and NVLink, and the GEMM split into tp
	// chunks loses to wave quantization.
	AsyncTPContention float64 `json:"async_tp_contention"`
	// CPAllGather runs context parallelism as an all-gather of the keys
	// and values before the attention (Meta's Llama 3, PyTorch's
	// context_parallel with the allgather rotate method, torchtitan's
	// default) instead of Megatron-Core's ring of point-to-point
	// exchanges, each hidden behind one block's attention.
	CPAllGather bool `json:"cp_all_gather"`
	// OverlapP2P hides pipeline sends and receives behind compute
	// (Megatron-Core --overlap-p2p-comm); off, they are exposed.
	OverlapP2P bool `json:"overlap_p2p"`
	// RankOrder lays the parallel dimensions over consecutive ranks,
	// innermost first ("" is DefaultRankOrder, tp-cp-dp-pp).
	RankOrder RankOrder `json:"rank_order"`
	// KernelOverhead is the time every GPU kernel costs beyond its
	// roofline time: the gap between dependent launches and the ramp and
	// tail of its waves. It makes small operations less efficient than
	// large ones, and more so on faster GPUs.
	KernelOverhead hardware.Seconds `json:"kernel_overhead_s"`
	// UnfusedElementwise runs RMSNorm, rotary embeddings and the SwiGLU
	// gate as chains of separate PyTorch kernels with fp32 upcasts
	// (eager mode without torch.compile, as torchtitan's 2024 model
	// code), multiplying their memory traffic; off, they are fused
	// kernels as in Megatron-LM and Transformer Engine.
	UnfusedElementwise bool `json:"unfused_elementwise"`
	// SustainedClock is the share of the datasheet tensor-core peak the
	// GPU sustains under its power limit; 0 takes the GPU's default
	// (SustainedClockOf).
	SustainedClock float64 `json:"sustained_clock"`

	// MoELoadImbalance is the tokens the busiest expert receives over
	// the balanced share, tokens x top-k / experts (1: balanced routing).
	MoELoadImbalance float64 `json:"moe_load_imbalance"`
	// MoECapacityFactor caps each expert at that multiple of the
	// balanced share, dropping the rest (GShard, Switch); 0 is dropless
	// routing, Megatron-Core's default.
	MoECapacityFactor float64 `json:"moe_capacity_factor"`
	// EPCommOverlap hides the expert-parallel all-to-alls behind the
	// other micro-batch's compute (Megatron-Core
	// --overlap-moe-expert-parallel-comm, DeepSeek's DualPipe and DeepEP).
	EPCommOverlap bool `json:"ep_comm_overlap"`
	// EPNodeDedup: the token dispatcher sends a token once to each node
	// that holds one of its experts and fans it out over NVLink there,
	// and the combine reduces inside the node before sending back
	// (DeepEP's internode kernels, Megatron-Core's flex dispatcher with
	// the DeepEP or HybridEP backend; epcomm.go).
	EPNodeDedup bool `json:"ep_node_dedup,omitempty"`
	// MoEHostSync is the time the GPU waits on the host once per MoE
	// layer and forward pass (again in a full recompute): the token
	// dispatcher copies the tokens-per-expert counts to the host and
	// synchronizes before the dispatch (setMoEDefaults); 0 where CUDA
	// graphs keep the host ahead of the GPU or a sync-free dispatcher runs.
	MoEHostSync hardware.Seconds `json:"moe_host_sync_s"`
	// HighPrecisionSavedInputs: the low-precision linears save their
	// 16-bit input for the weight gradient, as torchao's float8 linears
	// do, instead of Transformer Engine's one low-format copy
	// (Recipe.SavedInputBytes).
	HighPrecisionSavedInputs bool `json:"high_precision_saved_inputs,omitempty"`
	// CompiledAmax: the amax reduction of a tensorwise current-scaling
	// cast (FP8CS) runs inside the kernel that produces the tensor, so
	// the cast reads each 16-bit activation and output gradient once,
	// not twice. torch.compile does this for torchao's float8 linears:
	// torchao's float8 roofline (torchao/testing/training/roofline_utils.py,
	// get_tensor_memory_traffic_ovhd_s, tensorwise: "kernel 1: x_bf16 ->
	// max_abs_stage_1", which fuse_with_prev folds into the previous op
	// for the input and the output gradient, leaving "kernel 3: read in
	// bf16, write twice in float8"); torchtitan float8.py: "Float8 ... is
	// intended to be ran under torch.compile for competitive performance".
	CompiledAmax bool `json:"compiled_amax,omitempty"`
	// FP8TPAllGather: under a tensorwise FP8 plan (FP8CS) with sequence
	// parallelism the tensor-parallel all-gathers carry FP8, one byte an
	// element: torchao's Float8ColwiseParallel and PrepareFloat8ModuleInput
	// cast the sequence-sharded input before its all-gather ("so that if
	// there are multiple float8 users of the input activation, we perform
	// fp8 allgather only once"), and Float8RowwiseParallel casts the output
	// gradient before the backward all-gather (_NoopFwToFloat8BwDynamic);
	// the reduce-scatters stay 16-bit (torchao/float8/float8_tensor_parallel.py).
	// torchtitan's apply_tp uses these styles whenever float8 is on
	// (torchtitan/parallelisms/parallelize_llama.py at 9dec370, Dec 2024).
	FP8TPAllGather bool `json:"fp8_tp_all_gather,omitempty"`
	// MoEWeightedActivation: the router's probabilities scale the expert
	// activation's output and the combine sums the expert outputs
	// unweighted, so it keeps no copy of them for backward
	// (Megatron-Core's activation_func_with_probs; the megatron and nemo
	// presets set it). Off, the combine weights the outputs and keeps
	// them, as a plain PyTorch MoE does.
	MoEWeightedActivation bool `json:"moe_weighted_activation,omitempty"`
}

// DefaultAssumptions returns the documented defaults:
//
//   - HBMFraction 0.90: keep 10% of the driver-reported memory free.
//   - CUDAContext 1 GB: the CUDA context of a PyTorch process is about
//     0.5 GB with lazy module loading and up to about 1 GB once cuBLAS,
//     cuDNN and NCCL kernels are loaded; 1 GB is the figure of the
//     standard serving sizing example (8B model: 16 GB weights + 1.5 GB
//     workspace + 1 GB context + KV cache).
//   - NCCLPerGroup 256 MiB: NCCL's default NCCL_BUFFSIZE is 4 MiB per
//     channel and peer; a ring uses a send and a receive peer on up to
//     32 channels (2 x 32 x 4 MiB), before the smaller LL and LL128
//     buffers. NCCLByTier (off) counts those too and the channels of
//     each tier: 588 MiB per communicator inside a node, 147 MiB across
//     nodes (NCCLCommBuffers). vLLM's measured NCCL and custom
//     all-reduce memory at tp >= 2 is larger still, about 2.1 GiB per
//     GPU (llm-d-planner#194, with NVLS and CUDA-graph buffers): set
//     NCCLPerGroup to a measured figure when it matters.
//   - TrainWorkspace 256 MiB: cuBLAS workspaces (32 MiB per stream on
//     Hopper in PyTorch) for several streams plus attention scratch.
//   - ServeWorkspace 1.5 GB: the serving sizing example's workspace.
//   - Fragmentation 5%: the PyTorch caching allocator reserves whole
//     2 MiB blocks and splits them; reserved memory commonly exceeds
//     allocated by a few percent, more with varying shapes (set
//     expandable_segments to reduce it). Measure yours and set it.
//   - ServeHBMEfficiency 0.75: fitted, with the all-reduce latency of
//     that machine, to gpt-fast's seven batch-1 decode rows on A100-80GB
//     (pytorch-labs/gpt-fast README, "Benchmarks" and "Tensor
//     Parallelism": Llama-2-7B at tp 1-8, Llama-2-70B at tp 2-8): 0.745,
//     rms error 5% (servecalib_test.go prints the fit and every row).
//     Llama-2-7B alone streams 1,397 GB/s of 2,039 (0.69).
//   - ServeFLOPEfficiency 0.65: fitted to TensorRT-LLM v0.5's
//     first-token latency of 2,048-token prompts on A100 in fp16, 133 ms
//     for Llama-2-7B and 377 ms for Llama-2-70B at tp=4
//     (NVIDIA/TensorRT-LLM docs/source/performance.md, "Low Latency"):
//     0.67; the test prints the error of all eight rows, fp8 included.
//   - ServeLinkEfficiency 0.80: ring all-reduce reaches a bus bandwidth of
//     365-370 GB/s on 8 H100s over 450 GB/s NVLink (NVIDIA/nccl#1455).
//   - ServeAllReduceLatency 10 µs: vLLM's custom all-reduce on 8 H100s
//     takes 9.3-11.8 µs for 512 B to 32 KB (sgl-project/sglang#2904).
//   - ServeNetworkLatency 20 µs: an 8-byte all-reduce between two A100
//     nodes over HDR InfiniBand, one GPU each, takes 19-20 µs
//     (NVIDIA/nccl-tests#150).
//
// Step time (sources in setPerformanceDefaults, perfassumptions.go):
// GEMMEfficiency and AttentionEfficiency are fitted on the calibration
// rows, HBMEfficiency on the per-layer times of Korthikanti et al. 2022,
// Table 4, the NVLink collectives on nccl-tests; the others are cited.
func DefaultAssumptions() Assumptions {
	a := Assumptions{
		HBMFraction:    0.90,
		CUDAContext:    1 * hardware.GB,
		NCCLPerGroup:   256 * hardware.MiB,
		TrainWorkspace: 256 * hardware.MiB,
		ServeWorkspace: 1.5 * hardware.GB,
		Fragmentation:  0.05,

		ServeHBMEfficiency:    0.75,
		ServeFLOPEfficiency:   0.65,
		ServeLinkEfficiency:   0.80,
		ServeAllReduceLatency: 10e-6,
		ServeNetworkLatency:   20e-6,
	}
	a.setPerformanceDefaults()
	return a
}

// Validate checks that every assumption is in its physical range.
func (a Assumptions) Validate() error {
	if !(a.HBMFraction > 0 && a.HBMFraction <= 1) {
		return fmt.Errorf("costmodel: HBM fraction %g is not in (0, 1]", a.HBMFraction)
	}
	if !(a.Fragmentation >= 0 && a.Fragmentation < 1) {
		return fmt.Errorf("costmodel: fragmentation %g is not in [0, 1)", a.Fragmentation)
	}
	if err := a.validatePerformance(); err != nil {
		return err
	}
	for _, e := range []struct {
		name string
		v    float64
	}{{"serving HBM efficiency", a.ServeHBMEfficiency}, {"serving FLOP efficiency", a.ServeFLOPEfficiency},
		{"serving link efficiency", a.ServeLinkEfficiency}} {
		if !(e.v > 0 && e.v <= 1) {
			return fmt.Errorf("costmodel: %s %g is not in (0, 1]", e.name, e.v)
		}
	}
	if err := a.ServeKernels.validate(); err != nil {
		return err
	}
	for _, l := range []struct {
		name string
		v    hardware.Seconds
	}{{"all-reduce latency", a.ServeAllReduceLatency}, {"network latency", a.ServeNetworkLatency}} {
		if !(l.v >= 0 && l.v < 1) {
			return fmt.Errorf("costmodel: %s %v is not in [0, 1 s)", l.name, l.v)
		}
	}
	for _, b := range []struct {
		name string
		v    hardware.Bytes
	}{{"CUDA context", a.CUDAContext}, {"NCCL buffers per group", a.NCCLPerGroup},
		{"training workspace", a.TrainWorkspace}, {"serving workspace", a.ServeWorkspace}} {
		if !(b.v >= 0 && b.v < 1*hardware.TB) {
			return fmt.Errorf("costmodel: %s %v is not in [0, 1 TB)", b.name, b.v)
		}
	}
	return nil
}
