package servingcal

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
)

// The InferenceMAX launch scripts behind the harness's TensorRT-LLM
// points (SemiAnalysis InferenceMAX, benchmarks/; the git history dates
// each setting).
//
// Llama 3.1 70B (70b_fp4_b200_trt_slurm.sh, 70b_fp8_b200_trt_slurm.sh,
// 70b_fp8_h200_trt_slurm.sh, unchanged from 1b563c85, 2025-09-18, to
// their removal in 2582bce4, 2025-10-29, the date the points were
// measured): trtllm-serve --max_num_tokens 16384, and "for 1k/1k" at
// TP < 8 batch_wait_max_tokens_ratio 0.9 and batch_wait_timeout_iters
// 20 ("will improve the performance, by default they are all zeros").
//
// DeepSeek-R1 (dsr1_fp8_h200_trt*.sh, dsr1_fp4_b200_trt*.sh,
// dsr1_fp8_b200_trt*.sh, 2025-09-18 to 2026-02): --max_num_tokens
// (CONC + ISL + 64 + 63) / 64 x 64, at least 8192 from bf345672
// (2026-01-14); with attention DP, attention_dp_config enable_balance
// true, timeout_iters 60, batching_wait_iters 0; kv_cache_config
// free_gpu_memory_fraction 0.75 on H200, 0.8 on B200.
const (
	srcIMAXLlamaTRT = "InferenceMAX benchmarks/70b_*_trt_slurm.sh (2025-09-18 to 2025-10-29)"
	srcIMAXDSR1TRT  = "InferenceMAX benchmarks/dsr1_*_trt*.sh (2025-09-18 to 2026-02)"

	imaxLlamaMaxTokens = 16384
	imaxLlamaWaitIters = 20
	imaxLlamaWaitRatio = 0.9

	imaxDSR1BalanceIters = 60
	imaxDSR1FloorFrom    = "2026-01-14"
	imaxDSR1FloorTokens  = 8192
)

// imaxDSR1KVFraction is free_gpu_memory_fraction by GPU.
var imaxDSR1KVFraction = map[string]float64{"h200": 0.75, "b200": 0.8}

// scriptEngine is the engine preset of point p with the settings its
// benchmark's launch script gives, and the notes saying so.
func scriptEngine(p Point) (costmodel.Engine, []string) {
	e := costmodel.Engines[p.Engine]
	if p.Harness != HarnessInferenceMAX || p.Engine != "trtllm" {
		return e, nil
	}
	switch p.Model {
	case "llama3.1-70b":
		return imaxLlama(p, e)
	case "deepseek-v3":
		return imaxDSR1(p, e)
	}
	return e, nil
}

// imaxLlama applies the Llama 3.1 70B scripts' settings.
func imaxLlama(p Point, e costmodel.Engine) (costmodel.Engine, []string) {
	e.ChunkTokens = imaxLlamaMaxTokens
	notes := []string{fmt.Sprintf("max_num_tokens %d (%s)", imaxLlamaMaxTokens, srcIMAXLlamaTRT)}
	if p.Input == 1024 && p.Output == 1024 && p.TP < 8 {
		e.BatchWaitIters, e.BatchWaitTokenRatio = imaxLlamaWaitIters, imaxLlamaWaitRatio
		notes = append(notes, fmt.Sprintf("batch_wait_timeout_iters %d, batch_wait_max_tokens_ratio %g at 1k/1k, TP < 8 (%s)",
			imaxLlamaWaitIters, imaxLlamaWaitRatio, srcIMAXLlamaTRT))
	}
	return e, notes
}

// imaxDSR1 applies the DeepSeek-R1 scripts' settings.
func imaxDSR1(p Point, e costmodel.Engine) (costmodel.Engine, []string) {
	tokens := (int(p.Concurrency) + p.Input + 64 + 63) / 64 * 64
	if p.Measured >= imaxDSR1FloorFrom {
		tokens = max(tokens, imaxDSR1FloorTokens)
	}
	e.ChunkTokens = tokens
	notes := []string{fmt.Sprintf("max_num_tokens %d (%s)", tokens, srcIMAXDSR1TRT)}
	if f, ok := imaxDSR1KVFraction[p.GPU]; ok {
		e.MemoryFraction = f
		notes = append(notes, fmt.Sprintf("free_gpu_memory_fraction %g (%s)", f, srcIMAXDSR1TRT))
	}
	if p.AttentionDP > 1 {
		e.ADPBalanceIters = imaxDSR1BalanceIters
		notes = append(notes, fmt.Sprintf("attention-DP balance, timeout_iters %d (%s)", imaxDSR1BalanceIters, srcIMAXDSR1TRT))
	}
	return e, notes
}
