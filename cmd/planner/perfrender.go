package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// writeTraffic prints the collectives of one step on the slowest stage.
// The columns are as wide as their contents; the algorithm and the
// communicator's placement (group) only with wide, so the table keeps to
// textWidth columns.
func writeTraffic(w io.Writer, r *costmodel.Report, wide bool) {
	b := r.Performance.Breakdown
	fmt.Fprintf(w, "\ncommunication per GPU per step, %s (the slowest):\n", stageOf(b.Stage, r.Plan.PP))
	if len(r.Traffic) == 0 {
		fmt.Fprintln(w, "  none (no parallel dimension above 1)")
		return
	}
	var bytes, net hardware.Bytes
	var t, x hardware.Seconds
	rows := [][]string{{"collective", "operation", "tier", "algo", "bytes", "time", "exposed", "group"}}
	for _, l := range r.Traffic {
		rows = append(rows, []string{l.Name, fmt.Sprint(l.Collective), fmt.Sprint(l.Tier), fmt.Sprint(l.Algorithm),
			l.Bytes.String(), l.Time.String(), l.Exposed.String(), l.Group})
		bytes, net, t, x = bytes+l.Bytes, net+l.NetworkBytes, t+l.Time, x+l.Exposed
	}
	overNet := net.String() + " of it over the network"
	total := []string{"total", "", "", "", bytes.String(), t.String(), x.String(), overNet}
	widths := make([]int, 8)
	for _, row := range append(rows, total) {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	// line formats the cells: text columns padded on the right, the byte
	// and time columns on the left; group, the last, unpadded.
	line := func(row []string) string {
		var s strings.Builder
		for i, c := range row[:7] {
			switch {
			case i == 3 && !wide:
			case i < 4:
				fmt.Fprintf(&s, " %-*s", widths[i], c)
			default:
				fmt.Fprintf(&s, "  %*s", widths[i], c)
			}
		}
		if wide {
			s.WriteString("  " + row[7])
		}
		return " " + strings.TrimRight(s.String(), " ")
	}
	for _, row := range rows {
		fmt.Fprintln(w, line(row))
	}
	rule := utf8.RuneCountInString(line(total)) - 2
	if wide {
		rule -= 2 + utf8.RuneCountInString(overNet)
	}
	fmt.Fprintf(w, "  %s\n", strings.Repeat("-", rule))
	fmt.Fprintln(w, line(total))
	if !wide {
		fmt.Fprintf(w, "  %s\n", overNet)
	}
}

// writeStepTime prints the step-time breakdown and the throughput.
func writeStepTime(w io.Writer, r *costmodel.Report) {
	perf, p := r.Performance, r.Plan
	b := perf.Breakdown
	fmt.Fprintf(w, "\nstep time, %s, %s:\n", stageOf(b.Stage, p.PP), plural(b.MicroBatches, "micro-batch", "micro-batches"))
	// line prints one row; a note wraps under its own column.
	line := func(name string, v hardware.Seconds, note string) {
		note = wrapText(note, textWidth, strings.Repeat(" ", 2+40+1+10+2))
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-40s %10v  %s", name, v, note), " "))
	}
	split := fmt.Sprintf("GEMMs %v, attention %v, memory-bound %v", b.ComputeGEMM, b.ComputeAttention, b.ComputeMemoryBound)
	if b.ComputeHostSync > 0 {
		split += fmt.Sprintf(", MoE host syncs %v", b.ComputeHostSync)
	}
	line("compute: forward and backward", b.Compute, split)
	if p.Recompute != costmodel.NoRecompute {
		what := map[costmodel.Recompute]string{costmodel.Full: "the forward of every layer again",
			costmodel.Selective: "the attention core again",
			costmodel.OpSAC:     "every layer's forward but the saved matmuls and attention"}[p.Recompute]
		if p.Recompute == costmodel.Selective && p.RecomputeModules != 0 {
			what = "the forward of the modules " + p.RecomputeModules.String() + " again"
		}
		if p.Recompute == costmodel.Full && p.RecomputeLayers > 0 && p.RecomputeMethod == costmodel.Block {
			what = fmt.Sprintf("the forward of the first %d layers of each model chunk again", p.RecomputeLayers)
		}
		line("recompute ("+p.Recompute.String()+")", b.Recompute, what)
	}
	if p.PP > 1 {
		v := 1
		if p.Interleaved() {
			v = p.VPP
		}
		note := fmt.Sprintf("about (pp-1)/(m v) = %d/(%d x %d) of the busy time", p.PP-1, b.MicroBatches, v)
		if v > 1 && b.MicroBatches < p.PP {
			note = fmt.Sprintf("about ((pp-1) + (v-1)(pp-m))/(m v) = (%d + %d x %d)/(%d x %d): fewer micro-batches than stages",
				p.PP-1, v-1, p.PP-b.MicroBatches, b.MicroBatches, v)
		}
		line("pipeline bubble", b.Bubble, note)
	}
	for _, c := range []struct {
		kind string
		v    hardware.Seconds
	}{{"tp", b.ExposedTP}, {"cp", b.ExposedCP}, {"pp", b.ExposedPP}, {"dp gradients", b.ExposedDPGrads}, {"dp weights", b.ExposedDPParams}, {"ep all-to-all", b.ExposedEP}} {
		if c.v > 0 {
			line("exposed communication: "+c.kind, c.v, "")
		}
	}
	if p.Offload != costmodel.NoOffload {
		line("offload: host transfers, CPU optimizer", b.Offload, "not hidden: gradients out, CPU Adam, weights back (ZeRO-Offload)")
	} else {
		line("optimizer step", b.Optimizer, "memory-bound update of the local shard")
	}
	if p.OffloadActivationLayers > 0 {
		line("offload: activation copies", b.ActivationOffload, "not hidden behind the next layer's forward and backward (Megatron-Core cpu_offloading)")
	}
	fmt.Fprintf(w, "  %s\n", strings.Repeat("-", 52))
	line("step", perf.StepTime, "")
	peak, _ := r.Cluster.GPU.Peak(p.Precision.PeakFormat())
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("throughput %s tokens/s, %s per GPU; model %v per GPU; MFU %.1f%%, HFU %.1f%% of %v %s dense",
		hardware.Number(perf.TokensPerSecond), hardware.Number(perf.TokensPerSecondPerGPU), perf.ModelFLOPsPerGPU,
		100*perf.MFU, 100*perf.HFU, peak, p.Precision), textWidth-2, "    "))
	fmt.Fprintf(w, "  one layer, one micro-batch: forward %v, backward %v; model FLOPs per token %v\n",
		b.LayerForward, b.LayerBackward, perf.ModelFLOPsPerToken)
	fmt.Fprintf(w, "  %s\n", wrapText("FLOPs: "+r.FLOPFormula, textWidth-2, "    "))
}

