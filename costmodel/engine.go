package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// Engine is how a serving engine batches and where it spends time beyond
// the kernels: one preset per engine (Engines), every field printed with
// the answer and overridable.
type Engine struct {
	// Name is the engine's key: vllm, sglang or trtllm.
	Name string `json:"name"`
	// StepOverhead is the fixed time one engine step costs beyond its
	// kernels: scheduling, sampling, detokenization, the host-device
	// round trip. Fitted per engine on measured-serving.csv
	// (costmodel/servingcal).
	StepOverhead hardware.Seconds `json:"step_overhead_s"`
	// RequestOverhead is the time a request spends outside the engine's
	// steps before its first token reaches the client: the API server's
	// HTTP handling and tokenization on the way in, the hand-off to the
	// engine process, detokenization and the first streamed chunk on
	// the way out. Fitted per engine like StepOverhead.
	RequestOverhead hardware.Seconds `json:"request_overhead_s"`
	// Frontend is the HTTP front end before the engine: blank for the
	// engine's own server, FrontendDynamo for Dynamo's; FrontendOverhead
	// is the time it adds to every request before its first token
	// (FrontendOverheads; WithFrontend sets both).
	Frontend         string           `json:"frontend,omitempty"`
	FrontendOverhead hardware.Seconds `json:"frontend_overhead_s,omitempty"`
	// BlockTokens is the paged KV-cache block (vLLM block_size 16,
	// SGLang's radix cache one token, TensorRT-LLM tokens_per_block 32).
	BlockTokens int `json:"kv_block_tokens"`
	// ChunkTokens is the prefill token budget of one step (chunked
	// prefill): the prompts waiting share it, so a prompt longer than it
	// enters in chunks and shorter ones enter several to a step; 0 lets
	// every waiting prompt enter whole in one step.
	ChunkTokens int `json:"chunk_tokens"`
	// MixedPrefill runs prefill chunks in the same steps as the decodes
	// (vLLM V1's unified scheduler with chunked prefill; TensorRT-LLM's
	// inflight batching of context and generation requests); without it
	// a prefill batch runs alone and the decodes wait for it (SGLang's
	// default, enable_mixed_chunk off), so the prompts that arrive
	// together start decoding together.
	MixedPrefill bool `json:"mixed_prefill"`
	// CUDAGraphs replays steps as CUDA graphs, so a step pays no
	// per-kernel launch cost; without them every kernel of every layer
	// adds KernelLaunch.
	CUDAGraphs bool `json:"cuda_graphs"`
	// DecodeOnlyGraphs keeps the CUDA graphs to the steps that only
	// decode: a step with a prefill chunk in it runs eagerly and adds
	// KernelLaunch for every kernel of every layer (vLLM V1's
	// cudagraph_mode FULL_DECODE_ONLY, "full CUDA Graph for uniform
	// decode, no cudagraph for prefill/mixed", vLLM
	// docs/design/cuda_graphs.md; with splitting_ops [] there are no
	// piecewise graphs to fall back to). The default FULL_AND_PIECEWISE
	// and PIECEWISE graph everything but the attention, which the model
	// prices as graphed. SGLang graphs only its decode batches
	// (python/sglang/srt/model_executor/forward_batch_info.py,
	// ForwardMode.is_cuda_graph: DECODE, TARGET_VERIFY, IDLE; EXTEND and
	// MIXED batches run eagerly unless --enable-piecewise-cuda-graph), and
	// so does TensorRT-LLM's PyTorch backend (tensorrt_llm/_torch/
	// pyexecutor/scheduler.py, ScheduledRequests.can_run_cuda_graph: no
	// context requests; piecewise graphs need torch_compile_config), so
	// their presets set it.
	DecodeOnlyGraphs bool `json:"decode_only_graphs,omitempty"`
	// MemoryFraction is the share of the driver-reported HBM the engine
	// takes for weights, activations and KV cache (vLLM's
	// gpu_memory_utilization 0.9).
	MemoryFraction float64 `json:"memory_fraction"`
	// OfFreeMemory applies MemoryFraction to the memory left after the
	// weights and overheads (TensorRT-LLM's free_gpu_memory_fraction)
	// instead of to the whole HBM (vLLM, SGLang).
	OfFreeMemory bool `json:"of_free_memory"`
	// ReserveFullLength admits a request only when the KV cache of its
	// whole input plus output fits (TensorRT-LLM's GUARANTEED_NO_EVICT
	// scheduler); otherwise the engine admits on the blocks in use and
	// preempts when it runs out (vLLM, SGLang), so the cache holds
	// sequences at their mean length, input + output/2.
	ReserveFullLength bool `json:"reserve_full_length"`
	// BatchWaitIters and BatchWaitTokenRatio hold new prompts back
	// while decodes run, up to BatchWaitIters steps or until the step's
	// tokens reach BatchWaitTokenRatio x ChunkTokens, so that prefills
	// enter in larger batches (TensorRT-LLM's batch_wait_timeout_iters
	// and batch_wait_max_tokens_ratio, 0 and 0 by default: off; see
	// batchWait). Other engines have no such setting.
	BatchWaitIters      int     `json:"batch_wait_iters,omitempty"`
	BatchWaitTokenRatio float64 `json:"batch_wait_token_ratio,omitempty"`
	// ADPBalanceIters holds new prompts of a plan with attention data
	// parallelism until every rank has one, up to ADPBalanceIters steps
	// (TensorRT-LLM's attention_dp_config enable_balance and
	// timeout_iters; off by default; see batchWait).
	ADPBalanceIters int `json:"adp_balance_iters,omitempty"`
	// RecvInterval is the decode steps between the scheduler's polls for
	// new requests (SGLang's scheduler_recv_interval; 0 or 1: every
	// step, the default; see recvWait).
	RecvInterval int `json:"recv_interval,omitempty"`
	// FP8KVAtBF16 has decode attention over an fp8 KV cache take the
	// time of a bf16 one: the cache holds twice the tokens, its read is
	// no faster (vLLM 0.10 on Hopper, whose FlashAttention-3 FP8 path
	// also quantizes the queries: vllm-project/vllm#24916 measures a
	// slower inter-token latency with it, and
	// vllm-project/flash-attention#96, 2025-09-29, finds "FP8 decoding is
	// not faster at all than BF16" at head_dim 128 before its tile
	// change). TensorRT-LLM's XQA kernels read fp8 at 1.7-1.9x the bf16
	// speed (AIConfigurator's generation attention timings), so no
	// preset sets it.
	FP8KVAtBF16 bool `json:"fp8_kv_at_bf16,omitempty"`
}

