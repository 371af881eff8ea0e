package view

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Chart size: wide enough for a notebook cell, small enough to read
// beside its table.
const (
	chartWidth  = 7 * vg.Inch
	chartHeight = 4 * vg.Inch
)

// Colors of the inventory groups and reference lines, fixed so every
// chart of a notebook uses the same color for the same thing.
var (
	groupColors = map[string]color.RGBA{
		costmodel.GroupStates:      {R: 0x4c, G: 0x72, B: 0xb0, A: 0xff},
		costmodel.GroupActivations: {R: 0xdd, G: 0x84, B: 0x52, A: 0xff},
		costmodel.GroupKV:          {R: 0x55, G: 0xa8, B: 0x68, A: 0xff},
		costmodel.GroupOverheads:   {R: 0x93, G: 0x93, B: 0x93, A: 0xff},
	}
	// groupOrder stacks the groups bottom to top.
	groupOrder  = []string{costmodel.GroupStates, costmodel.GroupKV, costmodel.GroupActivations, costmodel.GroupOverheads}
	budgetColor = color.RGBA{R: 0xc4, G: 0x2e, B: 0x32, A: 0xff}
	hbmColor    = color.RGBA{A: 0xff}
	seriesColor = []color.RGBA{
		{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}, {R: 0xdd, G: 0x84, B: 0x52, A: 0xff},
		{R: 0x55, G: 0xa8, B: 0x68, A: 0xff}, {R: 0x81, G: 0x72, B: 0xb3, A: 0xff},
		{R: 0x93, G: 0x78, B: 0x60, A: 0xff}, {R: 0xda, G: 0x8b, B: 0xc3, A: 0xff},
	}
)

// gb converts bytes to the charts' unit, decimal GB (the display rule).
func gb(b hardware.Bytes) float64 { return float64(b) / float64(hardware.GB) }

// newPlot returns a plot with the project's title and axis labels.
func newPlot(title, xLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = "GB per GPU"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(-6)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker, p.Y.Tick.Marker = readableTicks{}, readableTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	return p
}

// legendShare is the share of a chart's data area, from the top, that a
// legend of n entries takes: one 12-point line each and a margin, of about
// 230 points of height.
func legendShare(n int) float64 { return min(0.55, (12*float64(n)+10)/230) }

// roomForLegend raises the top of p's y axis so that the legend of n
// entries, in the top left corner, sits above every data point instead of
// over them. On a log axis the room is the same share of the decades.
func roomForLegend(p *plot.Plot, n int, logY bool) {
	share := legendShare(n)
	if !logY {
		p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/(1-share)
		return
	}
	p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, share/(1-share))
}

// readableTicks are gonum's default tick positions with labels as the
// prose writes numbers: no trailing zeros ("250", not "250.00") and
// thousands separated by commas ("10,000").
type readableTicks struct{}

func (readableTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = readable(t.Value)
		}
	}
	return ticks
}

// readable writes v with at most four significant digits, and whole
// numbers of 1,000 or more with comma separators.
func readable(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) >= 1000 && math.Abs(v) < 1e15 {
		return hardware.Thousands(int(v))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// render draws p as an SVG document without the XML declaration, so it
// can be inlined in HTML.
func render(p *plot.Plot) (string, error) {
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("render: writing SVG: %w", err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s, nil
}

// hline is a horizontal line at y from x0 to x1.
func hline(x0, x1, y float64, c color.Color, dashed bool) *plotter.Line {
	l := &plotter.Line{XYs: plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}}
	l.Color = c
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return l
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// countLabel writes a tick value compactly: 1024 multiples as "8k",
// other values as they are.
func countLabel(x float64) string {
	if x >= 1024 && math.Mod(x, 1024) == 0 {
		return strconv.FormatFloat(x/1024, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// labelChars is about how many characters of tick text fit across a
// chart's plotting area.
const labelChars = 78

// barLabels wraps each label of n bars at spaces so that no line is
// wider than the bar's share of the chart, and neighbouring labels
// neither overlap nor run off the chart's edge.
func barLabels(labels []string) []string {
	width := max(10, labelChars/max(len(labels), 1)-2)
	out := make([]string, len(labels))
	for i, l := range labels {
		var lines []string
		line := ""
		for _, w := range strings.Fields(l) {
			if line != "" && len(line)+1+len(w) > width {
				lines, line = append(lines, line), w
				continue
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out[i] = strings.Join(append(lines, line), "\n")
	}
	return out
}
