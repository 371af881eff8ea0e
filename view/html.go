package view

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// tableStyle is inlined with every table so an exported notebook keeps
// its look without a stylesheet. The alignments are !important because
// Jupyter's own stylesheet right-aligns every table cell of an output
// with a more specific selector.
const tableStyle = `<style>
table.planner{border-collapse:collapse;font:13px/1.4 system-ui,sans-serif;margin:6px 0}
table.planner caption{font-weight:600;text-align:left;padding:2px 0}
table.planner th,table.planner td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left!important;vertical-align:top}
table.planner thead th{border-bottom:2px solid #888}
table.planner tfoot td,table.planner tfoot th{border-top:2px solid #888;font-weight:600}
table.planner .num{text-align:right!important;white-space:nowrap;font-variant-numeric:tabular-nums}
table.planner .src{color:#666;font-size:11px}
table.planner code{white-space:nowrap}
table.planner .bad{color:#b00}
table.planner .good{color:#070}
</style>
`

// row builds one table row; cells are raw HTML, already escaped.
type row struct {
	cells   []string
	classes []string
}

func (r row) write(b *strings.Builder, tag string) {
	b.WriteString("<tr>")
	for i, c := range r.cells {
		cls := ""
		if i < len(r.classes) && r.classes[i] != "" {
			cls = ` class="` + r.classes[i] + `"`
		}
		fmt.Fprintf(b, "<%s%s>%s</%s>", tag, cls, c, tag)
	}
	b.WriteString("</tr>\n")
}

// table writes a styled table with a caption, header, body and footer.
func table(caption string, head []string, headClass []string, body, foot []row) string {
	var b strings.Builder
	b.WriteString(tableStyle)
	b.WriteString(`<table class="planner">` + "\n")
	if caption != "" {
		b.WriteString("<caption>" + html.EscapeString(caption) + "</caption>\n")
	}
	b.WriteString("<thead>")
	esc := make([]string, len(head))
	for i, h := range head {
		esc[i] = html.EscapeString(h)
	}
	row{esc, headClass}.write(&b, "th")
	b.WriteString("</thead>\n<tbody>\n")
	for _, r := range body {
		r.write(&b, "td")
	}
	b.WriteString("</tbody>\n")
	if len(foot) > 0 {
		b.WriteString("<tfoot>\n")
		for _, r := range foot {
			r.write(&b, "td")
		}
		b.WriteString("</tfoot>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}

// Table writes rows of text as an HTML table under a caption. Cells are
// escaped; cells that read as numbers ("16.1 GB", "8x", "0.5") are right
// aligned.
func Table(caption string, header []string, rows ...[]string) string {
	body := make([]row, len(rows))
	for i, r := range rows {
		cells := make([]string, len(r))
		classes := make([]string, len(r))
		for j, c := range r {
			cells[j] = html.EscapeString(c)
			if numeric(c) {
				classes[j] = "num"
			}
		}
		body[i] = row{cells, classes}
	}
	return table(caption, header, nil, body, nil)
}

// numeric reports whether a cell reads as a number: it starts like one
// and has at most a unit and a note after it ("16.1 GB", "4.50 s (62%)"),
// so that a label that merely starts with a digit ("1. fp8 on 8 H100")
// stays left aligned.
func numeric(s string) bool {
	s = strings.TrimLeft(s, "+-−~≈ ")
	return s != "" && s[0] >= '0' && s[0] <= '9' && len(strings.Fields(s)) <= 3
}

// InventoryTable writes a memory inventory line by line (what, group,
// bytes per GPU, share of the total, formula, source) with the total, the
// budget, the headroom and whether it fits.
func InventoryTable(inv costmodel.Inventory) string {
	cls := []string{"", "", "num", "num", "", "src"}
	body := make([]row, 0, len(inv.Lines))
	for _, l := range inv.Lines {
		body = append(body, row{[]string{html.EscapeString(l.Name), html.EscapeString(l.Group),
			l.Bytes.String(), share(l.Bytes, inv.Total), html.EscapeString(l.Formula), html.EscapeString(l.Source)}, cls})
	}
	verdict := `<span class="good">fits</span>`
	if !inv.Fits {
		verdict = `<span class="bad">does not fit</span>`
	}
	budget := "0%"
	if inv.Capacity > 0 {
		budget = fmt.Sprintf("%.0f%%", 100*float64(inv.Budget/inv.Capacity))
	}
	foot := []row{
		{[]string{"total", "", inv.Total.String(), share(inv.Total, inv.Budget), "of the budget", ""}, cls},
		{[]string{"budget", "", inv.Budget.String(), "", budget + " of " + inv.Capacity.String() + " HBM", ""}, cls},
		{[]string{"headroom", "", inv.Headroom.String(), "", verdict, ""}, cls},
	}
	return table("", []string{"memory per GPU", "group", "bytes", "share", "formula", "source"}, cls, body, foot)
}

// share writes part/whole as a percentage.
func share(part, whole hardware.Bytes) string {
	if whole <= 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part/whole))
}

// ActivationsTable writes the tensors one layer saves for its backward
// pass (costmodel.LayerActivations): name, block, formula in Korthikanti
// et al.'s symbols, bytes per GPU and micro-batch, and whether the plan's
// recompute policy drops it. The footer sums what is kept.
func ActivationsTable(ts []costmodel.ActivationTensor) string {
	cls := []string{"", "", "", "num", ""}
	body := make([]row, 0, len(ts))
	var kept, all hardware.Bytes
	for _, t := range ts {
		status := "kept"
		if t.Recomputed {
			status = "recomputed"
		} else {
			kept += t.Bytes
		}
		all += t.Bytes
		f := html.EscapeString(t.Formula)
		if t.Quadratic {
			f = "<b>" + f + "</b>"
		}
		body = append(body, row{[]string{html.EscapeString(t.Name), html.EscapeString(t.Block), f, t.Bytes.String(), status}, cls})
	}
	foot := []row{{[]string{"saved per layer", "", "", kept.String(), "of " + all.String()}, cls}}
	return table("", []string{"tensor saved for backward", "block", "bytes (formula)", "bytes", "recompute"}, cls, body, foot)
}
