package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/search"
)

// writeDisaggResult prints `planner serve --disaggregated`: the request
// shape, the engine, the deployments that meet the targets, the best
// one itemized (prefill pool, KV transfer, decode pool, TTFT and TPOT),
// the aggregated answer beside it, the pairs that miss, the assumptions.
func writeDisaggResult(w io.Writer, q search.DisaggQuery, r *search.DisaggResult, top int, s tableStyle) {
	if s == markdownStyle {
		fmt.Fprintf(w, "## Serving %s on %s disaggregated, under load\n\n", r.Model, r.GPU)
	}
	writeServeHeader(w, s, q.LoadQuery, r.ServeContext, true)
	heading(w, s, disaggAnswerLine(r))
	if best := r.Best(); best != nil {
		disaggTable(r, top).write(w, s)
		heading(w, s, "steady state of prefill "+best.Prefill+" + decode "+best.Decode)
		writeDisaggState(w, best.Latency, s)
	}
	heading(w, s, "aggregated, the same search")
	line(w, s, "%s", aggregatedLine(r))
	if len(r.Missed) > 0 {
		heading(w, s, "layouts and pairs that miss")
		for _, m := range r.Missed {
			line(w, s, "%s: %s", m.Layout, m.Reason)
		}
	}
	heading(w, s, "assumptions")
	g := costmodel.GenerationOf(q.GPU)
	line(w, s, "speed: %.1f%% of HBM bandwidth (%s, fitted on measured-serving.csv) and %v a weight GEMM call (%s), %s, %.0f%% of link bandwidth; all-reduce latency %v, network latency %v",
		100*r.Assumptions.ServeHBMEfficiency, g, costmodel.GEMMLaunch(q.GPU), srcGEMMLaunch, computeShares(r.Assumptions, g, q.Weights, q.Model.MoE != nil),
		100*r.Assumptions.ServeLinkEfficiency, r.Assumptions.ServeAllReduceLatency, r.Assumptions.ServeNetworkLatency)
	line(w, s, "engine preset: %s; %s", costmodel.EngineSource(r.Engine.Name), overheadSource(r.Engine))
	line(w, s, "disaggregated: no calibration rows of its own; its kernels and overheads are the aggregated model's (the lines above)")
	if best := r.Best(); best != nil {
		for _, n := range best.Latency.Notes {
			line(w, s, "note: %s", n)
		}
	}
}

// disaggAnswerLine is the headline: the fewest GPUs and what that saves
// or costs against aggregated serving.
func disaggAnswerLine(r *search.DisaggResult) string {
	best := r.Best()
	if best == nil {
		return "no disaggregated deployment of " + r.GPU + " meets the targets at this load"
	}
	return fmt.Sprintf("fewest GPUs that meet the targets disaggregated: %d %s, prefill %s + decode %s; %s; %s, fewest GPUs first",
		r.GPUs, r.GPU, best.Prefill, best.Decode, savedText(r), plural(len(r.Deployments), "pair of layouts meets them", "pairs of layouts meet them"))
}

// savedText compares with the aggregated answer.
func savedText(r *search.DisaggResult) string {
	agg := r.Aggregated
	switch {
	case agg == nil || agg.GPUs == 0:
		return "no aggregated layout meets the targets"
	case r.Saved > 0:
		return fmt.Sprintf("aggregated serving needs %d: disaggregation saves %s at this load", agg.GPUs, plural(r.Saved, "GPU", "GPUs"))
	case r.Saved < 0:
		return fmt.Sprintf("aggregated serving needs %d: disaggregation costs %s more at this load", agg.GPUs, plural(-r.Saved, "GPU", "GPUs"))
	}
	return fmt.Sprintf("aggregated serving needs the same %d", agg.GPUs)
}

// disaggTable lists the deployments that meet the targets.
func disaggTable(r *search.DisaggResult, top int) table {
	t := table{
		header:   []string{"rank", "prefill", "decode", "GPUs", "P:D", "TTFT", "KV xfer", "TPOT", "tok/s/user", "tok/s/GPU", "GPU-s/token"},
		right:    []bool{true, false, false, true, true, true, true, true, true, true, true},
		optional: []bool{8: true},
	}
	for i, d := range r.Deployments {
		if top > 0 && i >= top {
			break
		}
		v := d.Latency
		t.add(strconv.Itoa(i+1), d.Prefill, d.Decode, strconv.Itoa(d.GPUs), fmt.Sprintf("%d:%d", d.PrefillWorkers, d.DecodeWorkers),
			v.TTFT.String(), v.KVTime.String(), v.TPOT.String(), fmt.Sprintf("%.1f", v.TokensPerSecondPerUser),
			fmt.Sprintf("%.0f", v.TokensPerSecondPerGPU), fmt.Sprintf("%.3g", v.GPUSecondsPerToken))
	}
	return t
}

