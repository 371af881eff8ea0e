package view

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// Mark is a labeled plan drawn beside a frontier, such as a published
// layout on the same job.
type Mark struct {
	Label string
	Plan  search.Ranked
}

// FrontierChart draws the Pareto frontier of a search (search.Result's
// Frontier: the best plan of each GPU count that is faster than every
// smaller count's) as tokens/s against GPUs on log-log axes, with the
// line of perfect scaling through its most efficient count (the most
// tokens/s per GPU) dashed, so that the distance below the line is the
// efficiency lost at each count: to recomputation where memory is short,
// to the bubble and to communication where a fixed global batch is spread
// over more GPUs. Marks are drawn as labeled points. It returns an SVG
// document.
func FrontierChart(title string, frontier []search.Ranked, marks ...Mark) (string, error) {
	if len(frontier) == 0 {
		return "", fmt.Errorf("kernel: frontier chart %q has no plans", title)
	}
	xys := make(plotter.XYs, len(frontier))
	for i, r := range frontier {
		xys[i] = plotter.XY{X: float64(r.GPUs), Y: r.Performance.TokensPerSecond}
	}
	for _, m := range marks {
		xys = append(xys, plotter.XY{X: float64(m.Plan.GPUs), Y: m.Plan.Performance.TokensPerSecond})
	}
	for _, xy := range xys {
		if !finite(xy.X, xy.Y) || xy.X <= 0 || xy.Y <= 0 {
			return "", fmt.Errorf("kernel: frontier point (%g GPUs, %g tokens/s) is not positive and finite", xy.X, xy.Y)
		}
	}
	p := newPlot(title, "GPUs")
	p.Y.Label.Text = "tokens per second"
	front := xys[:len(frontier)]
	l, pts, err := plotter.NewLinePoints(front)
	if err != nil {
		return "", fmt.Errorf("kernel: frontier: %w", err)
	}
	l.Color, l.Width = seriesColor[0], vg.Points(1.5)
	pts.Color, pts.Shape, pts.Radius = seriesColor[0], draw.CircleGlyph{}, vg.Points(2)
	best := front[0]
	for _, xy := range front {
		if xy.Y/xy.X > best.Y/best.X {
			best = xy
		}
	}
	x0, x1, perGPU := front[0].X, front[len(front)-1].X, best.Y/best.X
	ideal := hline(x0, x1, 0, hbmColor, true)
	ideal.XYs = plotter.XYs{{X: x0, Y: perGPU * x0}, {X: x1, Y: perGPU * x1}}
	ideal.Width = vg.Points(1)
	p.Add(ideal, l, pts)
	p.Legend.Add("best plan of each count (frontier)", l, pts)
	p.Legend.Add(fmt.Sprintf("perfect scaling at the most efficient count (%s GPUs)", hardware.Thousands(int(best.X))), ideal)
	if err := addMarks(p, xys[len(frontier):], marks); err != nil {
		return "", err
	}
	logAxes(p, xys, perGPU*x1)
	return render(p)
}

// addMarks draws the marks as labeled points.
func addMarks(p *plot.Plot, xys plotter.XYs, marks []Mark) error {
	for i, m := range marks {
		col := seriesColor[(i+1)%len(seriesColor)]
		sc, err := plotter.NewScatter(xys[i : i+1])
		if err != nil {
			return fmt.Errorf("kernel: mark %q: %w", m.Label, err)
		}
		sc.Color, sc.Shape, sc.Radius = col, draw.BoxGlyph{}, vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(m.Label, sc)
	}
	return nil
}

// logAxes puts both axes on log scales ticked at powers of two (GPUs)
// and of ten (tokens/s), with room above for the legend.
func logAxes(p *plot.Plot, xys plotter.XYs, yTop float64) {
	xMin, xMax, yMin, yMax := math.Inf(1), math.Inf(-1), math.Inf(1), yTop
	for _, xy := range xys {
		xMin, xMax = min(xMin, xy.X), max(xMax, xy.X)
		yMin, yMax = min(yMin, xy.Y), max(yMax, xy.Y)
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	var xt, yt plot.ConstantTicks
	for v := math.Exp2(math.Floor(math.Log2(xMin))); v <= xMax*1.0001; v *= 2 {
		xt = append(xt, plot.Tick{Value: v, Label: countLabel(v)})
	}
	for v := math.Pow(10, math.Floor(math.Log10(yMin))); v <= yMax*10; v *= 10 {
		yt = append(yt, plot.Tick{Value: v, Label: rateLabel(v)})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	p.X.Min, p.X.Max = xt[0].Value/1.1, xMax*1.25
	p.Y.Min, p.Y.Max = yMin/1.5, yMax*6
}

// rateLabel writes a power of ten compactly: "10 k", "1 M".
func rateLabel(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%g G", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%g M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%g k", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}
