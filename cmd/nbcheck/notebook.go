package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// notebook is the part of the nbformat 4 JSON that nbcheck reads.
type notebook struct {
	Cells    []cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

// kernelName is the kernel notebooks must name: "planner notebook install"
// registers it, and it wires the planner module in, so no cell sets it up.
const kernelName = "planner"

type cell struct {
	CellType string `json:"cell_type"`
	Metadata struct {
		Tags []string `json:"tags"`
	} `json:"metadata"`
	Source         multiline `json:"source"`
	ExecutionCount *int      `json:"execution_count"`
	Outputs        []output  `json:"outputs"`
}

type output struct {
	OutputType string    `json:"output_type"`
	Name       string    `json:"name"`
	Text       multiline `json:"text"`
	Ename      string    `json:"ename"`
	Evalue     string    `json:"evalue"`
	Traceback  []string  `json:"traceback"`
	// Data holds a display's representations by MIME type.
	Data map[string]multiline `json:"data"`
}

// multiline is nbformat's multiline string: one string or a list of lines.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*m = multiline(strings.Join(lines, ""))
	return nil
}

func readNotebook(path string) (*notebook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %w", path, err)
	}
	return &nb, nil
}

var (
	ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	// exitStatus is what GoNB prints to stderr when a cell's program or a
	// "!" command exits non-zero or is killed.
	exitStatus = regexp.MustCompile(`(?m)^exit status \d+$|^signal: `)
)

// mustFail tags the cells of a canary notebook that must fail.
const mustFail = "must-fail"

// failures describes every code cell that should have run and failed.
func (nb *notebook) failures() []string {
	var out []string
	for i, c := range nb.Cells {
		if p := c.failure(); p != "" {
			out = append(out, fmt.Sprintf("cell %d:%s", i, p))
		}
	}
	return out
}

// canaryMisses describes every cell tagged must-fail that did not fail,
// and every other cell that did.
func (nb *notebook) canaryMisses() []string {
	var out []string
	tagged := 0
	for i, c := range nb.Cells {
		p, must := c.failure(), slices.Contains(c.Metadata.Tags, mustFail)
		switch {
		case must && p == "":
			out = append(out, fmt.Sprintf("cell %d: tagged %s, but no failure was detected\n%s", i, mustFail, indent(string(c.Source))))
		case !must && p != "":
			out = append(out, fmt.Sprintf("cell %d: should pass:%s", i, p))
		}
		if must {
			tagged++
		}
	}
	if tagged == 0 {
		out = append(out, "no cell is tagged "+mustFail+": not a canary")
	}
	return out
}

// failure describes how the cell failed, or is "" when it passed or was
// not meant to run.
func (c cell) failure() string {
	if c.CellType != "code" || slices.Contains(c.Metadata.Tags, "skip-execution") || strings.TrimSpace(string(c.Source)) == "" {
		return ""
	}
	if c.ExecutionCount == nil {
		return " not executed\n" + indent(string(c.Source))
	}
	var why []string
	var stdout strings.Builder
	for _, o := range c.Outputs {
		switch {
		case o.OutputType == "stream" && o.Name == "stdout":
			stdout.WriteString(string(o.Text))
		case o.OutputType == "error":
			tb := ansi.ReplaceAllString(strings.Join(o.Traceback, "\n"), "")
			why = append(why, fmt.Sprintf("error %s: %s\n%s", o.Ename, o.Evalue, tb))
		case o.OutputType == "stream" && o.Name == "stderr" && exitStatus.MatchString(string(o.Text)):
			why = append(why, "stderr:\n"+ansi.ReplaceAllString(string(o.Text), ""))
		}
	}
	if len(why) == 0 {
		return ""
	}
	if out := lastLines(stdout.String(), 30); out != "" {
		why = append([]string{"stdout:\n" + out}, why...)
	}
	return fmt.Sprintf("\n--- source ---\n%s\n--- problem ---\n%s", indent(string(c.Source)), indent(strings.Join(why, "\n")))
}

// outputs describes every code cell that carries outputs or an execution
// count, and a kernel other than the planner's.
func (nb *notebook) outputs() []string {
	var out []string
	if k := nb.Metadata.Kernelspec.Name; k != kernelName {
		out = append(out, fmt.Sprintf("metadata: kernel %q, want %q (Planner (Go), see planner notebook install)", k, kernelName))
	}
	for i, c := range nb.Cells {
		if c.CellType == "code" && (len(c.Outputs) > 0 || c.ExecutionCount != nil) {
			out = append(out, fmt.Sprintf("cell %d: has outputs or an execution count; commit notebooks cleared", i))
		}
	}
	return out
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
