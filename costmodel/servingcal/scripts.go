package servingcal

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
)

// The InferenceMAX launch scripts behind the harness's points
// (SemiAnalysis InferenceMAX, benchmarks/; their git history dates each
// setting, and the points' measured dates pick the version).
//
// TensorRT-LLM, Llama 3.1 70B (70b_fp4_b200_trt_slurm.sh,
// 70b_fp8_b200_trt_slurm.sh, 70b_fp8_h200_trt_slurm.sh, unchanged from
// 1b563c85, 2025-09-18, to their removal in 2582bce4, 2025-10-29, the
// date the points were measured): trtllm-serve --max_num_tokens 16384,
// and "for 1k/1k" at TP < 8 batch_wait_max_tokens_ratio 0.9 and
// batch_wait_timeout_iters 20 ("will improve the performance, by
// default they are all zeros").
//
// TensorRT-LLM, DeepSeek-R1 (dsr1_fp8_h200_trt*.sh, dsr1_fp4_b200_trt*.sh,
// dsr1_fp8_b200_trt*.sh, 2025-09-18 to 2026-02): --max_num_tokens
// (CONC + ISL + 64 + 63) / 64 x 64, at least 8192 from 64af5a77
// (2026-01-21, "Adding evals after throughput benchmarks", in
// dsr1_fp8_h200_trt_slurm.sh, dsr1_fp8_b200_trt_slurm.sh and
// dsr1_fp4_b200_trt_slurm.sh; the _mtp scripts have no floor); with
// attention DP, attention_dp_config enable_balance true, timeout_iters
// 60, batching_wait_iters 0; kv_cache_config free_gpu_memory_fraction
// 0.75 on H200, 0.8 on B200.
//
// TensorRT-LLM, gpt-oss-120b on H200 (gptoss_fp4_h200_trt*.sh, 2025-10
// to 2026-01): --max_num_tokens 20000, kv_cache_config dtype auto (the
// MXFP4 checkpoint carries no KV quantization: bf16) and
// free_gpu_memory_fraction 0.85.
//
// vLLM, Llama 3.1 70B (70b_fp8_h100_slurm.sh, 70b_fp8_h200_slurm.sh,
// 70b_fp4_b200_docker.sh, 70b_fp8_b200_docker.sh, to 2025-10-29):
// kv-cache-dtype fp8, max-num-batched-tokens 8192, image
// vllm/vllm-openai:v0.10.2 (.github/workflows/70b-tmpl.yml at
// 9596d23d, 2025-10-29, for H100, H200 and B200 alike). On B200 alone
// (70b_fp8_b200_docker.sh from 425f74d5, 2025-09-12, lines 20-28 at
// 9596d23d; 70b_fp4_b200_docker.sh from 27f29acb, 2025-09-21, line 34):
// compilation-config cudagraph_mode FULL_DECODE_ONLY with splitting_ops
// [], so only the steps that only decode replay a CUDA graph and a step
// with a prefill chunk runs eagerly (vLLM docs/design/cuda_graphs.md:
// "full CUDA Graph for uniform decode, no cudagraph for prefill/mixed";
// Engine.DecodeOnlyGraphs); the Hopper scripts set none (piecewise
// graphs for the mixed steps). vLLM, gpt-oss-120b on
// B200 (gptoss_fp4_b200_docker.sh, single_node/gptoss_fp4_b200.sh):
// kv-cache-dtype fp8 from 2025-12-08 on (auto before, and on H100 and
// H200 throughout).
//
// SGLang, DeepSeek-R1 (dsr1_fp4_b200_docker.sh, 2025-11;
// single_node/dsr1_fp4_b300.sh and dsr1_fp8_b300.sh, 2026-04):
// --kv-cache-dtype fp8_e4m3 and --scheduler-recv-interval 30 at CONC >=
// 16, else 10; FP4: --chunked-prefill-size 16384, --mem-fraction-static
// 0.85; FP8 on B300: at TP 8 32768 and 0.82, at TP 4 8192, 0.95 and a
// receive interval of 10.
//
// TensorRT-LLM, DeepSeek-R1 with MTP (imaxDSR1MTP): bf345672
// (2026-01-14, "Add MTP Benchmark Support for DeepSeek-R1 TRT") added
// the dsr1-fp8-h200-trt-mtp, dsr1-fp8-b200-trt-mtp and
// dsr1-fp4-b200-trt-mtp configs (.github/configs/nvidia-master.yaml,
// spec-decoding: mtp, image release:1.1.0rc2.post2, the STP configs'),
// whose scripts (dsr1_*_trt_mtp_slurm.sh) run speculative decoding:
// speculative_config decoding_type MTP, num_nextn_predict_layers 3, 1
// with attention DP; at bf345672 --max_batch_size CONC (CONC / TP with
// attention DP) and max_num_tokens ((MTP + 1) x that + ISL + 127) / 64
// x 64; the benchmark with --use-chat-template. The published results
// name the decoding (utils/process_result.py, spec_decoding); the
// source's rows do not, but the sweeps that measured them do: a push to
// main runs the configs its perf-changelog.yaml entries name
// (.github/workflows/run-sweep.yml, utils/process_changelog.py). The
// entry of bf345672 names only the three -mtp configs, so every
// TensorRT-LLM DeepSeek-R1 point of 2026-01-14 ran MTP (its H200 points
// include attention DP at 1k/1k and 128 or 256 requests, which only the
// MTP search space has); that of 0aae52d4 (2026-02-06, "dsr1 fp4 b200
// trt agg mtp update") names only dsr1-fp4-b200-trt-mtp, moved to
// release:1.2.0rc6.post3, the image of the points of that day; the
// sweep of e28c038f (2026-01-28, "trigger full sweep to add GSM8k",
// evals-only) ran both, each config's 1k/8k points at its highest
// concurrency only, whose throughput benchmark comes before the eval
// (mark_eval_entries, utils/matrix_logic/generate_sweep_configs.py): on
// H200 64 requests for dsr1-fp8-h200-trt, 256 for the MTP config. The
// data carries the signature (TestMTPSignature): against the same
// deployment measured without MTP (release:1.1.0rc2.post2, 2025-12-15;
// the 28 pairs of the same GPU, layout, lengths and concurrency) the
// MTP points' TPOT is 0.47-0.83x (median 0.62) and their TTFT
// 0.98-1.87x (median 1.38). The model does not price MTP: the tokens
// accepted per step on InferenceMAX's random prompts are not published
// (DeepSeek-V3 technical report, sec. 5.4.3: 85-90% acceptance of the
// second token with one MTP module, on its own evaluation, not three
// drafted tokens on random prompts), and the longer TTFT has no
// mechanism the model holds; the points are not comparable.
//
// TensorRT-LLM, DeepSeek-R1 on GB200 (imaxGB200Disaggregated): the
// GB200 points are InferenceMAX's multi-node Dynamo runs
// (.github/workflows/full-sweep-1k1k-scheduler.yml and
// full-sweep-8k1k-scheduler.yml at 97f253b5, the tree of 2025-11-17: "a
// workaround until we can integrate GB200 into master configs",
// framework dynamo-trtllm, mtp on and off), disaggregated prefill and
// decode workers whose result files name the context and generation
// GPUs; benchmark-multinode-tmpl.yml records each as TP = all its GPUs,
// EP_SIZE 1, DP_ATTENTION false, which the source's rows carry as an
// aggregated tp 20 to 64. The workers' split and layouts are not
// recorded, nor whether the run drafted with MTP: the points are not
// comparable.
//
// SGLang's cold start (imaxSGLangColdStart): the B200 runner
// (runners/launch_b200-nvd.sh) starts a fresh container per point,
// without the FlashInfer cache since 15b7c00b (2025-10-06, "removing
// persistent cache from b200": FLASHINFER_WORKSPACE_BASE, where
// FlashInfer keeps the kernels it compiles or downloads at first use,
// no longer mounted), and benchmark_serving.py sends no warm-up request
// until d053ae24 (2026-01-21, "adding warmup": --num-warmups 2 x CONC
// in benchmarks/benchmark_lib.sh). The server's start-up runs one short
// request and captures the decode CUDA graphs; a prefill over a cached
// prefix, which with --disable-radix-cache only the second piece of a
// chunked prompt is, takes another attention path than a prompt
// without one (SGLang python/sglang/srt/models/deepseek_v2.py,
// handle_attention_trtllm_mla: the MLA path with the chunked prefix
// cache off, else attention over the prefix's chunks merged by their
// log-sum-exp; layers/attention/trtllm_mla_backend.py: "fallback to
// ragged kernel implemented in flashinfer MLA backend"), so without a
// warm-up its first run, kernels built or fetched then, falls inside
// the measured window. It runs when the first burst, CONC prompts sent
// at once (--request-rate inf), holds more tokens than
// --chunked-prefill-size. The data fits one stall per run: the 12 B200
// points whose burst is chunked measure TTFT 5.6-9.2 s at 10 requests a
// client and 2.1-2.9 s at 50 (the points of 2025-11-02: for the model
// name nvidia/DeepSeek-R1-0528-FP4 the runner sends CONC x 50 prompts,
// for the -V2 name of 17d5e204, 2025-11-03, CONC x 10), with TPOT as
// priced; their TTFT over the model's is 43-86 s (median 68 s) x CONC
// once per run, whatever the concurrency and lengths
// (TestColdStartStall). The 6 whose burst fits a chunk (1k/1k and 1k/8k
// at CONC <= 16) measure 0.37-0.59 s, within 0.1 s of the model. The
// SGLang points after the warm-up (B300, 2026-04) are compared.
const (
	srcIMAXLlamaTRT    = "InferenceMAX benchmarks/70b_*_trt_slurm.sh (2025-09-18 to 2025-10-29)"
	srcIMAXDSR1TRT     = "InferenceMAX benchmarks/dsr1_*_trt*.sh (2025-09-18 to 2026-02)"
	srcIMAXGptossTRT   = "InferenceMAX benchmarks/gptoss_fp4_h200_trt*.sh (2025-10 to 2026-01)"
	srcIMAXLlamaVLLM   = "InferenceMAX benchmarks/70b_fp*_{h100,h200,b200}_*.sh (to 2025-10-29)"
	srcIMAXGptossVLLM  = "InferenceMAX benchmarks/gptoss_fp4_b200*.sh (kv-cache-dtype fp8 from 2025-12-08)"
	srcIMAXDSR1SGLang  = "InferenceMAX benchmarks/dsr1_fp4_b200_docker.sh (2025-11), single_node/dsr1_fp*_b300.sh (2026-04)"
	imaxLlamaMaxTokens = 16384
	imaxLlamaWaitIters = 20
	imaxLlamaWaitRatio = 0.9

	srcIMAXGB200Dynamo   = "InferenceMAX full-sweep-*-scheduler.yml and benchmark-multinode-tmpl.yml at 97f253b5"
	srcIMAXDSR1MTP       = "InferenceMAX dsr1_*_trt_mtp_slurm.sh and the sweeps of perf-changelog.yaml: bf345672, 0aae52d4, e28c038f"
	imaxDSR1BalanceIters = 60
	imaxDSR1FloorFrom    = "2026-01-21"
	imaxDSR1FloorTokens  = 8192

	srcIMAXColdStart     = "InferenceMAX launch_b200-nvd.sh from 15b7c00b, benchmark_lib.sh before d053ae24"
	imaxSGLangWarmupFrom = "2026-01-21"
	imaxRandomLengthMean = 0.9 // --random-range-ratio 0.8: lengths uniform over [0.8, 1] x ISL
	imaxGptossFP8KVFrom  = "2025-12-08"
	imaxGptossMaxTokens  = 20000
	imaxGptossKVFraction = 0.85
)