// kvReadScale is the factor on the KV bytes decode attention reads in
// format kv: 2 for an fp8 cache read at the bf16 cost (FP8KVAtBF16),
// else 1.
func (e Engine) kvReadScale(kv DType) float64 {
	if e.FP8KVAtBF16 && kv == DTypeFP8 {
		return 2
	}
	return 1
}

// Engine presets and their sources.
const (
	srcVLLM   = "vLLM v0.10 EngineArgs: block_size 16, gpu_memory_utilization 0.9, chunked prefill with max_num_batched_tokens 8192 (V1 scheduler), CUDA graphs on"
	srcSGLang = "SGLang v0.5 ServerArgs: page_size 1, mem_fraction_static 0.88 on 80-192 GB GPUs, chunked_prefill_size 8192, CUDA graphs for decode batches only (ForwardMode.is_cuda_graph: decode, target_verify, idle; prefill and mixed batches run eagerly)"
	srcTRT    = "TensorRT-LLM 1.0 KvCacheConfig/SchedulerConfig: tokens_per_block 32, free_gpu_memory_fraction 0.9, max_num_tokens 8192, GUARANTEED_NO_EVICT, CUDA graphs for generation-only batches (ScheduledRequests.can_run_cuda_graph)"
)

// Engines are the presets, by name. The step overheads are the fitted
// values of costmodel/servingcal (TestFittedDefaults checks them).
var Engines = map[string]Engine{
	"vllm": {Name: "vllm", StepOverhead: 2.18e-3, RequestOverhead: 37.8e-3, BlockTokens: 16, ChunkTokens: 8192, MixedPrefill: true, CUDAGraphs: true,
		MemoryFraction: 0.9},
	"sglang": {Name: "sglang", StepOverhead: 4.46e-3, RequestOverhead: 278e-3, BlockTokens: 1, ChunkTokens: 8192, CUDAGraphs: true,
		DecodeOnlyGraphs: true, MemoryFraction: 0.88},
	"trtllm": {Name: "trtllm", StepOverhead: 2.77e-3, RequestOverhead: 99.2e-3, BlockTokens: 32, ChunkTokens: 8192, MixedPrefill: true, CUDAGraphs: true,
		DecodeOnlyGraphs: true, MemoryFraction: 0.9, OfFreeMemory: true, ReserveFullLength: true},
}

