package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel/calibration"
)

// writeGroups prints one line per source x GPU generation x format.
func writeGroups(w io.Writer, cmp calibration.Comparison) {
	fmt.Fprintf(w, "\n%s\n", wrapText("per group (source x GPU generation x format); signed = median of predicted/measured speed - 1 (+ is optimistic):", textWidth, "  "))
	fmt.Fprintf(w, "  %-32s %-9s %-13s %5s %8s %8s %8s\n", "source", "GPU", "format", "rows", "median", "signed", "p90")
	for _, g := range cmp.Groups {
		fmt.Fprintf(w, "  %-32s %-9s %-13s %5d %7.1f%% %+7.1f%% %7.1f%%\n", g.Source, g.Generation, g.Format, g.Rows,
			100*g.Median, 100*g.Signed, 100*g.P90)
	}
	a := cmp.All
	fmt.Fprintf(w, "  %-56s %5d %7.1f%% %+7.1f%% %7.1f%%\n", "all compared rows", a.Rows, 100*a.Median, 100*a.Signed, 100*a.P90)
}

// writeLOSO prints the leave-one-source-out error per source and over
// every row.
func writeLOSO(w io.Writer, l calibration.LOSO) {
	fmt.Fprintf(w, "\nleave one source out (each source predicted by a fit on the fit set without it; %d distinct fits", l.Fits)
	if len(l.Unfitted) > 0 {
		fmt.Fprintf(w, "; unfitted, at the base values: %v", l.Unfitted)
	}
	fmt.Fprintln(w, "):")
	fmt.Fprintf(w, "  %-32s %5s %8s %8s %8s\n", "source", "rows", "median", "signed", "p90")
	for _, s := range l.Sources {
		fmt.Fprintf(w, "  %-32s %5d %7.1f%% %+7.1f%% %7.1f%%\n", s.Source, s.Rows, 100*s.Median, 100*s.Signed, 100*s.P90)
	}
	fmt.Fprintf(w, "  %-32s %5d %7.1f%% %+7.1f%% %7.1f%%\n", "all rows", l.All.Rows, 100*l.All.Median, 100*l.All.Signed, 100*l.All.P90)
}

// writeTargets prints each accuracy target with met or not met.
func writeTargets(w io.Writer, checks []calibration.Check) {
	fmt.Fprintln(w, "\ntargets (enforced: the tests fail when one exceeds its guard, or its limit where it has none):")
	for _, c := range checks {
		tag := "reported"
		if c.Enforced {
			tag = "enforced"
		}
		fmt.Fprintf(w, "  %-8s %s\n", tag, c)
	}
}

// writePresets prints the framework preset each source's rows ran with
// (`planner estimate --framework NAME` applies the same settings).
func writePresets(w io.Writer, results []calibration.Result) {
	fmt.Fprintln(w, "\nframework preset per source (settings and sources: --framework NAME in planner estimate):")
	names := map[string][]string{}
	for _, r := range results {
		src, name := r.Row.Source(), r.Preset().Name
		if !slices.Contains(names[src], name) {
			names[src] = append(names[src], name)
		}
	}
	var order []string
	for src := range names {
		order = append(order, src)
	}
	slices.Sort(order)
	for _, src := range order {
		slices.Sort(names[src])
		fmt.Fprintf(w, "  %-32s %s\n", src, strings.Join(names[src], ", "))
	}
}

// writeMemoryTable prints every row that reports a measured per-GPU
// memory or ran out of memory: the predicted peak, the measured value in
// its own measure, the error and why it is not within 10%, whether it is
// predicted to fit at the budget the source ran under, and the summary.
//
// The budget of the fit and the measure and reason only with wide, so
// the table keeps to textWidth columns.
func writeMemoryTable(w io.Writer, t calibration.MemoryTable, wide bool) {
	if len(t.Rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrapText("memory (rows that report a measured per-GPU memory or an out-of-memory run; predicted = the peak stage's inventory):", textWidth, "  "))
	mw := 20 // model column
	if wide {
		mw = 24
	}
	row := func(cells ...string) {
		if !wide {
			cells = cells[:7]
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-6s %-26s %-*s %10s %10s %8s %-14s %s", cells[0], cells[1], mw, cells[2],
			cells[3], cells[4], cells[5], cells[6], strings.Join(cells[7:], "")), " "))
	}
	row("row", "source", "model", "predicted", "measured", "error", "fit", "measure; within 10% or why not")
	for _, m := range t.Rows {
		fit := "fits"
		if !m.Fits {
			fit = "does not fit"
		}
		budget := "default"
		if m.WholeHBM {
			budget = "whole HBM"
		}
		measured, errText, why := "OOM", "-", m.Metric
		if m.HasMeasured() {
			measured = fmt.Sprintf("%.1f %s", float64(m.Measured)/unitBytes(m.Unit), m.Unit)
			errText = fmt.Sprintf("%+.1f%%", 100*m.Err)
			why = m.Metric + "; " + m.Reason
		}
		if wide {
			fit = fmt.Sprintf("%s (%s %v)", fit, budget, m.Budget)
		}
		row(m.Row.ID(), clip(m.Row.Source(), 26), clip(m.Row.Get("model"), mw),
			fmt.Sprintf("%.1f %s", float64(m.Peak)/unitBytes(m.Unit), unitOr(m.Unit)), measured, errText, fit, why)
		if !wide && m.HasMeasured() && !m.Within() {
			fmt.Fprintf(w, "         %s\n", wrapText("not within 10%: "+m.Reason, textWidth, strings.Repeat(" ", 9)))
		}
	}
	for _, s := range t.Skipped {
		fmt.Fprintf(w, "  %-6s %-26s %s\n", s.Row.ID(), clip(s.Row.Source(), 26), wrapText("not modeled: "+s.Reason, textWidth, strings.Repeat(" ", 2+6+1+26+1)))
	}
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("summary: %d rows with a measured memory, %d within 10%%, median |error| %.1f%%; %d of %d that ran predicted to fit; %d of %d out-of-memory runs predicted not to fit",
		t.Measured, t.Within, 100*t.Median, t.Fit, t.Ran, t.NotFit, t.OOM), textWidth, "    "))
	writeUnreported(w, t.Unreported)
}

// writeUnreported prints the fit check of the compared runs that report
// no memory, and each one predicted not to fit with its reasons.
func writeUnreported(w io.Writer, f calibration.RanFit) {
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("compared runs that report no memory: %d of %d predicted to fit at the whole HBM; the others:",
		f.Fit, f.Rows), textWidth, "    "))
	writeNotFit(w, f.NotFit)
	if len(f.Layers) > 0 {
		fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("not counted: %d timed single layers of a plan predicted not to fit as a whole model:",
			len(f.Layers)), textWidth, "    "))
		writeNotFit(w, f.Layers)
	}
}

// writeNotFit lists runs predicted not to fit, each with its reasons.
func writeNotFit(w io.Writer, rows []calibration.MemoryRow) {
	for _, m := range rows {
		fmt.Fprintf(w, "  %-6s %-26s %-20s %10v of %v\n", m.Row.ID(), clip(m.Row.Source(), 26), clip(m.Row.Get("model"), 20), m.Peak, m.Budget)
		fmt.Fprintf(w, "         %s\n", wrapText(m.Reason, textWidth, strings.Repeat(" ", 9)))
	}
}

// unitBytes is the size of a memory unit as a source prints it.
func unitBytes(unit string) float64 {
	if unit == "GiB" {
		return 1 << 30
	}
	return 1e9
}

func unitOr(unit string) string {
	if unit == "" {
		return "GB"
	}
	return unit
}