// imaxDSR1KVFraction is TensorRT-LLM's free_gpu_memory_fraction by GPU.
var imaxDSR1KVFraction = map[string]float64{"h200": 0.75, "b200": 0.8}

// imaxDSR1MTPSweeps are the sweeps that ran only InferenceMAX's
// TensorRT-LLM DeepSeek-R1 MTP configs, by date, GPU and weights, with
// the commit whose perf-changelog.yaml entry started each.
var imaxDSR1MTPSweeps = map[string]string{
	"2026-01-14 h200 fp8": "bf345672", "2026-01-14 b200 fp8": "bf345672", "2026-01-14 b200 fp4": "bf345672",
	"2026-02-06 b200 fp4": "0aae52d4",
}

// The evals-only sweep of e28c038f (2026-01-28) ran the STP and the MTP
// configs; on H200 the STP one's points stop at 64 requests.
const (
	imaxEvalSweep        = "2026-01-28"
	imaxEvalSweepCommit  = "e28c038f"
	imaxDSR1H200STPConc  = 64
	imaxDSR1MTPLayers    = 3 // num_nextn_predict_layers without attention DP
	imaxDSR1MTPLayersADP = 1 // with attention DP
)

// script is what a point's launch script sets beyond the engine preset:
// the engine's settings, the KV-cache format when it names one, and the
// notes that say so.
type script struct {
	engine costmodel.Engine
	kv     costmodel.DType
	setKV  bool
	notes  []string
	// incomparable is why the point's measurement holds a cost the
	// model does not price: a one-time cost inside the measured window
	// (imaxSGLangColdStart) or a setting it does not model
	// (imaxDSR1MTP). Blank when it holds none.
	incomparable string
}

