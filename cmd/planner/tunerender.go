package main

import (
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// tuneSummary describes a plan's task and offload for the plan line,
// "" for pre-training on the GPU alone.
func tuneSummary(p costmodel.Plan) string {
	s := ""
	switch {
	case p.Task.Adapted():
		s = fmt.Sprintf(", task %s (r=%d on %s, base %s)", p.Task, p.LoRARank, p.LoRATargets, p.BaseDType)
	case p.Task != costmodel.Pretrain:
		s = ", task " + p.Task.String()
	}
	if p.Offload != costmodel.NoOffload {
		s += ", offload " + p.Offload.String()
	}
	if n := p.OffloadActivationLayers; n > 0 {
		s += fmt.Sprintf(", activations of %d layers offloaded", n)
	}
	if n := p.PackedSampleTokens; n > 0 {
		s += fmt.Sprintf(", packed samples (attention within samples of E[len^2]/E[len] = %d tokens, --packed-sample-tokens)", n)
	}
	return s
}

// writeHost prints the host memory of an offloaded plan.
func writeHost(w io.Writer, h *costmodel.HostInventory) {
	if h == nil {
		return
	}
	fmt.Fprintf(w, "\nhost memory per GPU (%s):\n", h.Server)
	for _, l := range h.Lines {
		fmt.Fprintf(w, "  %-*s %10v  %s\n", nameWidth, l.Name, l.Bytes, l.Formula)
	}
	verdict := "fits"
	if !h.Fits {
		verdict = fmt.Sprintf("does NOT fit: over by %v", h.Total-h.Budget)
	}
	fmt.Fprintf(w, "  %-*s %10v  %s\n", nameWidth, fmt.Sprintf("budget (%g%% of host DRAM per GPU)", 100*costmodel.HostFraction), h.Budget, verdict)
}

// jobTune is the job's task and offload for the job line.
func jobTune(j search.Job) string {
	return tuneSummary(costmodel.Plan{Task: j.Task, LoRARank: j.LoRARank, LoRATargets: j.LoRATargets, BaseDType: j.BaseDType, Offload: j.Offload,
		PackedSampleTokens: j.PackedSampleTokens})
}

// writeFineTune prints the fine-tuning alternatives of a search in which
// nothing fits, each with its best plan or its nearest miss, and the
// answer they add up to. The plan and what each alternative is only with
// wide, so the table keeps to textWidth columns.
func writeFineTune(w io.Writer, r *search.Result, wide bool) {
	if len(r.FineTune) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(fmt.Sprintf("as a fine-tune on %d GPUs: each alternative searched over the same layouts (best plan, or nearest miss):", r.Searched[1]), textWidth, "  "))
	cw, pw := len("change"), len("plan")
	for _, a := range r.FineTune {
		cw = max(cw, len(a.Change))
		pw = max(pw, len(altPlan(a)))
	}
	row := func(change, plan, peak, step, speed, mfu, what string) {
		if !wide {
			fmt.Fprintf(w, "  %-*s %10s %10s %13s %6s\n", cw, change, peak, step, speed, mfu)
			return
		}
		fmt.Fprintf(w, "  %-*s  %-*s %10s %10s %13s %6s  %s\n", cw, change, pw, plan, peak, step, speed, mfu, what)
	}
	row("change", "plan", "peak/GPU", "step time", "tokens/s/GPU", "MFU", "what")
	for _, a := range r.FineTune {
		if b := a.Best; b != nil {
			pf := b.Performance
			row(a.Change, altPlan(a), b.Peak.String(), pf.StepTime.String(), hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), a.Kind)
			continue
		}
		peak, over := "-", "no plan"
		if n := a.Nearest; n != nil {
			peak, over = n.Peak.String(), fmt.Sprintf("over by %v", n.Over)
			if n.Over <= 0 {
				over = "the offloaded states exceed the host memory budget"
			}
		}
		row(a.Change, altPlan(a), peak, "-", "-", "-", a.Kind+" (does not fit: "+over+")")
	}
	fmt.Fprintln(w, wrapText("answer: "+r.FineTuneAnswer, textWidth, "  "))
}

func altPlan(a search.FineTuneAlternative) string {
	switch {
	case a.Best != nil:
		return a.Best.PlanString
	case a.Nearest != nil:
		return a.Nearest.PlanString
	}
	return "-"
}

// writeFineTuneMarkdown is writeFineTune as a Markdown table.
func writeFineTuneMarkdown(w io.Writer, r *search.Result) {
	if len(r.FineTune) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## As a fine-tune on %d GPUs\n\n| change | plan | peak/GPU | step time | tokens/s/GPU | MFU | what |\n|---|---|---:|---:|---:|---:|---|\n", r.Searched[1])
	for _, a := range r.FineTune {
		if b := a.Best; b != nil {
			pf := b.Performance
			fmt.Fprintf(w, "| `%s` | `%s` | %v | %v | %s | %s | %s |\n", a.Change, b.PlanString, b.Peak, pf.StepTime,
				hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), a.Kind)
			continue
		}
		peak := "-"
		if a.Nearest != nil {
			peak = a.Nearest.Peak.String()
		}
		fmt.Fprintf(w, "| `%s` | `%s` | %s | - | - | - | %s (does not fit) |\n", a.Change, altPlan(a), peak, a.Kind)
	}
	fmt.Fprintf(w, "\nAnswer: %s\n", r.FineTuneAnswer)
}
