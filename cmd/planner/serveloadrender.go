package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// writeLoadResult prints `planner serve` under load: the request shape,
// the engine, the layouts that meet the targets with their replicas,
// the best one's steady state, the layouts that miss, the assumptions.
func writeLoadResult(w io.Writer, q search.LoadQuery, r *search.LoadResult, top int, s tableStyle) {
	if s == markdownStyle {
		fmt.Fprintf(w, "## Serving %s on %s under load\n\n", r.Model, r.GPU)
	}
	writeServeHeader(w, s, q, r.ServeContext, false)
	heading(w, s, loadAnswerLine(r))
	if best := r.Best(); best != nil {
		loadTable(r, top).write(w, s)
		heading(w, s, "steady state of "+best.Layout)
		writeSteadyState(w, best.Latency, s)
	}
	if len(r.Missed) > 0 {
		heading(w, s, "layouts that miss")
		for _, m := range r.Missed {
			line(w, s, "%s: %s", m.Layout, m.Reason)
		}
	}
	heading(w, s, "assumptions")
	line(w, s, "speed: %.1f%% of HBM bandwidth (%s, fitted on measured-serving.csv) and %v a weight GEMM call (%s), %s, %.0f%% of link bandwidth; all-reduce latency %v",
		100*r.Assumptions.ServeHBMEfficiency, costmodel.GenerationOf(q.GPU), costmodel.GEMMLaunch(q.GPU), srcGEMMLaunch,
		computeShares(r.Assumptions, costmodel.GenerationOf(q.GPU), q.Weights, q.Model.MoE != nil),
		100*r.Assumptions.ServeLinkEfficiency, r.Assumptions.ServeAllReduceLatency)
	line(w, s, "engine preset: %s; %s", costmodel.EngineSource(r.Engine.Name), overheadSource(r.Engine))
	if best := r.Best(); best != nil {
		for _, n := range best.Latency.Notes {
			line(w, s, "note: %s", n)
		}
	}
}

// overheadSource says where the engine line's step and request
// overheads come from: the preset's, fitted on measured-serving.csv by
// costmodel/servingcal (planner validate --serving prints the fit), or
// --step-overhead-ms and --request-overhead-ms, with the fitted ones
// beside them; and the front end's, which is always the fitted one
// (costmodel.FrontendOverheads).
func overheadSource(e costmodel.Engine) string {
	p := costmodel.Engines[e.Name]
	if p.StepOverhead == e.StepOverhead && p.RequestOverhead == e.RequestOverhead {
		return "its step and request overheads" + frontendSource(e) + " fitted on measured-serving.csv (planner validate --serving)"
	}
	s := fmt.Sprintf("step and request overheads as given (fitted on measured-serving.csv: %v and %v)", p.StepOverhead, p.RequestOverhead)
	if frontendSource(e) != "" {
		s += "; the " + e.Frontend + " front end's fitted on measured-serving.csv"
	}
	return s
}

// frontendSource is ", and the dynamo front end's" when a front end
// with a fitted overhead stands before the engine, else empty.
func frontendSource(e costmodel.Engine) string {
	if e.Frontend == "" || e.FrontendOverhead == 0 {
		return ""
	}
	return ", and the " + e.Frontend + " front end's,"
}

// writeServeHeader prints the model, GPU, load, engine, formats and
// targets of a serving answer, and the measured points behind it
// (servingCoverage; of aggregated serving, which a disaggregated answer
// also prices its steps with).
func writeServeHeader(w io.Writer, s tableStyle, q search.LoadQuery, h search.ServeContext, disaggregated bool) {
	field(w, s, "model", q.Model.Name+": "+describeModel(q.Model))
	field(w, s, "gpu", describeGPU(q.GPU, h.GPUsPerNode))
	field(w, s, "load", describeTraffic(h.Load))
	field(w, s, "engine", describeEngine(h.Engine))
	field(w, s, "formats", fmt.Sprintf("weights %s, KV cache %s", weightsText(h.Weights, q.Model), h.KV))
	field(w, s, "targets", fmt.Sprintf("TTFT %s, TPOT %s", targetText(h.TTFT), targetText(h.TPOT)))
	cov := servingCoverage(h, costmodel.GenerationOf(q.GPU))
	if disaggregated {
		cov += "; all of aggregated serving: no disaggregated deployment is measured"
	}
	field(w, s, "accuracy", cov)
}

// describeTraffic is "10 requests/s of 8192 input + 1024 output tokens".
func describeTraffic(l costmodel.ServeLoad) string {
	load := fmt.Sprintf("%g requests in flight", l.Concurrency)
	if l.Rate > 0 {
		load = fmt.Sprintf("%g requests/s", l.Rate)
	}
	return fmt.Sprintf("%s of %d input + %d output tokens (the KV cache grows from %d to %d tokens, %g on average while decoding)",
		load, l.InputTokens, l.OutputTokens, l.InputTokens, l.InputTokens+l.OutputTokens, float64(l.InputTokens)+float64(l.OutputTokens)/2)
}