// note records a setting and its source.
func (s *script) note(source, format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...)+" ("+source+")")
}

// fp8KV records the script's fp8 KV cache.
func (s *script) fp8KV(source string) {
	s.kv, s.setKV = costmodel.DTypeFP8, true
	s.note(source, "KV cache fp8")
}

// launchScript is the settings of point p's launch script.
func launchScript(p Point) script {
	s := script{engine: costmodel.Engines[p.Engine]}
	if p.Harness == HarnessSweep {
		s.aicSweep(p)
		return s
	}
	switch p.Engine + " " + p.Model {
	case "trtllm llama3.1-70b":
		s.imaxLlamaTRT(p)
	case "trtllm deepseek-v3":
		s.imaxDSR1TRT(p)
	case "trtllm gpt-oss-120b":
		if p.GPU == "h200" {
			s.kv, s.setKV = costmodel.DTypeBF16, true
			s.engine.ChunkTokens, s.engine.MemoryFraction = imaxGptossMaxTokens, imaxGptossKVFraction
			s.note(srcIMAXGptossTRT, "KV cache bf16 (dtype auto), max_num_tokens %d, free_gpu_memory_fraction %g", imaxGptossMaxTokens, imaxGptossKVFraction)
		}
	case "vllm llama3.1-70b":
		s.fp8KV(srcIMAXLlamaVLLM)
		if p.GPU == "h100-sxm" || p.GPU == "h200" {
			s.engine.FP8KVAtBF16 = true
			s.note(srcIMAXLlamaVLLM, "vllm/vllm-openai:v0.10.2: the fp8 cache read at the bf16 cost on Hopper (FP8KVAtBF16)")
		}
		if p.GPU == "b200" {
			s.engine.DecodeOnlyGraphs = true
			s.note(srcIMAXLlamaVLLM, "cudagraph_mode FULL_DECODE_ONLY, splitting_ops [] on B200: a step with a prefill chunk runs without CUDA graphs (DecodeOnlyGraphs)")
		}
	case "vllm gpt-oss-120b":
		if p.GPU == "b200" && p.Measured >= imaxGptossFP8KVFrom {
			s.fp8KV(srcIMAXGptossVLLM)
		}
	case "sglang deepseek-v3":
		s.imaxDSR1SGLang(p)
	}
	return s
}

