package launch

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
)

// DeepSpeedCommit is the DeepSpeed commit whose config constants and
// ZeRO config fields the JSON keys are checked against.
const DeepSpeedCommit = "edaa7221267243c7be7fb49c5d5f5c4fb97b4641"

// Bucket sizes written for ZeRO: DeepSpeed's own defaults (5e8
// elements, deepspeed/runtime/zero/config.py), stated so the file says
// what the step time assumed.
const dsBucket = 500_000_000

// deepspeed writes a DeepSpeed JSON config: data parallelism with ZeRO.
// Tensor and pipeline parallelism in DeepSpeed come from the model code
// (Megatron-DeepSpeed, PipelineModule), not this file, so plans with
// tp or pp above 1 are refused, as is context parallelism (DeepSpeed's
// Ulysses splits heads, not the sequence ring this plan models).
func deepspeed(job Job) (Config, error) {
	p := job.Plan
	switch {
	case p.CP > 1:
		return Config{}, unsupported(DeepSpeed, job, "it has no ring context parallelism (Ulysses sequence parallelism splits the heads instead)")
	case p.TP > 1 || p.PP > 1:
		return Config{}, unsupported(DeepSpeed, job, "its JSON config sets ZeRO data parallelism only; tp and pp come from the model code (Megatron-DeepSpeed)")
	case p.Recompute == costmodel.Selective || p.Recompute == costmodel.OpSAC:
		return Config{}, unsupported(DeepSpeed, job, "its activation checkpointing recomputes whole layers (full), not the attention core alone")
	case p.Recompute == costmodel.Full && p.RecomputeLayers > 0:
		return Config{}, unsupported(DeepSpeed, job, "its JSON config turns activation checkpointing on; which layers are checkpointed is set in the model code")
	case expertSplit(p):
		return Config{}, unsupported(DeepSpeed, job, "its expert parallelism is set in the model code (deepspeed.moe), not the JSON config")
	case p.Optimizer == costmodel.Adam8bit:
		return Config{}, unsupported(DeepSpeed, job, "it has no 8-bit Adam optimizer type")
	}
	cfg := map[string]any{
		"train_batch_size":               p.GlobalBatch,
		"train_micro_batch_size_per_gpu": p.MicroBatch,
		"gradient_accumulation_steps":    accumulation(p),
		"zero_optimization":              dsZeRO(job),
		"optimizer":                      map[string]any{"type": map[costmodel.Optimizer]string{costmodel.Adam: "AdamW", costmodel.Momentum: "SGD", costmodel.SGD: "SGD"}[p.Optimizer]},
	}
	switch p.Precision {
	case costmodel.BF16, costmodel.FP8:
		cfg["bf16"] = map[string]any{"enabled": true}
	case costmodel.FP16:
		cfg["fp16"] = map[string]any{"enabled": true}
	}
	if p.Recompute == costmodel.Full {
		cfg["activation_checkpointing"] = map[string]any{"partition_activations": false, "contiguous_memory_optimization": false}
	}
	text, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return Config{}, fmt.Errorf("launch: %w", err)
	}
	return Config{Framework: DeepSpeed, Text: string(text) + "\n", Keys: jsonKeys("", cfg)}, nil
}

func dsZeRO(job Job) map[string]any {
	p, a := job.Plan, job.Assumptions
	z := map[string]any{"stage": p.ZeRO, "offload_optimizer": map[string]any{"device": "none"}}
	if p.ZeRO == 0 {
		return z
	}
	z["overlap_comm"] = a.OverlapGradReduce
	z["contiguous_gradients"] = true
	z["reduce_scatter"] = true
	z["reduce_bucket_size"] = dsBucket
	z["allgather_bucket_size"] = dsBucket
	if p.ZeRO == 3 {
		z["stage3_prefetch_bucket_size"] = dsBucket
		z["offload_param"] = map[string]any{"device": "none"}
	}
	return z
}

// jsonKeys lists the dotted paths of a nested config, sorted.
func jsonKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		out = append(out, path)
		if sub, ok := v.(map[string]any); ok {
			out = append(out, jsonKeys(path, sub)...)
		}
	}
	slices.Sort(out)
	return out
}
