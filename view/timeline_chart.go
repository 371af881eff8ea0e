package view

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// TimelineChart draws the memory of one pipeline stage over one training
// step (costmodel.StepTimeline): it ramps up during each forward as the
// micro-batch's activations are saved, stays up through each backward and
// drops when the backward frees them. The peak is marked, and the budget
// and the static memory (states and overheads) are drawn as lines.
func TimelineChart(title string, tl costmodel.Timeline, budget hardware.Bytes) (string, error) {
	if len(tl.Points) == 0 || tl.Peak < 0 || tl.Peak >= len(tl.Points) {
		return "", fmt.Errorf("render: timeline of stage %d has no points or no peak", tl.Stage)
	}
	p := newPlot(title, "time (one micro-batch forward = 1; waits left out)")
	// A forward ramps up from where the last pass ended; a backward holds
	// its largest until it ends and frees its micro-batch.
	xys := plotter.XYs{{X: 0, Y: gb(tl.Static)}}
	for _, pt := range tl.Points {
		if pt.Pass.Backward {
			xys = append(xys, plotter.XY{X: pt.Start, Y: gb(pt.Total)})
		}
		xys = append(xys, plotter.XY{X: pt.End, Y: gb(pt.Total)})
		if pt.After != pt.Total {
			xys = append(xys, plotter.XY{X: pt.End, Y: gb(pt.After)})
		}
	}
	end := tl.Points[len(tl.Points)-1].End
	for _, xy := range xys {
		if !finite(xy.X, xy.Y) {
			return "", fmt.Errorf("render: timeline point (%g, %g) is not finite", xy.X, xy.Y)
		}
	}
	mem, err := plotter.NewLine(xys)
	if err != nil {
		return "", fmt.Errorf("render: timeline: %w", err)
	}
	mem.Color, mem.Width = groupColors[costmodel.GroupActivations], vg.Points(1.5)
	mem.FillColor = lighter(groupColors[costmodel.GroupActivations])
	static := hline(0, end, gb(tl.Static), groupColors[costmodel.GroupStates], false)
	static.FillColor = lighter(groupColors[costmodel.GroupStates])
	limit := hline(0, end, gb(budget), budgetColor, true)
	p.Add(mem, static, limit)
	p.Legend.Add("activations saved for backward", mem)
	p.Legend.Add(fmt.Sprintf("states and overheads (%v)", tl.Static), static)
	p.Legend.Add(fmt.Sprintf("budget (%v)", budget), limit)
	if err := markPeak(p, tl); err != nil {
		return "", err
	}
	p.Y.Min = 0
	roomForLegend(p, 3, false)
	return render(p)
}

// markPeak puts a dot and a label on the peak.
func markPeak(p *plot.Plot, tl costmodel.Timeline) error {
	pk := tl.Points[tl.Peak]
	xy := plotter.XYs{{X: pk.Start, Y: gb(pk.Total)}}
	if !pk.Pass.Backward {
		xy[0].X = pk.End
	}
	dot, err := plotter.NewScatter(xy)
	if err != nil {
		return fmt.Errorf("render: peak: %w", err)
	}
	dot.Color, dot.Shape, dot.Radius = budgetColor, draw.CircleGlyph{}, vg.Points(3.5)
	lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: xy,
		Labels: []string{fmt.Sprintf("  peak %v at %v", pk.Total, pk.Pass)}})
	if err != nil {
		return fmt.Errorf("render: peak label: %w", err)
	}
	lbl.TextStyle[0].YAlign = draw.YBottom
	p.Add(dot, lbl)
	return nil
}

// lighter mixes c three quarters of the way to white, for filled areas under lines.
func lighter(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8((int(v) + 3*0xff) / 4) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xff}
}