// imaxLlamaTRT applies TensorRT-LLM's Llama 3.1 70B settings.
func (s *script) imaxLlamaTRT(p Point) {
	s.engine.ChunkTokens = imaxLlamaMaxTokens
	s.note(srcIMAXLlamaTRT, "max_num_tokens %d", imaxLlamaMaxTokens)
	if p.Input == 1024 && p.Output == 1024 && p.TP < 8 {
		s.engine.BatchWaitIters, s.engine.BatchWaitTokenRatio = imaxLlamaWaitIters, imaxLlamaWaitRatio
		s.note(srcIMAXLlamaTRT, "batch_wait_timeout_iters %d, batch_wait_max_tokens_ratio %g at 1k/1k, TP < 8", imaxLlamaWaitIters, imaxLlamaWaitRatio)
	}
}

// imaxDSR1TRT applies TensorRT-LLM's DeepSeek-R1 settings.
func (s *script) imaxDSR1TRT(p Point) {
	s.incomparable = imaxDSR1MTP(p)
	if p.GPU == "gb200" {
		s.incomparable = imaxGB200Disaggregated(p)
	}
	tokens := (int(p.Concurrency) + p.Input + 64 + 63) / 64 * 64
	if p.Measured >= imaxDSR1FloorFrom && s.incomparable == "" {
		tokens = max(tokens, imaxDSR1FloorTokens)
	}
	s.engine.ChunkTokens = tokens
	s.note(srcIMAXDSR1TRT, "max_num_tokens %d", tokens)
	if f, ok := imaxDSR1KVFraction[p.GPU]; ok {
		s.engine.MemoryFraction = f
		s.note(srcIMAXDSR1TRT, "free_gpu_memory_fraction %g", f)
	}
	if p.AttentionDP > 1 {
		s.engine.ADPBalanceIters = imaxDSR1BalanceIters
		s.note(srcIMAXDSR1TRT, "attention-DP balance, timeout_iters %d", imaxDSR1BalanceIters)
	}
}

