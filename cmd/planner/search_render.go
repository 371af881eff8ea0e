package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/samber/lo"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// The text, Markdown and CSV renderings of a search carry the same
// result: the ranked plans, why the first ranks first, the frontier, the
// candidates counted by reason, and, when nothing fits, the nearest
// misses and the levers.

func writeSearchText(w io.Writer, m *costmodel.Model, r *search.Result, wide bool) {
	j := r.Job
	header(w, "model", m.Name+": "+describeModel(m))
	header(w, "cluster", describeCluster(r.Cluster))
	header(w, "job", describeJob(j))
	fmt.Fprintf(w, "budget   %v per GPU (%g%% of %v driver-reported HBM)\n", r.Budget, 100*r.Assumptions.HBMFraction, r.Cluster.GPU.HBM)
	header(w, "accuracy", coverageLine(r.Cluster.GPU.Name, j.Precision))
	if n := costmodel.KernelNote(r.Cluster.GPU, j.Precision, r.Assumptions); n != "" {
		header(w, "kernels", n)
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(strings.ReplaceAll(headline(r), "\n", " "), textWidth, ""))
	if len(r.Plans) > 0 {
		writePlanTable(w, r.Plans, wide)
		fmt.Fprintf(w, "\n%s\n", planLegend)
		if len(r.Why) > 0 {
			fmt.Fprintf(w, "\nwhy #1 ranks above #2 (%s):\n", r.Plans[1].PlanString)
			for _, s := range r.Why {
				fmt.Fprintf(w, "  %s\n", wrapText(s, textWidth, "    "))
			}
		}
	}
	if len(r.Frontier) > 0 {
		fmt.Fprintf(w, "\nPareto frontier from %d to %d GPUs (each count faster than every smaller one):\n", r.Searched[0], r.Searched[1])
		writeFrontierTable(w, r.Frontier, wide)
	}
	if len(r.Plans) == 0 {
		writeMissesText(w, r, wide)
		writeFineTune(w, r, wide)
	}
	fmt.Fprintf(w, "\n%s; rejected:\n", candidatesLine(r))
	for _, rs := range rejections(r.Counts) {
		fmt.Fprintf(w, "  %12s  %s\n", hardware.Thousands(r.Counts.Rejected[rs]), wrapText(rs.String(), textWidth, strings.Repeat(" ", 16)))
	}
	writeAssumptions(w, r.Assumptions)
	writeStepAssumptions(w, r.Assumptions, r.Cluster.GPU)
	writeNotes(w, r.Notes)
}

// describeJob is the one-line summary of the fixed job.
func describeJob(j search.Job) string {
	return fmt.Sprintf("seq %d, global batch %d sequences (%s tokens) per step, %s, %s, %s attention, %s schedule%s",
		j.Seq, j.GlobalBatch, costmodel.FormatCount(float64(j.Seq)*float64(j.GlobalBatch)), j.Precision, j.Optimizer, j.Attention, j.Schedule,
		jobTune(j))
}

// headline says what the search answered.
func headline(r *search.Result) string {
	unit := "whole-node counts"
	if r.Granularity == search.SingleGPUs {
		unit = "GPU counts"
	}
	switch {
	case r.Objective == search.Throughput && len(r.Plans) > 0:
		return fmt.Sprintf("best plans on %s, by throughput (ties: more headroom, fewer exposed network bytes, plan):", plural(r.GPUs, "GPU", "GPUs"))
	case r.Objective == search.Throughput:
		return fmt.Sprintf("nothing fits on %s.", plural(r.Searched[1], "GPU", "GPUs"))
	case len(r.Plans) > 0 && r.GPUs == r.Searched[0]:
		return fmt.Sprintf("fewest GPUs: %d (%s), the smallest of the %s searched; %d GPUs is the fewest whose\nbudgets could hold the model states alone. Best plans on %d GPUs:",
			r.GPUs, nodes(r), unit, r.MinGPUs, r.GPUs)
	case len(r.Plans) > 0:
		return fmt.Sprintf("fewest GPUs: %d (%s): nothing fits on the %s from %d; %d GPUs is the fewest whose\nbudgets could hold the model states alone. Best plans on %d GPUs:",
			r.GPUs, nodes(r), unit, r.Searched[0], r.MinGPUs, r.GPUs)
	case r.CountsSearched == 0:
		return "nothing searched."
	}
	return fmt.Sprintf("nothing fits on any of the %s from %d to %d GPUs.", unit, r.Searched[0], r.Searched[1])
}

