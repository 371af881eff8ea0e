package main

import (
	"fmt"
	"io"
	"strings"
)

// textWidth is the width human output keeps to by default: prose wraps
// at it, and tables drop their least needed columns (--wide shows them).
const textWidth = 100

// wrapText breaks s at spaces into lines of at most width columns (a
// word longer than that stands alone), indenting every line after the
// first with indent; the first line is taken to start at the indent's
// column too (after a label of that width, or a little early).
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	col := len(indent)
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// header prints a labelled header line ("model    ...") wrapped under its
// text.
func header(w io.Writer, label, text string) {
	fmt.Fprintf(w, "%-8s %s\n", label, wrapText(text, textWidth, strings.Repeat(" ", 9)))
}
