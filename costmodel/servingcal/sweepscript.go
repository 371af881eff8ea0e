package servingcal

import "github.com/gpu-planner/planner/costmodel"

// The gap-analysis sweeps (HarnessSweep) publish no launch script, but
// they deploy what aiconfigurator's config generator writes
// (ai-dynamo/aiconfigurator, src/aiconfigurator/generator): a rule file
// per engine sets the engine's flags, and a template per engine release
// renders them (generator/config/backend_templates/<engine>/
// cli_args.<version>.j2).
//
// The deployment is Dynamo's: each engine's run.sh.j2 starts python3 -m
// dynamo.frontend on the HTTP port and the engine as python3 -m
// dynamo.<engine> workers behind it, and the benchmark template
// (benchmark/bench_run.sh.j2) points aiperf at the front end's port.
// So every sweep request passes through Dynamo's front end
// (costmodel.FrontendDynamo), where the InferenceMAX points reach the
// engines' own servers.
//
// SGLang's rule (generator/rule_plugin/sglang.rule) has set "agg
// enable_mixed_chunk = true" for aggregated serving since fa895ffb1 and
// 07a377923 (2026-01-19, "add sglang enable-mix-chunk for generator",
// "fix sglang enable mixed chunk"), and each template passes it as
// --enable-mixed-chunk. With it SGLang's scheduler merges the running
// decodes into each prefill batch (python/sglang/srt/managers/
// scheduler.py, get_new_batch_prefill: mix_with_running when
// enable_mixed_chunk), so a request keeps decoding while later prompts
// prefill: Engine.MixedPrefill. The template of SGLang 0.5.6.post2
// came with c46a56b02 (2026-01-23, "add dynamo 0.8.0 backend
// template"), after the rule, so its sweeps ran mixed; that of
// 0.5.1.post1 dates from 95ddf241a (2025-12-04), before it, and its
// points keep the engine's default (prefill batches alone), as their
// lockstep rounds show (mixed, their TTFT would be 67% too short).
//
// The rules' prefill budgets are not applied: SGLang's
// max_prefill_tokens = isl + 1500, read as a smaller per-step budget,
// takes the Qwen3-32B H100 sweep's TTFT from 14.7% to 15.8% and the
// Llama 3.1 8B H200 one's from 18.0% to 22.0%; vLLM's and
// TensorRT-LLM's max_num_tokens = max_batch_size + isl + 1500 (with
// max_batch_size the concurrency) takes vLLM's Qwen3-32B H100, Llama
// 3.1 8B H200 and Qwen3-235B H200 sweeps from 8.6%, 162% and 14.6% to
// 13.0%, 178% and 13.3%, and TensorRT-LLM's three sweeps 0.8 to 2.6
// points further (at the defaults before the refit that came with the
// mixed chunk).
const srcAICMixedChunk = "aiconfigurator generator/rule_plugin/sglang.rule from 2026-01-19, cli_args.0.5.6.post2.j2 from 2026-01-23"

// aicMixedChunk are the SGLang releases whose generator template
// postdates the mixed-chunk rule.
var aicMixedChunk = map[string]bool{"0.5.6.post2": true}

// srcAICDynamo cites the sweeps' Dynamo deployment.
const srcAICDynamo = "aiconfigurator generator backend_templates/<engine>/run.sh.j2, benchmark/bench_run.sh.j2"

// aicSweep applies the generator's settings to a sweep point.
func (s *script) aicSweep(p Point) {
	s.engine.Frontend = costmodel.FrontendDynamo
	s.note(srcAICDynamo, "behind Dynamo's front end (python3 -m dynamo.frontend, the engine as python3 -m dynamo.%s)", p.Engine)
	if p.Engine == "sglang" && aicMixedChunk[p.Version] {
		s.engine.MixedPrefill = true
		s.note(srcAICMixedChunk, "--enable-mixed-chunk: prefill chunks run in the decodes' steps (MixedPrefill)")
	}
}
