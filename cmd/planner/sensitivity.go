package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// sensitivityOf re-runs the search of r under the default perturbations;
// nil when r has no plan to perturb.
func sensitivityOf(m *costmodel.Model, g hardware.GPU, perNode int, a costmodel.Assumptions, o search.Options, r *search.Result) []search.Shift {
	if len(r.Plans) == 0 {
		return nil
	}
	in := search.Inputs{Model: m, GPU: g, GPUsPerNode: perNode, Assumptions: a, Options: o}
	return search.Sensitivity(in, r, search.DefaultPerturbations())
}

// changesWinner lists the changes under which another plan wins.
func changesWinner(shifts []search.Shift) []string {
	var out []string
	for _, s := range shifts {
		if !s.Stays {
			out = append(out, s.Change)
		}
	}
	return out
}

// verdict is the sentence under the sensitivity table.
func verdict(shifts []search.Shift) string {
	if c := changesWinner(shifts); len(c) > 0 {
		return "the winner changes under: " + strings.Join(c, "; ")
	}
	return "the winner stays the winner under every change"
}

// stepMove writes how the baseline winner's step time moves.
func stepMove(base hardware.Seconds, s search.Shift) string {
	switch {
	case s.BaseFits:
		return fmt.Sprintf("%v -> %v (tokens/s %+.1f%%)", base, s.BaseStep, 100*s.RateChange)
	case s.BaseStep > 0:
		return "no longer fits"
	}
	return "cannot run"
}

// newWinner writes the winner under the change, with its margin.
func newWinner(s search.Shift) string {
	switch {
	case s.Winner == "":
		return "none: " + s.Note
	case s.Stays:
		return "same"
	case s.Gain > 0:
		return fmt.Sprintf("%s on %d GPUs, %.1f%% faster", s.Winner, s.WinnerGPUs, 100*s.Gain)
	}
	return fmt.Sprintf("%s on %d GPUs (%v per step)", s.Winner, s.WinnerGPUs, s.WinnerStep)
}

func yesNo(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }

func writeSensitivityText(w io.Writer, r *search.Result, shifts []search.Shift) {
	if len(shifts) == 0 {
		return
	}
	win := r.Plans[0]
	fmt.Fprintf(w, "\nsensitivity: the search re-run under each change; the winner %s (%v per step):\n", win.PlanString, win.Performance.StepTime)
	cw := len("change")
	for _, s := range shifts {
		cw = max(cw, len(s.Change))
	}
	fmt.Fprintf(w, "  %-*s  %-5s  %-36s  %s\n", cw, "change", "stays", "winner's step time", "winner under the change")
	for _, s := range shifts {
		fmt.Fprintf(w, "  %-*s  %-5s  %-36s  %s\n", cw, s.Change, yesNo(s.Stays), stepMove(win.Performance.StepTime, s), newWinner(s))
	}
	fmt.Fprintf(w, "%s\n", verdict(shifts))
}

func writeSensitivityMarkdown(w io.Writer, r *search.Result, shifts []search.Shift) {
	if len(shifts) == 0 {
		return
	}
	win := r.Plans[0]
	fmt.Fprintf(w, "\n## Sensitivity\n\nThe search re-run under each change; the winner `%s` takes %v per step.\n\n", win.PlanString, win.Performance.StepTime)
	fmt.Fprintln(w, "| change | winner stays | winner's step time | winner under the change |\n|---|---|---|---|")
	for _, s := range shifts {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", s.Change, yesNo(s.Stays), stepMove(win.Performance.StepTime, s), newWinner(s))
	}
	fmt.Fprintf(w, "\n%s.\n", capitalize(verdict(shifts)))
}

// searchJSON is a search result in JSON with its whole-run and
// sensitivity sections when asked for.
type searchJSON struct {
	*search.Result
	Run         *runSummary    `json:"run,omitempty"`
	Sensitivity []search.Shift `json:"sensitivity,omitempty"`
}

// jsonOf is the JSON form of a search with the sections the flags ask
// for.
func (f *searchFlags) jsonOf(r *search.Result) searchJSON {
	out := searchJSON{Result: r, Sensitivity: f.shifts}
	if f.spec.on {
		s := searchRuns(f.spec, r)
		out.Run = &s
	}
	return out
}
