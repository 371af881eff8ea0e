package view

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpu-planner/planner/hardware"
)

// Series is one line of a MemoryChart: memory per GPU at each X.
type Series struct {
	Name string
	X    []float64
	Y    []hardware.Bytes
}

// Limit is a horizontal reference line, such as the HBM budget.
type Limit struct {
	Name  string
	Bytes hardware.Bytes
}

// MemoryChart is memory per GPU against one variable (GPU count, context
// length, ...), one line per series, with reference lines. Build one by
// hand or with ZeROChart or KVChart; SVG draws it.
type MemoryChart struct {
	Title, XLabel string
	// LogX and LogY use logarithmic axes; every value on them must be
	// positive. A log x axis is ticked at the series' x values.
	LogX, LogY bool
	Series     []Series
	Limits     []Limit
}

// SVG draws the chart as an SVG document.
func (c MemoryChart) SVG() (string, error) {
	if err := c.validate(); err != nil {
		return "", err
	}
	p := newPlot(c.Title, c.XLabel)
	var xs []float64
	for i, s := range c.Series {
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: gb(s.Y[j])}
		}
		xs = append(xs, s.X...)
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return "", fmt.Errorf("render: series %q: %w", s.Name, err)
		}
		col := seriesColor[i%len(seriesColor)]
		l.Color, l.Width = col, vg.Points(1.5)
		pts.Color, pts.Shape = col, draw.CircleGlyph{}
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	for i, lim := range c.Limits {
		col, dashed := budgetColor, true
		if i > 0 {
			col, dashed = hbmColor, false
		}
		l := hline(xs[0], xs[len(xs)-1], gb(lim.Bytes), col, dashed)
		p.Add(l)
		p.Legend.Add(lim.Name, l)
	}
	c.axes(p, xs)
	roomForLegend(p, len(c.Series)+len(c.Limits), c.LogY)
	return render(p)
}

// axes sets the scales and ticks.
func (c MemoryChart) axes(p *plot.Plot, xs []float64) {
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		ticks := make(plot.ConstantTicks, len(xs))
		for i, x := range xs {
			ticks[i] = plot.Tick{Value: x, Label: countLabel(x)}
		}
		p.X.Tick.Marker = ticks
		// Room for the first and last tick labels.
		p.X.Min, p.X.Max = xs[0]/1.25, xs[len(xs)-1]*1.25
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		return
	}
	p.Y.Min = 0
}

// validate checks that the chart can be drawn.
func (c MemoryChart) validate() error {
	if len(c.Series) == 0 {
		return fmt.Errorf("render: chart %q has no series", c.Title)
	}
	for _, s := range c.Series {
		if len(s.X) == 0 || len(s.X) != len(s.Y) {
			return fmt.Errorf("render: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		for j := range s.X {
			x, y := s.X[j], float64(s.Y[j])
			if !finite(x, y) || c.LogX && x <= 0 || c.LogY && y <= 0 {
				return fmt.Errorf("render: series %q: point (%g, %g) is not finite or not positive on a log axis", s.Name, x, y)
			}
		}
	}
	for _, l := range c.Limits {
		if !finite(float64(l.Bytes)) || c.LogY && l.Bytes <= 0 {
			return fmt.Errorf("render: limit %q of %g bytes cannot be drawn", l.Name, float64(l.Bytes))
		}
	}
	return nil
}
