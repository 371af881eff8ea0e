package main

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The rule for numbers in prose: every number a markdown cell states with
// a unit (GB, GiB, MiB, KiB, TB, bytes, B for billions of parameters, %,
// ×, s, ms, tokens/s, GB/s, TFLOP/s, ...) must be among the outputs of
// the code cells next to it (the run of code cells just before it and the
// run just after it; for the chapter's opening and closing cells, which
// announce and sum up the chapter, any cell), in the
// same unit and to the precision the prose writes it: "296 GB" passes
// when a neighbouring cell printed a number within 0.5 of 296 followed by
// GB, or with no unit (a table column that names its unit in the header),
// but not "296 MiB".
// Numbers inside math ($...$), code (`...`) and link addresses are formulas,
// identifiers and addresses, not statements, and are not checked; nor are
// numbers without a unit (layer counts, GPU counts, years), nor a
// blockquote ("> ..."), which quotes a source's own figures, such as the
// rounded ones a chapter compares with its exact ones.
var (
	// statedNumber is a number followed by a unit. "B" needs a space before
	// it, so "70.55 B parameters" is a statement and "Llama 3 70B" a name.
	statedNumber = regexp.MustCompile(`(?:^|[^\w.,])(\d[\d,]*(?:\.\d+)?)` + units + `(?:[^\w/]|$)`)
	// printedNumber is any number in an output, with thousands separators,
	// an optional exponent and the unit after it, if any.
	printedNumber = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)(?:` + units + `(?:[^\w/]|$))?`)
	units         = `(?:\s?(TB|GB|MB|kB|TiB|GiB|MiB|KiB|bytes?|%|×|x|ms|µs|s|tokens/s|GB/s|Gb/s|TB/s|TFLOP/s|PFLOP/s)|\s(B))`
	unchecked     = regexp.MustCompile("(?s)```.*?```|`[^`]*`|\\$\\$.*?\\$\\$|\\$[^$]*\\$|\\]\\([^)]*\\)|<[^>]+>|(?m:^ *>[^\n]*$)")
	tags          = regexp.MustCompile(`(?s)<[^>]*>`)
)

// stated is a number the prose states, with the decimals it is written
// to.
type stated struct {
	text     string
	value    float64
	decimals int
	unit     string
}

// printed is a number an output shows, with its unit ("" when none).
type printed struct {
	value float64
	unit  string
}

// unitOf normalizes a matched unit: × and x are the same, and so are
// byte and bytes.
func unitOf(m []string) string {
	u := m[2] + m[3]
	switch u {
	case "x":
		return "×"
	case "byte":
		return "bytes"
	}
	return u
}

// statedNumbers lists the numbers with units in markdown text.
func statedNumbers(md string) []stated {
	md = unchecked.ReplaceAllString(md, " ")
	var out []stated
	for _, m := range statedNumber.FindAllStringSubmatch(md, -1) {
		num := strings.ReplaceAll(m[1], ",", "")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			continue
		}
		d := 0
		if i := strings.IndexByte(num, '.'); i >= 0 {
			d = len(num) - i - 1
		}
		out = append(out, stated{strings.TrimSpace(m[1] + " " + m[2] + m[3]), v, d, unitOf(m)})
	}
	return out
}

// printedNumbers lists every number in a cell's outputs: streams, and
// the text of HTML, Markdown and plain displays (tags dropped).
func printedNumbers(c cell) []printed {
	var text strings.Builder
	for _, o := range c.Outputs {
		text.WriteString(string(o.Text) + "\n")
		for mime, d := range o.Data {
			if strings.HasPrefix(mime, "text/") {
				text.WriteString(html.UnescapeString(tags.ReplaceAllString(string(d), " ")) + "\n")
			}
		}
	}
	var out []printed
	for _, m := range printedNumber.FindAllStringSubmatch(text.String(), -1) {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64); err == nil {
			out = append(out, printed{v, unitOf(m)})
		}
	}
	return out
}

// matches reports whether a printed value in the same unit, or with
// none, rounds to the stated one.
func (s stated) matches(ps []printed) bool {
	half := 0.5*math.Pow(10, -float64(s.decimals)) + 1e-9*math.Abs(s.value)
	for _, p := range ps {
		if (p.unit == s.unit || p.unit == "") && math.Abs(p.value-s.value) <= half {
			return true
		}
	}
	return false
}

// neighbours are the indexes of the code cells just before and just after
// markdown cell i, or of every code cell for the opening and the closing
// cell, which announce and sum up the chapter.
func (nb *notebook) neighbours(i int) []int {
	var out []int
	if i == 0 || i == len(nb.Cells)-1 {
		for j, c := range nb.Cells {
			if c.CellType == "code" {
				out = append(out, j)
			}
		}
		return out
	}
	for j := i - 1; j >= 0 && nb.Cells[j].CellType == "code"; j-- {
		out = append(out, j)
	}
	for j := i + 1; j < len(nb.Cells) && nb.Cells[j].CellType == "code"; j++ {
		out = append(out, j)
	}
	return out
}

// unprintedNumbers describes every number a markdown cell states that no
// neighbouring code cell printed.
func (nb *notebook) unprintedNumbers() []string {
	var out []string
	for i, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		near := nb.neighbours(i)
		var shown []printed
		for _, j := range near {
			shown = append(shown, printedNumbers(nb.Cells[j])...)
		}
		for _, s := range statedNumbers(string(c.Source)) {
			if !s.matches(shown) {
				out = append(out, fmt.Sprintf("cell %d (markdown): %q is not printed by cells %v", i, s.text, near))
			}
		}
	}
	return out
}