// describeEngine prints every field of the preset.
func describeEngine(e costmodel.Engine) string {
	chunk := "whole prompts"
	if e.ChunkTokens > 0 {
		chunk = fmt.Sprintf("prefill budget %d tokens per step", e.ChunkTokens)
	}
	admit := "admits on blocks in use (mean length)"
	if e.ReserveFullLength {
		admit = "reserves input + output per request"
	}
	graphs := "off"
	if e.CUDAGraphs {
		graphs = "on"
		if e.DecodeOnlyGraphs {
			graphs = "on for decode-only steps (steps with a prefill chunk launch every kernel)"
		}
	}
	mixed := "prefill batches alone"
	if e.MixedPrefill {
		mixed = "prefill mixed into decode steps"
	}
	return fmt.Sprintf("%s: step overhead %v, request overhead %v%s, KV blocks of %d tokens, %s, %s, CUDA graphs %s, %.0f%% of HBM, %s%s",
		e.Name, e.StepOverhead, e.RequestOverhead, describeFrontend(e), e.BlockTokens, chunk, mixed, graphs, 100*e.MemoryFraction, admit, describeWaits(e))
}

// describeFrontend names the front end before the engine, when it is
// not the engine's own server, with the overhead it adds.
func describeFrontend(e costmodel.Engine) string {
	if e.Frontend == "" {
		return ""
	}
	return fmt.Sprintf(" + %v behind the %s front end", e.FrontendOverhead, e.Frontend)
}

// describeWaits names the engine's waiting rules, when it has any.
func describeWaits(e costmodel.Engine) string {
	var s string
	if e.BatchWaitIters > 0 {
		s += fmt.Sprintf(", new prompts held up to %d steps while decodes run", e.BatchWaitIters)
		if e.BatchWaitTokenRatio > 0 {
			s += fmt.Sprintf(" or until %.0f%% of the prefill budget", 100*e.BatchWaitTokenRatio)
		}
	}
	if e.ADPBalanceIters > 0 {
		s += fmt.Sprintf(", attention-DP ranks balanced (prompts held up to %d steps until every rank has one)", e.ADPBalanceIters)
	}
	if e.RecvInterval > 1 {
		s += fmt.Sprintf(", new requests taken in every %d decode steps", e.RecvInterval)
	}
	if e.FP8KVAtBF16 {
		s += ", an fp8 KV cache read at the bf16 cost"
	}
	return s
}

func targetText(t hardware.Seconds) string {
	if t == 0 {
		return "none"
	}
	return t.String()
}

// loadAnswerLine is the headline.
func loadAnswerLine(r *search.LoadResult) string {
	best := r.Best()
	meet, one, many, none := "meet the targets", "layout meets them", "layouts meet them", "meets the targets at this load"
	if r.TTFT == 0 && r.TPOT == 0 {
		meet, one, many, none = "serve this load (no latency targets given)", "layout does", "layouts do", "serves this load without overload"
	}
	if best == nil {
		return "no layout of " + r.GPU + " " + none
	}
	return fmt.Sprintf("fewest GPUs that %s: %d %s; cheapest: %s on %s; %s, cheapest (GPU-seconds per token) first",
		meet, r.GPUs, r.GPU, best.Layout, plural(best.GPUs, "GPU", "GPUs"), plural(len(r.Layouts), one, many))
}

// loadTable lists the layouts that meet the targets.
func loadTable(r *search.LoadResult, top int) table {
	t := table{
		header:   []string{"rank", "layout", "GPUs", "TTFT", "TPOT", "tok/s/user", "tok/s/GPU", "GPU-s/token", "in flight/replica", "KV slots"},
		right:    []bool{true, false, true, true, true, true, true, true, true, true},
		optional: []bool{5: true, 8: true}, // 1/TPOT, in flight
	}
	for i, l := range r.Layouts {
		if top > 0 && i >= top {
			break
		}
		v := l.Latency
		t.add(strconv.Itoa(i+1), l.Layout, strconv.Itoa(l.GPUs), v.TTFT.String(), v.TPOT.String(),
			fmt.Sprintf("%.1f", v.TokensPerSecondPerUser), fmt.Sprintf("%.0f", v.TokensPerSecondPerGPU),
			fmt.Sprintf("%.3g", v.GPUSecondsPerToken), fmt.Sprintf("%.1f", v.Concurrency/float64(l.Replicas)), strconv.Itoa(v.Slots))
	}
	return t
}