// nvlinkShare is the NVLink assumption in words: the override share, or
// the measured bus bandwidth by generation and operation.
func nvlinkShare(a costmodel.Assumptions) string {
	if a.ScaleUpEfficiency > 0 {
		return fmt.Sprintf("%.1f%%", 100*a.ScaleUpEfficiency)
	}
	return "measured (nccl-tests by generation and operation)"
}

// writeStepAssumptions prints the step-time assumptions.
func writeStepAssumptions(w io.Writer, a costmodel.Assumptions, g hardware.GPU) {
	on := map[bool]string{true: "on", false: "off"}
	s := fmt.Sprintf("step-time assumptions: GEMM %.1f%% and attention %.1f%% (%s kernel) of their measured kernel speed, HBM %.1f%%, NVLink %s, network %.1f%% (GEMM, attention, HBM fitted: planner validate); "+
		"%s sustains %.0f%% of its peak clock; collective latency %v + %v per NVLink step + %v per network step; kernel overhead %v; "+
		"overlap: gradient reduce %s, weight gather %s, tp %s (%s), pp %s; context parallelism %s; unfused elementwise %s; rank order %s",
		100*a.GEMMEfficiency, 100*a.AttentionEfficiency, a.AttentionKernel, 100*a.HBMEfficiency, nvlinkShare(a), 100*a.ScaleOutEfficiency,
		g.Name, 100*a.SustainedClockOf(g), a.CollectiveLatency, a.ScaleUpHopLatency, a.ScaleOutHopLatency, a.KernelOverhead,
		on[a.OverlapGradReduce], on[a.OverlapParamGather], on[a.TPCommOverlap], tpOverlapStyle(a), on[a.OverlapP2P],
		cpStyle[a.CPAllGather], on[a.UnfusedElementwise], orderName(a.RankOrder))
	fmt.Fprintln(w, wrapText(s, textWidth, "  "))
}

// tpOverlapStyle says how TP overlap runs: Transformer Engine's, hiding
// TPOverlapShare of what it overlaps, or async TP, whose hidden transfers
// cost AsyncTPContention of GEMM time (fitted: calibration's
// TestAsyncTPContentionFit).
func tpOverlapStyle(a costmodel.Assumptions) string {
	if a.AsyncTP {
		return fmt.Sprintf("async TP: a hidden second costs %.2f s of GEMM, fitted on torchtitan's AsyncTP pairs", a.AsyncTPContention)
	}
	return fmt.Sprintf("hides %.0f%% of what it overlaps", 100*a.TPOverlapShare)
}

// cpStyle names the context-parallel exchange by CPAllGather.
var cpStyle = map[bool]string{false: "ring", true: "all-gather"}

func orderName(o costmodel.RankOrder) string {
	if o == "" {
		return string(costmodel.DefaultRankOrder)
	}
	return string(o)
}