// nodes describes the cluster of the answer: "13 nodes of 8".
func nodes(r *search.Result) string {
	c := r.Cluster
	return fmt.Sprintf("%s of %d", plural(c.Nodes, "node", "nodes"), c.GPUsPerNode)
}

// writePlanTable prints the ranked plans; the GPUs (the count in the
// headline) and exposed-communication columns only with wide, so the
// table keeps to about textWidth columns.
func writePlanTable(w io.Writer, plans []search.Ranked, wide bool) {
	pw := planWidth(plans)
	gpus, comm := func(string) string { return "" }, func(string) string { return "" }
	if wide {
		gpus = func(s string) string { return fmt.Sprintf(" %6s", s) }
		comm = func(s string) string { return "  " + s }
	}
	fmt.Fprintf(w, "  %3s  %-*s%s %8s %8s %9s %12s %6s%s\n", "#", pw, "plan", gpus("GPUs"), "peak/GPU", "headroom", "step time", "tokens/s/GPU", "MFU", comm("exposed comm"))
	for i, p := range plans {
		pf := p.Performance
		fmt.Fprintf(w, "  %3d  %-*s%s %8v %8v %9v %12s %6s%s\n", i+1, pw, p.PlanString, gpus(strconv.Itoa(p.GPUs)), p.Peak, p.Headroom,
			pf.StepTime, hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), comm(exposedComm(pf)))
	}
}

// writeFrontierTable prints the frontier; tokens/s per GPU only with
// wide (it is tokens/s over the GPUs of the row).
func writeFrontierTable(w io.Writer, f []search.Ranked, wide bool) {
	pw := planWidth(f)
	perGPU := func(string) string { return "" }
	if wide {
		perGPU = func(s string) string { return fmt.Sprintf(" %13s", s) }
	}
	fmt.Fprintf(w, "  %6s  %-*s %12s%s %6s %10s %10s\n", "GPUs", pw, "plan", "tokens/s", perGPU("tokens/s/GPU"), "MFU", "step time", "peak/GPU")
	for _, p := range f {
		pf := p.Performance
		fmt.Fprintf(w, "  %6d  %-*s %12s%s %6s %10v %10v\n", p.GPUs, pw, p.PlanString, hardware.Grouped(pf.TokensPerSecond),
			perGPU(hardware.Grouped(pf.TokensPerSecondPerGPU)), pct(pf.MFU), pf.StepTime, p.Peak)
	}
}

func writeMissesText(w io.Writer, r *search.Result, wide bool) {
	if len(r.Misses) == 0 {
		return
	}
	fmt.Fprintf(w, "\nnearest misses on %d GPUs (peak per GPU, over the %v budget by):\n", r.Misses[0].GPUs, r.Budget)
	pw := 0
	for _, m := range r.Misses {
		pw = max(pw, len(m.PlanString))
	}
	for _, m := range r.Misses {
		fmt.Fprintf(w, "  %-*s %10v %10v over\n", pw, m.PlanString, m.Peak, m.Over)
	}
	fmt.Fprintf(w, "\nfor the nearest:\n")
	writeLevers(w, r.Levers, wide)
}

func planWidth(rs []search.Ranked) int {
	n := len("plan")
	for _, r := range rs {
		n = max(n, len(r.PlanString))
	}
	return n
}

// candidatesLine sums up the accounting of the grid.
func candidatesLine(r *search.Result) string {
	c := r.Counts
	return fmt.Sprintf("%s candidates considered on %s, %s evaluated in full, %s fit",
		hardware.Thousands(c.Considered), plural(r.CountsSearched, "GPU count", "GPU counts"), hardware.Thousands(c.Evaluated), hardware.Thousands(c.Fit))
}