// writeSteadyState itemizes one replica's steady state.
func writeSteadyState(w io.Writer, v *costmodel.ServeLatency, s tableStyle) {
	unit := "per replica"
	if v.AttentionDP > 1 {
		unit = fmt.Sprintf("per attention dp rank (%d per replica)", v.AttentionDP)
	}
	line(w, s, unit+": %.3g requests admitted, %.3g of them decoding on average; the KV cache admits %d sequences of %.0f tokens",
		v.Running, v.DecodeBatch, v.Slots, v.AdmitTokens)
	line(w, s, "decode step %v = weight GEMMs %s + decode attention %v + communication %v + overhead %v",
		v.Decode.Total, weightGEMMs(v.Decode), v.Decode.DecodeAttention, v.Decode.Communication, v.Decode.Overhead)
	if v.Engine.MixedPrefill {
		line(w, s, "a step with a %d-token prefill chunk takes %v (prefill attention %v); a prompt takes %s",
			v.ChunkTokens, v.Chunked.Total, v.Chunked.PrefillAttention, plural(v.Chunks, "chunk", "chunks"))
	} else {
		line(w, s, "a %d-token prefill chunk runs alone in a step of %v (prefill attention %v), the decodes waiting; a prompt takes %s",
			v.ChunkTokens, v.Chunked.Total, v.Chunked.PrefillAttention, plural(v.Chunks, "chunk", "chunks"))
	}
	if v.BurstShare > 0 {
		line(w, s, "TTFT %v = request overhead %v + %.3g x steady %v + %.3g x opening burst %v (%.3g steps of %v on average)",
			v.TTFT, v.RequestOverhead, 1-v.BurstShare, v.SteadyTTFT, v.BurstShare, v.BurstTTFT, v.BurstSteps, v.Burst.Total)
		line(w, s, "steady TTFT %v = slot wait %v + queue wait %v%s + step under way %v + own prefill %v",
			v.SteadyTTFT, v.SlotWait, v.QueueWait, schedulerWaitText(v), v.StepWait, v.Prefill)
	} else {
		line(w, s, "TTFT %v = request overhead %v + slot wait %v + queue wait %v%s + step under way %v + own prefill %v",
			v.TTFT, v.RequestOverhead, v.SlotWait, v.QueueWait, schedulerWaitText(v), v.StepWait, v.Prefill)
	}
	if stall := v.BurstStallPerToken(); stall > 0 {
		line(w, s, "TPOT %v = the mean step a decoding request sees %v + %.3g x opening-burst stall %v (its steps %.3g to %.3g, between its own first token and the burst's last) / %d later tokens; prefill chunks add %.1f%% of the engine's time",
			v.TPOT, v.TPOT-stall, v.BurstShare, v.BurstStall, v.BurstSteps, v.BurstLast, v.Load.OutputTokens-1, 100*v.PrefillShare)
	} else {
		line(w, s, "TPOT %v: the mean step a decoding request sees; prefill chunks add %.1f%% of the engine's time", v.TPOT, 100*v.PrefillShare)
	}
	line(w, s, "throughput %.0f output tokens/s (%.0f per GPU, %.1f per user) at %.3g requests/s; cost %.3g GPU-seconds per token; at most %.3g requests/s",
		v.TokensPerSecond, v.TokensPerSecondPerGPU, v.TokensPerSecondPerUser, v.Rate, v.GPUSecondsPerToken, v.MaxRate)
}

// schedulerWaitText is " + scheduler wait X" when the engine holds prompts
// back (costmodel.ServeLatency.SchedulerWait), else empty.
func schedulerWaitText(v *costmodel.ServeLatency) string {
	if v.SchedulerWait <= 0 {
		return ""
	}
	return fmt.Sprintf(" + scheduler wait %v", v.SchedulerWait)
}

// computeShares says at what share of the tensor-core peak the prefill
// runs: the weight GEMMs (in format w; the routed experts' apart when
// moe) and the attention at the measured kernels' shares of generation g
// when the assumptions carry them, else one share for all.
func computeShares(a costmodel.Assumptions, g costmodel.Generation, w costmodel.DType, moe bool) string {
	k := a.ServeKernels
	if k == (costmodel.KernelShares{}) {
		return fmt.Sprintf("%.1f%% of the tensor-core peak", 100*a.ServeFLOPEfficiency)
	}
	experts := ""
	if moe {
		experts = fmt.Sprintf(" (routed experts' %.1f%%)", 100*k.MoEGEMM(w))
	}
	return fmt.Sprintf("weight GEMMs at %.1f%%%s and prefill attention at %.1f%% of the tensor-core peak (%s's measured kernels)",
		100*k.GEMM(w), experts, 100*k.Attention, g)
}

// srcGEMMLaunch says where a weight GEMM call's fixed time comes from.
const srcGEMMLaunch = "the launch of the GPU's BF16 GEMM curve, costmodel/efficiency"

// weightGEMMs is a step's weight GEMM time with the share of it the
// calls' fixed launches take, where the weight read bounds the step.
func weightGEMMs(b costmodel.BatchStep) string {
	if b.LinearCalls == 0 || b.LinearLaunch >= b.Linear {
		return b.Linear.String()
	}
	return fmt.Sprintf("%v (%v of it the %d calls' launches)", b.Linear, b.LinearLaunch, b.LinearCalls)
}

// fromCheckpoint reports that weight format w is model m's checkpoint
// format as read from its config.json (Model.CheckpointNote).
func fromCheckpoint(w costmodel.DType, m *costmodel.Model) bool {
	return w == m.Checkpoint && m.CheckpointNote != ""
}

// weightsText is weight format w, and where it comes from when it is
// model m's checkpoint format read from its config.json.
func weightsText(w costmodel.DType, m *costmodel.Model) string {
	if !fromCheckpoint(w, m) {
		return w.String()
	}
	return fmt.Sprintf("%s (the checkpoint's: %s)", w, m.CheckpointNote)
}