// imaxDSR1SGLang applies SGLang's DeepSeek-R1 settings.
func (s *script) imaxDSR1SGLang(p Point) {
	s.fp8KV(srcIMAXDSR1SGLang)
	chunk, frac, recv := 16384, 0.85, 10
	if p.Concurrency >= 16 {
		recv = 30
	}
	if p.Weights == "fp8" && p.GPU == "b300" {
		chunk, frac = 32768, 0.82
		if p.TP == 4 {
			chunk, frac, recv = 8192, 0.95, 10
		}
	}
	s.engine.ChunkTokens, s.engine.MemoryFraction, s.engine.RecvInterval = chunk, frac, recv
	s.note(srcIMAXDSR1SGLang, "chunked-prefill-size %d, mem-fraction-static %g, scheduler-recv-interval %d", chunk, frac, recv)
	s.incomparable = imaxSGLangColdStart(p, chunk)
}

// imaxSGLangColdStart is why an InferenceMAX SGLang point measured its
// server's first prefill over a cached prefix, its kernels' first use
// and all (the comment above the constants): no warm-up before its date
// and a first burst of more than chunk tokens. Blank when it did not.
func imaxSGLangColdStart(p Point, chunk int) string {
	burst := p.Concurrency * float64(p.Input) * imaxRandomLengthMean
	if p.Measured == "" || p.Measured >= imaxSGLangWarmupFrom || burst <= float64(chunk) {
		return ""
	}
	return fmt.Sprintf("no warm-up (measured %s) and a first burst of %.0f tokens (%g prompts of about %.0f) over --chunked-prefill-size %d: "+
		"the run's first prefill over a cached prefix, kernels and all, falls inside the measured window (%s)",
		p.Measured, burst, p.Concurrency, float64(p.Input)*imaxRandomLengthMean, chunk, srcIMAXColdStart)
}

// imaxDSR1MTP is why an InferenceMAX TensorRT-LLM DeepSeek-R1 point ran
// MTP speculative decoding (the comment above the constants): measured
// by a sweep of the MTP configs only, or by the evals-only sweep above
// the STP config's concurrency. Blank when it did not.
func imaxDSR1MTP(p Point) string {
	commit, ok := imaxDSR1MTPSweeps[p.Measured+" "+p.GPU+" "+p.Weights]
	if !ok && p.Measured == imaxEvalSweep && p.GPU == "h200" && p.Concurrency > imaxDSR1H200STPConc {
		commit, ok = imaxEvalSweepCommit, true
	}
	if !ok {
		return ""
	}
	layers := imaxDSR1MTPLayers
	if p.AttentionDP > 1 {
		layers = imaxDSR1MTPLayersADP
	}
	return fmt.Sprintf("MTP speculative decoding (num_nextn_predict_layers %d): measured %s by the sweep of %s, which ran the -mtp configs; "+
		"the model does not price the drafts, their acceptance on random prompts or the longer TTFT (%s)",
		layers, p.Measured, commit, srcIMAXDSR1MTP)
}

// imaxGB200Disaggregated is why an InferenceMAX TensorRT-LLM DeepSeek-R1
// point on GB200 is not comparable (the comment above the constants).
func imaxGB200Disaggregated(p Point) string {
	return fmt.Sprintf("a multi-node Dynamo run of disaggregated prefill and decode workers (MTP on or off), recorded as tp %d: "+
		"the workers' split, their layouts and the decoding are not recorded (%s)", p.TP*p.AttentionDP, srcIMAXGB200Dynamo)
}
