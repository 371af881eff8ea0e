package view

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// StepBar is one plan's speed, labeled, for StepTimeChart and
// StepTimeTable.
type StepBar struct {
	Label       string
	Performance costmodel.Performance
}

// stepPart is one part of costmodel.StepTime, in the order the chart
// stacks them (bottom to top) and the table lists them.
type stepPart struct {
	name  string
	color color.RGBA
	of    func(costmodel.StepTime) hardware.Seconds
}

var stepParts = []stepPart{
	{"compute", color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.Compute }},
	{"recompute", color.RGBA{R: 0x9d, G: 0xb4, B: 0xd8, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.Recompute }},
	{"pipeline bubble", color.RGBA{R: 0xb8, G: 0xb8, B: 0xb8, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.Bubble }},
	{"exposed tp", color.RGBA{R: 0xdd, G: 0x84, B: 0x52, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedTP }},
	{"exposed cp", color.RGBA{R: 0xe6, G: 0xb3, B: 0x3d, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedCP }},
	{"exposed pp", color.RGBA{R: 0x93, G: 0x78, B: 0x60, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedPP }},
	{"exposed dp gradients", color.RGBA{R: 0xc4, G: 0x4e, B: 0x52, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedDPGrads }},
	{"exposed dp weights", color.RGBA{R: 0xda, G: 0x8b, B: 0xc3, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedDPParams }},
	{"exposed ep all-to-all", color.RGBA{R: 0x8c, G: 0x61, B: 0x9e, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.ExposedEP }},
	{"optimizer", color.RGBA{R: 0x55, G: 0xa8, B: 0x68, A: 0xff}, func(s costmodel.StepTime) hardware.Seconds { return s.Optimizer }},
}

// StepTimeChart draws each plan's step time as one bar stacked by part
// (costmodel.StepTime: compute, recompute, pipeline bubble, exposed
// communication by kind, optimizer, bottom to top), labeled with its
// total, so that what separates two plans reads off the chart. Parts that
// are zero in every bar are left out of the legend. It returns an SVG
// document.
func StepTimeChart(title string, bars ...StepBar) (string, error) {
	if len(bars) == 0 {
		return "", fmt.Errorf("render: step-time chart %q has no bars", title)
	}
	labels := make([]string, len(bars))
	for i, b := range bars {
		labels[i] = b.Label
		if s := b.Performance.Breakdown; !finite(float64(s.Total)) || s.Total <= 0 {
			return "", fmt.Errorf("render: bar %q has a step time of %v", b.Label, s.Total)
		}
	}
	p := newPlot(title, "")
	p.Y.Label.Text = "seconds per step"
	width := vg.Points(min(60, 300/float64(len(bars))))
	var below *plotter.BarChart
	entries := 0
	for _, part := range stepParts {
		vals := make(plotter.Values, len(bars))
		for i, b := range bars {
			vals[i] = float64(part.of(b.Performance.Breakdown))
		}
		if allZero(vals) {
			continue
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return "", fmt.Errorf("render: bar chart: %w", err)
		}
		bc.Color, bc.LineStyle.Width = part.color, 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(part.name, bc)
		entries++
	}
	totals := make([]float64, len(bars))
	names := make([]string, len(bars))
	for i, b := range bars {
		totals[i], names[i] = float64(b.Performance.StepTime), b.Performance.StepTime.String()
	}
	if err := addBarLabels(p, totals, names); err != nil {
		return "", err
	}
	p.NominalX(barLabels(labels)...)
	// A whole slot per bar, so the labels under the end bars stay inside.
	p.X.Min, p.X.Max = -0.5, float64(len(bars))-0.5
	p.Y.Min = 0
	roomForLegend(p, entries, false)
	return render(p)
}

// StepTimeTable lists the parts of each plan's step side by side, each
// with its share of the step, then the step, tokens/s per GPU and MFU.
// Parts that are zero in every plan are left out.
func StepTimeTable(bars ...StepBar) string {
	head := []string{"part of the step"}
	cls := []string{""}
	for _, b := range bars {
		head, cls = append(head, b.Label), append(cls, "num")
	}
	var body []row
	for _, part := range stepParts {
		cells := []string{part.name}
		nonzero := false
		for _, b := range bars {
			v, step := part.of(b.Performance.Breakdown), b.Performance.StepTime
			nonzero = nonzero || v != 0
			cells = append(cells, fmt.Sprintf("%v (%s)", v, percent(float64(v/step))))
		}
		if nonzero {
			body = append(body, row{cells, cls})
		}
	}
	step := []string{"step"}
	rate := []string{"tokens/s per GPU"}
	mfu := []string{"MFU"}
	for _, b := range bars {
		pf := b.Performance
		step = append(step, pf.StepTime.String())
		rate = append(rate, hardware.Grouped(pf.TokensPerSecondPerGPU))
		mfu = append(mfu, percent(pf.MFU))
	}
	foot := []row{{step, cls}, {rate, cls}, {mfu, cls}}
	return table("", head, cls, body, foot)
}