// rejections lists the reasons that rejected any candidate.
func rejections(c search.Counts) []search.Reason {
	return lo.Filter(search.Reasons(), func(r search.Reason, _ int) bool { return c.Rejected[r] > 0 })
}

func exposedComm(p costmodel.Performance) string {
	if p.ExposedComm == 0 {
		return "0 s"
	}
	return fmt.Sprintf("%v (%s)", p.ExposedComm, p.ExposedTier)
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

func writeSearchMarkdown(w io.Writer, m *costmodel.Model, r *search.Result) {
	fmt.Fprintf(w, "# Parallel plans: %s on %s\n\n", m.Name, r.GPU)
	fmt.Fprintf(w, "| | |\n|---|---|\n| model | %s |\n| GPU | %s |\n| job | %s |\n| budget | %v per GPU (%g%% of %v) |\n| accuracy | %s |\n\n",
		describeModel(m), describeCluster(r.Cluster), describeJob(r.Job), r.Budget, 100*r.Assumptions.HBMFraction, r.Cluster.GPU.HBM,
		coverageLine(r.Cluster.GPU.Name, r.Job.Precision))
	fmt.Fprintf(w, "%s\n\n", strings.ReplaceAll(headline(r), "\n", " "))
	if len(r.Plans) > 0 {
		fmt.Fprintln(w, "| # | plan | GPUs | peak/GPU | headroom | step time | tokens/s/GPU | MFU | exposed comm |")
		fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---|")
		for i, p := range r.Plans {
			pf := p.Performance
			fmt.Fprintf(w, "| %d | `%s` | %d | %v | %v | %v | %s | %s | %s |\n", i+1, p.PlanString, p.GPUs, p.Peak, p.Headroom,
				pf.StepTime, hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), exposedComm(pf))
		}
	}
	if len(r.Why) > 0 {
		fmt.Fprintf(w, "\n## Why `%s` ranks first\n\nAgainst `%s`:\n\n", r.Plans[0].PlanString, r.Plans[1].PlanString)
		for _, s := range r.Why {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
	if len(r.Frontier) > 0 {
		fmt.Fprintf(w, "\n## Pareto frontier, %d to %d GPUs\n\n| GPUs | plan | tokens/s | tokens/s/GPU | MFU | step time | peak/GPU |\n|---:|---|---:|---:|---:|---:|---:|\n",
			r.Searched[0], r.Searched[1])
		for _, p := range r.Frontier {
			pf := p.Performance
			fmt.Fprintf(w, "| %d | `%s` | %s | %s | %s | %v | %v |\n", p.GPUs, p.PlanString, hardware.Grouped(pf.TokensPerSecond),
				hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), pf.StepTime, p.Peak)
		}
	}
	writeMissesMarkdown(w, r)
	writeFineTuneMarkdown(w, r)
	fmt.Fprintf(w, "\n## Candidates\n\n%s.\n\n| rejected | reason |\n|---:|---|\n", candidatesLine(r))
	for _, rs := range rejections(r.Counts) {
		fmt.Fprintf(w, "| %s | %s |\n", hardware.Thousands(r.Counts.Rejected[rs]), rs)
	}
	a := r.Assumptions
	fmt.Fprintf(w, "\nAssumptions: HBM budget %g%%, CUDA context %v, %s, training workspace %v, fragmentation %g%%.\n",
		100*a.HBMFraction, a.CUDAContext, a.NCCLSummary(), a.TrainWorkspace, 100*a.Fragmentation)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
}

func writeMissesMarkdown(w io.Writer, r *search.Result) {
	if len(r.Plans) > 0 || len(r.Misses) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Nearest misses on %d GPUs\n\n| plan | peak/GPU | over budget |\n|---|---:|---:|\n", r.Misses[0].GPUs)
	for _, m := range r.Misses {
		fmt.Fprintf(w, "| `%s` | %v | %v |\n", m.PlanString, m.Peak, m.Over)
	}
	fmt.Fprintf(w, "\nWhat would shrink the nearest (peak per GPU after the change):\n\n| change | peak/GPU | fits | why |\n|---|---:|---|---|\n")
	for _, l := range r.Levers {
		fmt.Fprintf(w, "| `%s` | %v | %s | %s |\n", l.Change, l.Peak, map[bool]string{true: "yes", false: "no"}[l.Fits], l.Why)
	}
}

// csvHeader is the column set of --csv: one row per ranked plan,
// frontier point, miss and lever, one per count, and the explanation and
// notes as text rows, in raw base units.
var csvHeader = []string{"section", "rank", "plan", "gpus", "micro_batches", "peak_stage", "peak_bytes", "headroom_bytes",
	"step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu", "exposed_comm_s", "exposed_network_bytes",
	"exposed_tier", "count_key", "count", "text"}

// csvRow returns a row with the given cells set by column name.
func csvRow(cells map[string]string) []string {
	row := make([]string, len(csvHeader))
	for i, h := range csvHeader {
		row[i] = cells[h]
	}
	return row
}

func writeSearchCSV(w io.Writer, r *search.Result) error {
	rows := [][]string{csvHeader}
	for _, sec := range []struct {
		name string
		rs   []search.Ranked
	}{{"plan", r.Plans}, {"frontier", r.Frontier}} {
		for i, p := range sec.rs {
			pf := p.Performance
			rows = append(rows, csvRow(map[string]string{"section": sec.name, "rank": strconv.Itoa(i + 1), "plan": p.PlanString,
				"gpus": strconv.Itoa(p.GPUs), "micro_batches": strconv.Itoa(p.MicroBatches), "peak_stage": strconv.Itoa(p.PeakStage),
				"peak_bytes": bytesInt(float64(p.Peak)), "headroom_bytes": bytesInt(float64(p.Headroom)),
				"step_time_s": num(float64(pf.StepTime)), "tokens_per_s": num(pf.TokensPerSecond),
				"tokens_per_s_per_gpu": num(pf.TokensPerSecondPerGPU), "mfu": num(pf.MFU), "hfu": num(pf.HFU),
				"exposed_comm_s": num(float64(pf.ExposedComm)), "exposed_network_bytes": bytesInt(float64(pf.ExposedNetworkBytes)),
				"exposed_tier": pf.ExposedTier.String()}))
		}
	}
	for i, m := range r.Misses {
		rows = append(rows, csvRow(map[string]string{"section": "miss", "rank": strconv.Itoa(i + 1), "plan": m.PlanString,
			"gpus": strconv.Itoa(m.GPUs), "micro_batches": strconv.Itoa(m.Plan.MicroBatches()), "peak_stage": strconv.Itoa(m.PeakStage),
			"peak_bytes": bytesInt(float64(m.Peak)), "headroom_bytes": bytesInt(-float64(m.Over))}))
	}
	for i, l := range r.Levers {
		rows = append(rows, csvRow(map[string]string{"section": "lever", "rank": strconv.Itoa(i + 1), "plan": l.Plan,
			"peak_bytes": bytesInt(float64(l.Peak)), "headroom_bytes": bytesInt(float64(r.Budget - l.Peak)), "text": l.Change + ": " + l.Why}))
	}
	c := r.Counts
	counts := [][2]string{{"considered", strconv.Itoa(c.Considered)}, {"evaluated", strconv.Itoa(c.Evaluated)}, {"fit", strconv.Itoa(c.Fit)}}
	for _, rs := range search.Reasons() {
		counts = append(counts, [2]string{"rejected_" + rs.Key(), strconv.Itoa(c.Rejected[rs])})
	}
	for _, kv := range counts {
		rows = append(rows, csvRow(map[string]string{"section": "counts", "count_key": kv[0], "count": kv[1]}))
	}
	for _, t := range []struct {
		section string
		lines   []string
	}{{"why", r.Why}, {"note", r.Notes}} {
		for i, line := range t.lines {
			rows = append(rows, csvRow(map[string]string{"section": t.section, "rank": strconv.Itoa(i + 1), "text": line}))
		}
	}
	if err := csv.NewWriter(w).WriteAll(rows); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

func bytesInt(b float64) string { return strconv.FormatFloat(math.Round(b), 'f', 0, 64) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
