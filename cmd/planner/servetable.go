package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// tableStyle is how `planner serve` lays out its output: aligned text
// for a terminal, or Markdown for a document.
type tableStyle int

const (
	textStyle tableStyle = iota
	markdownStyle
	// wideStyle is textStyle with every column of every table (--wide).
	wideStyle
)

// table is a header and rows of cells; right marks the columns aligned
// to the right (numbers) in text; optional the columns textStyle leaves
// out to keep to textWidth (wideStyle and Markdown show them).
type table struct {
	header   []string
	right    []bool
	optional []bool
	rows     [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints t in style s.
func (t table) write(w io.Writer, s tableStyle) {
	if s == markdownStyle {
		t.markdown(w)
		return
	}
	widths := make([]int, len(t.header))
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range append([][]string{t.header}, t.rows...) {
		var b strings.Builder
		for i, c := range row {
			if s == textStyle && i < len(t.optional) && t.optional[i] {
				continue
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, "  "+strings.TrimRight(b.String(), " "))
	}
}

func (t table) markdown(w io.Writer) {
	fmt.Fprintln(w, "| "+strings.Join(t.header, " | ")+" |")
	seps := make([]string, len(t.header))
	for i := range seps {
		seps[i] = "---"
		if i < len(t.right) && t.right[i] {
			seps[i] = "---:"
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
	for _, row := range t.rows {
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}

// heading opens a section.
func heading(w io.Writer, s tableStyle, text string) {
	if s == markdownStyle {
		fmt.Fprintf(w, "\n### %s\n\n", text)
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(text+":", textWidth, "  "))
}

// field prints one "key value" line of a header block.
func field(w io.Writer, s tableStyle, key, value string) {
	if s == markdownStyle {
		fmt.Fprintf(w, "- **%s** %s\n", key, value)
		return
	}
	header(w, key, value)
}

// line prints a sentence inside a section.
func line(w io.Writer, s tableStyle, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if s == markdownStyle {
		fmt.Fprintln(w, text+"  ")
		return
	}
	// Text wraps at textWidth, continuation lines two columns in from
	// the line's own indent.
	lead := "  " + text[:len(text)-len(strings.TrimLeft(text, " "))]
	fmt.Fprintln(w, lead+wrapText(text, textWidth, lead+"  "))
}
