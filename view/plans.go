package view

import (
	"fmt"
	"html"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// PlanRow is one row of a plans table: a plan the search ranked, its
// place in the ranking and an optional note, so that a table can show
// the best plans and, below them, a reference plan from further down
// ("Meta's layout", rank 81).
type PlanRow struct {
	Rank int
	Note string
	Plan search.Ranked
}

// PlansTable writes plans as the search ranked them, best first,
// numbered from 1 (PlanRows).
func PlansTable(caption string, plans []search.Ranked) string {
	rows := make([]PlanRow, len(plans))
	for i, p := range plans {
		rows[i] = PlanRow{Rank: i + 1, Plan: p}
	}
	return PlanRows(caption, rows...)
}

// PlanRows writes one row per plan: its rank, the plan, the GPUs, the
// peak memory per GPU and the headroom under the budget, the step time
// and the part of it the pipeline idles (bubble), tokens/s per GPU, MFU,
// and the communication time left on the critical path with the slowest
// link tier that carries it. A note column appears when a row has a note.
func PlanRows(caption string, rows ...PlanRow) string {
	head := []string{"#", "plan", "GPUs", "peak per GPU", "headroom", "step time", "bubble",
		"tokens/s per GPU", "MFU", "exposed comm", "tier"}
	cls := []string{"num", "", "num", "num", "num", "num", "num", "num", "num", "num", ""}
	notes := false
	for _, r := range rows {
		notes = notes || r.Note != ""
	}
	if notes {
		head, cls = append(head, "note"), append(cls, "")
	}
	body := make([]row, 0, len(rows))
	for _, r := range rows {
		p, pf := r.Plan, r.Plan.Performance
		headroom := p.Headroom.String()
		if p.Headroom < 0 {
			headroom = `<span class="bad">` + headroom + `</span>`
		}
		cells := []string{strconv.Itoa(r.Rank), "<code>" + html.EscapeString(p.PlanString) + "</code>", hardware.Thousands(p.GPUs),
			p.Peak.String(), headroom, pf.StepTime.String(), pf.Breakdown.Bubble.String(),
			hardware.Grouped(pf.TokensPerSecondPerGPU), percent(pf.MFU), pf.ExposedComm.String(), exposedTier(pf)}
		if notes {
			cells = append(cells, html.EscapeString(r.Note))
		}
		body = append(body, row{cells, cls})
	}
	return table(caption, head, cls, body, nil)
}

// exposedTier names the slowest tier with exposed traffic, or a dash
// when nothing is exposed.
func exposedTier(p costmodel.Performance) string {
	if p.ExposedComm == 0 {
		return "–"
	}
	return p.ExposedTier.String()
}

// percent writes a fraction as a percentage with one decimal.
func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// TrafficTable writes the collectives of one training step as one GPU
// of the slowest pipeline stage sees them (costmodel.Report.Traffic):
// what each moves, over which tier and group, the bytes this GPU sends
// and the part of them that crosses the network, the time per step, the
// part of it left exposed on the critical path, what hides the rest, and
// the source of the count. The footer sums the columns.
func TrafficTable(caption string, lines []costmodel.TrafficLine) string {
	head := []string{"collective", "operation", "tier", "group", "bytes per GPU", "over the network", "time", "exposed", "hidden behind", "source"}
	cls := []string{"", "", "", "", "num", "num", "num", "num", "", "src"}
	body := make([]row, 0, len(lines))
	var t costmodel.TrafficLine
	for _, l := range lines {
		body = append(body, row{[]string{html.EscapeString(l.Name), l.Collective.String(), l.Tier.String(), html.EscapeString(l.Group),
			l.Bytes.String(), l.NetworkBytes.String(), l.Time.String(), l.Exposed.String(), html.EscapeString(l.OverlapsWith),
			html.EscapeString(l.Source)}, cls})
		t.Bytes, t.NetworkBytes, t.Time, t.Exposed = t.Bytes+l.Bytes, t.NetworkBytes+l.NetworkBytes, t.Time+l.Time, t.Exposed+l.Exposed
	}
	foot := []row{{[]string{"total", "", "", fmt.Sprintf("%d collectives", len(lines)), t.Bytes.String(), t.NetworkBytes.String(),
		t.Time.String(), t.Exposed.String(), "", ""}, cls}}
	return table(caption, head, cls, body, foot)
}