// maxBatchWaitIters bounds BatchWaitIters: beyond it a prompt would
// wait longer than any latency target means.
const maxBatchWaitIters = 10000

// EngineSource cites the preset of an engine.
func EngineSource(name string) string {
	return map[string]string{"vllm": srcVLLM, "sglang": srcSGLang, "trtllm": srcTRT}[name]
}

// EngineNames are the preset names, sorted.
var EngineNames = []string{"sglang", "trtllm", "vllm"}

// LookupEngine returns the preset of name.
func LookupEngine(name string) (Engine, error) {
	e, ok := Engines[strings.ToLower(name)]
	if !ok {
		return Engine{}, fmt.Errorf("costmodel: unknown engine %q (valid: %s)", name, strings.Join(EngineNames, ", "))
	}
	return e, nil
}

// Validate checks the engine's fields.
func (e Engine) Validate() error {
	switch {
	case !(e.StepOverhead >= 0 && e.StepOverhead < 1):
		return fmt.Errorf("costmodel: engine %s: step overhead %v is not in [0, 1 s)", e.Name, e.StepOverhead)
	case !(e.RequestOverhead >= 0 && e.RequestOverhead < 10):
		return fmt.Errorf("costmodel: engine %s: request overhead %v is not in [0, 10 s)", e.Name, e.RequestOverhead)
	case !(e.FrontendOverhead >= 0 && e.FrontendOverhead < 10):
		return fmt.Errorf("costmodel: engine %s: front-end overhead %v is not in [0, 10 s)", e.Name, e.FrontendOverhead)
	case e.BlockTokens < 0 || e.BlockTokens > maxBlockTokens:
		return fmt.Errorf("costmodel: engine %s: KV block %d tokens is not in [0, %d]", e.Name, e.BlockTokens, maxBlockTokens)
	case e.ChunkTokens < 0 || e.ChunkTokens > maxSeq:
		return fmt.Errorf("costmodel: engine %s: prefill chunk %d tokens is not in [0, %d] (0: whole prompts)", e.Name, e.ChunkTokens, maxSeq)
	case !(e.MemoryFraction > 0 && e.MemoryFraction <= 1):
		return fmt.Errorf("costmodel: engine %s: memory fraction %g is not in (0, 1]", e.Name, e.MemoryFraction)
	case e.BatchWaitIters < 0 || e.BatchWaitIters > maxBatchWaitIters:
		return fmt.Errorf("costmodel: engine %s: batch wait %d iterations is not in [0, %d] (0: off)", e.Name, e.BatchWaitIters, maxBatchWaitIters)
	case e.ADPBalanceIters < 0 || e.ADPBalanceIters > maxBatchWaitIters:
		return fmt.Errorf("costmodel: engine %s: attention-DP balance wait %d iterations is not in [0, %d] (0: off)", e.Name, e.ADPBalanceIters, maxBatchWaitIters)
	case e.RecvInterval < 0 || e.RecvInterval > maxBatchWaitIters:
		return fmt.Errorf("costmodel: engine %s: receive interval %d steps is not in [0, %d] (0 or 1: every step)", e.Name, e.RecvInterval, maxBatchWaitIters)
	case !(e.BatchWaitTokenRatio >= 0 && e.BatchWaitTokenRatio <= 1):
		return fmt.Errorf("costmodel: engine %s: batch wait token ratio %g is not in [0, 1] (0: off)", e.Name, e.BatchWaitTokenRatio)
	}
	return nil
}

// KernelLaunch is the host cost of launching one CUDA kernel without a
// graph, about 4 µs (NVIDIA CUDA Graphs blog, 2019: "Getting Started
// with CUDA Graphs", launch overhead of a few microseconds per kernel).
const KernelLaunch hardware.Seconds = 4e-6

// kernelsPerLayer is the kernels of one decode layer in an engine with
// fused norms and activations: qkv, attention, output projection,
// all-reduce, norm, gate-up, activation, down, all-reduce, norm.
const kernelsPerLayer = 10
