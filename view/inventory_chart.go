package view

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpu-planner/planner/costmodel"
)

// InventoryBar is one bar of an inventory chart: a label under the bar
// and the per-GPU inventory it stacks.
type InventoryBar struct {
	Label  string
	Memory costmodel.Inventory
}

// InventoryChart draws each inventory as one bar stacked by group (model
// states, KV cache, activations, overheads, bottom to top), labels it with
// its total, and marks each bar's HBM budget (dashed) and the
// driver-reported capacity (solid), so that whether a plan fits reads off
// the chart. It returns an SVG document.
func InventoryChart(title string, bars ...InventoryBar) (string, error) {
	if len(bars) == 0 {
		return "", fmt.Errorf("render: inventory chart %q has no bars", title)
	}
	p := newPlot(title, "")
	labels := make([]string, len(bars))
	for i, b := range bars {
		labels[i] = b.Label
		if !finite(float64(b.Memory.Total), float64(b.Memory.Budget), float64(b.Memory.Capacity)) {
			return "", fmt.Errorf("render: bar %q has a non-finite total, budget or capacity", b.Label)
		}
	}
	width := vg.Points(min(60, 300/float64(len(bars))))
	var below *plotter.BarChart
	for _, g := range groupOrder {
		vals := make(plotter.Values, len(bars))
		for i, b := range bars {
			vals[i] = gb(b.Memory.Group(g))
		}
		if allZero(vals) {
			continue
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return "", fmt.Errorf("render: bar chart: %w", err)
		}
		bc.Color = groupColors[g]
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(g, bc)
	}
	addLimits(p, bars)
	if err := addTotals(p, bars); err != nil {
		return "", err
	}
	p.NominalX(barLabels(labels)...)
	// A whole slot per bar, so the labels under the end bars stay inside.
	p.X.Min, p.X.Max = -0.5, float64(len(bars))-0.5
	p.Y.Min = 0
	roomForLegend(p, len(groupOrder)+2, false) // the groups, the budget and the HBM
	return render(p)
}

// addLimits marks each bar's budget and capacity across the bar.
func addLimits(p *plot.Plot, bars []InventoryBar) {
	for i, b := range bars {
		x := float64(i)
		budget := hline(x-0.42, x+0.42, gb(b.Memory.Budget), budgetColor, true)
		hbm := hline(x-0.42, x+0.42, gb(b.Memory.Capacity), hbmColor, false)
		hbm.Width = vg.Points(1)
		p.Add(budget, hbm)
		if i == 0 {
			p.Legend.Add(fmt.Sprintf("budget (%.0f%% of HBM)", 100*float64(b.Memory.Budget/b.Memory.Capacity)), budget)
			p.Legend.Add("HBM capacity", hbm)
		}
	}
}

// addTotals writes each bar's total above it.
func addTotals(p *plot.Plot, bars []InventoryBar) error {
	ys := make([]float64, len(bars))
	labels := make([]string, len(bars))
	for i, b := range bars {
		ys[i], labels[i] = gb(b.Memory.Total), b.Memory.Total.String()
	}
	return addBarLabels(p, ys, labels)
}

// addBarLabels writes labels[i] centered above the top ys[i] of bar i.
func addBarLabels(p *plot.Plot, ys []float64, labels []string) error {
	xy := plotter.XYLabels{XYs: make(plotter.XYs, len(ys)), Labels: labels}
	for i, y := range ys {
		xy.XYs[i] = plotter.XY{X: float64(i), Y: y}
	}
	l, err := plotter.NewLabels(xy)
	if err != nil {
		return fmt.Errorf("render: bar labels: %w", err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YBottom
	}
	p.Add(l)
	return nil
}

func allZero(vs plotter.Values) bool {
	for _, v := range vs {
		if v != 0 {
			return false
		}
	}
	return true
}
