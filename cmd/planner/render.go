package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// writeJSON writes v as indented JSON. Struct fields and sorted map keys
// make the output byte-identical for the same input.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// nameWidth is the width of the line-name column.
const nameWidth = 46

// writeInventory prints the inventory lines, the total, the budget and
// the headroom.
func writeInventory(w io.Writer, inv costmodel.Inventory, hbmFraction float64) {
	for _, l := range inv.Lines {
		writeInventoryLine(w, l.Name, l.Bytes.String(), l.Formula)
	}
	fmt.Fprintf(w, "  %s\n", strings.Repeat("-", nameWidth+12))
	fmt.Fprintf(w, "  %-*s %10v\n", nameWidth, "total", inv.Total)
	fmt.Fprintf(w, "  %-*s %10v\n", nameWidth, fmt.Sprintf("budget (%g%% of %v driver-reported HBM)", 100*hbmFraction, inv.Capacity), inv.Budget)
	verdict := "fits"
	if !inv.Fits {
		verdict = fmt.Sprintf("does NOT fit: over budget by %v", -inv.Headroom)
	}
	fmt.Fprintf(w, "  %-*s %10v  %s\n", nameWidth, "headroom", inv.Headroom, verdict)
}

// writeInventoryLine prints one line of an inventory within textWidth
// columns: the name and the formula each wrapped in its own column, the
// bytes beside the first row.
func writeInventoryLine(w io.Writer, name, bytes, formula string) {
	const indent = 2 + nameWidth + 1 + 10 + 2
	names := strings.Split(wrapText(name, nameWidth, ""), "\n")
	formulas := strings.Split(wrapText(formula, textWidth-indent, ""), "\n")
	for i := range max(len(names), len(formulas)) {
		n, f, b := "", "", ""
		if i < len(names) {
			n = names[i]
		}
		if i < len(formulas) {
			f = formulas[i]
		}
		if i == 0 {
			b = bytes
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-*s %10s  %s", nameWidth, n, b, f), " "))
	}
}

// writeLargest names the largest lines of an inventory that does not fit.
func writeLargest(w io.Writer, inv costmodel.Inventory) {
	var parts []string
	for _, l := range inv.Largest(3) {
		parts = append(parts, fmt.Sprintf("%s (%v)", l.Name, l.Bytes))
	}
	fmt.Fprintf(w, "\n%s\n", wrapText("largest lines: "+strings.Join(parts, "; "), textWidth, "  "))
}

// writeLevers prints what would shrink the peak; why each change helps
// only with wide, so the table keeps to textWidth columns.
func writeLevers(w io.Writer, levers []costmodel.Lever, wide bool) {
	if len(levers) == 0 {
		fmt.Fprintln(w, "no single change to this plan lowers the peak; try more GPUs or a smaller model")
		return
	}
	fmt.Fprintln(w, "what would shrink it (peak per GPU after the change; step time and tokens/s per GPU when it fits):")
	for _, l := range levers {
		fit, speed := "still over", ""
		if l.Fits {
			fit, speed = "fits", fmt.Sprintf("%v, %s", l.StepTime, hardware.Grouped(l.TokensPerSecondPerGPU))
		}
		why := ""
		if wide {
			why = l.Why
		}
		change := l.Change
		if len(change) > 28 { // on a line of its own, the numbers below it
			fmt.Fprintf(w, "  %s\n", change)
			change = ""
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-28s %10v  %-10s  %-18s  %s", change, l.Peak, fit, speed, why), " "))
	}
}

// describeModel is a one-line summary of a model's shape.
func describeModel(m *costmodel.Model) string {
	p := m.Params()
	s := fmt.Sprintf("%s params; %d layers, hidden %d, %d heads (%d KV), FFN %d, vocab %d",
		costmodel.FormatCount(p.Total), m.Layers, m.Hidden, m.Heads, m.KVHeads, m.FFN, m.Vocab)
	if m.MoE != nil {
		s = fmt.Sprintf("%s params (%s active); %d layers, hidden %d, %d heads (%d KV), %d experts top-%d of FFN %d, vocab %d",
			costmodel.FormatCount(p.Total), costmodel.FormatCount(p.Active), m.Layers, m.Hidden, m.Heads, m.KVHeads,
			m.MoE.Experts, m.MoE.TopK, m.MoE.ExpertFFN, m.Vocab)
	}
	return s
}

func describeCluster(c hardware.Cluster) string {
	return fmt.Sprintf("%s: %v HBM per GPU (driver-reported; %s quoted), %v bf16 dense",
		c, c.GPU.HBM, c.GPU.HBMQuoted, c.GPU.PeakBF16)
}

// stageOf names pipeline stage s of pp as the JSON numbers them, from 0:
// "pipeline stage 3 of 0-3".
func stageOf(s, pp int) string {
	return fmt.Sprintf("pipeline stage %d of 0-%d", s, pp-1)
}

// plural returns "1 micro-batch" or "4 micro-batches".
func plural(n int, one, many string) string {
	return hardware.Plural(n, one, many)
}

func writeAssumptions(w io.Writer, a costmodel.Assumptions) {
	s := fmt.Sprintf("assumptions: HBM budget %g%%, CUDA context %v, %s, training workspace %v, serving workspace %v, fragmentation %g%%",
		100*a.HBMFraction, a.CUDAContext, a.NCCLSummary(), a.TrainWorkspace, a.ServeWorkspace, 100*a.Fragmentation)
	if a.GradAccumFP32 {
		s += ", fp32 gradients"
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(s, textWidth, "  "))
}

func writeNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, wrapText("note: "+n, textWidth, "  "))
	}
}