// writeDisaggState itemizes one deployment's steady state.
func writeDisaggState(w io.Writer, v *costmodel.DisaggLatency, s tableStyle) {
	p, x, d := v.Prefill, v.Transfer, v.Decode
	line(w, s, "prefill pool: %s of %s (%s), %.3g prompts/s each, %.0f%% busy; %s per batch (at most %d: the %d-token budget over the prompt, %d KV slots), a batch %s of %v",
		plural(p.Workers, "worker", "workers"), plural(p.GPUsPerWorker, "GPU", "GPUs"), plural(v.PrefillGPUs, "GPU", "GPUs"), p.Rate, 100*p.Utilization,
		plural(p.Batch, "prompt", "prompts"), p.MaxBatch, v.Engine.ChunkTokens, p.Slots, plural(p.Chunks, "step", "steps"), p.Step.Total)
	line(w, s, "prefill step %v = weight GEMMs %v + prefill attention %v + communication %v + overhead %v",
		p.Step.Total, p.Step.Linear, p.Step.PrefillAttention, p.Step.Communication, p.Step.Overhead)
	link := "the network"
	if x.ScaleUp {
		link = "NVLink (both pools in one scale-up domain)"
	}
	line(w, s, "KV transfer %v: %v per prompt, each GPU its shard in parallel (%v sent, %v received per GPU) over %s at %v x %.0f%% per GPU + %v",
		x.Time, x.Bytes, x.SendPerGPU, x.ReceivePerGPU, link, x.Bandwidth, 100*x.Efficiency, x.Latency)
	line(w, s, "decode pool: %s of %s (%s), %.3g requests/s each, %.3g sequences decoding (Little's law: rate x %d steps x TPOT); the KV cache admits %d sequences of %.0f tokens",
		plural(d.Workers, "worker", "workers"), plural(d.GPUsPerWorker, "GPU", "GPUs"), plural(v.DecodeGPUs, "GPU", "GPUs"), d.Rate, d.Batch, v.Load.OutputTokens-1, d.Slots, d.AdmitTokens)
	line(w, s, "decode step %v = weight GEMMs %s + decode attention %v + communication %v + overhead %v",
		d.Step.Total, weightGEMMs(d.Step), d.Step.DecodeAttention, d.Step.Communication, d.Step.Overhead)
	line(w, s, "TTFT %v = request overhead %v + slot wait %v + prefill queue wait %v + prefill %v + KV transfer %v (%v without the transfer, the prefill phase alone)",
		v.TTFT, v.RequestOverhead, v.SlotWait, v.QueueWait, v.PrefillTime, v.KVTime, v.PrefillTTFT)
	line(w, s, "TPOT %v: the decode step; no prefill joins it", v.TPOT)
	line(w, s, "throughput %.0f output tokens/s (%.0f per GPU, %.1f per user) at %.3g requests/s; cost %.3g GPU-seconds per token; at most %.3g requests/s (prefill pool %.3g, decode pool %.3g)",
		v.TokensPerSecond, v.TokensPerSecondPerGPU, v.TokensPerSecondPerUser, v.Rate, v.GPUSecondsPerToken, v.MaxRate, p.MaxRate, d.MaxRate)
}

// aggregatedLine is the aggregated search's best answer in one line.
func aggregatedLine(r *search.DisaggResult) string {
	agg := r.Aggregated
	if agg == nil || agg.Best() == nil {
		return "no aggregated layout meets the targets at this load"
	}
	fewest := agg.Layouts[0]
	for _, l := range agg.Layouts {
		if l.GPUs < fewest.GPUs {
			fewest = l
		}
	}
	v := fewest.Latency
	return fmt.Sprintf("fewest GPUs: %s on %d GPUs, TTFT %v, TPOT %v, %.0f tok/s/GPU, %.3g GPU-seconds per token",
		fewest.Layout, fewest.GPUs, v.TTFT, v.TPOT, v.TokensPerSecondPerGPU, v.GPUSecondsPerToken)
}
