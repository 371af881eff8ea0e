package main

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpu-planner/planner/view"
)

// pageStyle is the document's own stylesheet, inline so the file stands
// alone.
const pageStyle = `<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:1180px;margin:24px auto;padding:0 16px;color:#222;background:#fff}
h1{font-size:26px;margin:0 0 8px}h2{font-size:20px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}
pre{background:#f4f4f4;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:12px}
nav a{margin-right:12px}.chart{margin:8px 0}.err{color:#b00}
</style>
`

// html writes the review as one self-contained HTML document.
func (rv *review) html() string {
	var b strings.Builder
	title := fmt.Sprintf("Architecture review: %s on %s", rv.m.Name, rv.r.GPU)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n%s</head>\n<body>\n<h1>%s</h1>\n<nav>",
		html.EscapeString(title), pageStyle, html.EscapeString(title))
	secs := rv.sections()
	for _, s := range secs {
		fmt.Fprintf(&b, `<a href="#%s">%s</a>`, s.id, html.EscapeString(s.title))
	}
	b.WriteString("</nav>\n")
	for _, s := range secs {
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s</h2>\n", s.id, html.EscapeString(s.title))
		for _, p := range s.paras {
			fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
		}
		for _, c := range s.charts {
			if c.err != nil {
				fmt.Fprintf(&b, "<p class=\"err\">chart not drawn: %s</p>\n", html.EscapeString(c.err.Error()))
				continue
			}
			fmt.Fprintf(&b, "<div class=\"chart\">%s</div>\n", c.svg)
		}
		for _, t := range s.tables {
			b.WriteString(view.Table(t.caption, t.header, t.rows...))
		}
		for _, k := range s.blocks {
			fmt.Fprintf(&b, "<h3>%s</h3>\n<pre>%s</pre>\n", html.EscapeString(k.title), html.EscapeString(k.text))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// markdown writes the review as Markdown; the charts are the HTML
// version's, their numbers are in the tables.
func (rv *review) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Architecture review: %s on %s\n", rv.m.Name, rv.r.GPU)
	for _, s := range rv.sections() {
		fmt.Fprintf(&b, "\n## %s\n", s.title)
		for _, p := range s.paras {
			fmt.Fprintf(&b, "\n%s\n", p)
		}
		if len(s.charts) > 0 {
			b.WriteString("\n(Charts: see the HTML version, `--format html`.)\n")
		}
		for _, t := range s.tables {
			writeMarkdownTable(&b, t)
		}
		for _, k := range s.blocks {
			fmt.Fprintf(&b, "\n### %s\n\n```\n%s```\n", k.title, k.text)
		}
	}
	return b.String()
}

func writeMarkdownTable(b *strings.Builder, t tableData) {
	b.WriteString("\n")
	if t.caption != "" {
		fmt.Fprintf(b, "%s:\n\n", t.caption)
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	head := make([]string, len(t.header))
	for i, h := range t.header {
		head[i] = cell(h)
	}
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(t.header)))
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(c)
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
}
