package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/launch"
	"github.com/gpu-planner/planner/search"
)

// reportTop is how many of the ranked plans the review details.
const reportTop = 3

// reportFlags are the flags of `planner report`: those of search, the
// output file and its format.
type reportFlags struct {
	searchFlags
	out, format string
}

// review is everything the document shows, computed once.
type review struct {
	m        *costmodel.Model
	a        costmodel.Assumptions
	r        *search.Result
	reports  []*costmodel.Report
	frontier []search.Ranked
	// near is the search on fewer GPUs whose misses and levers show what
	// stands between the answer and a smaller cluster (nil: none smaller).
	near    *search.Result
	shifts  []search.Shift
	calib   calibrated
	exports []exported
	spec    runSpec
}

// exported is one framework's launch config, or why it has none.
type exported struct {
	fw   launch.Framework
	text string
	err  error
}

func runReport(args []string, stdout, stderr io.Writer) error {
	var f reportFlags
	fs := newFlagSet("report", stderr)
	f.register(fs)
	fs.StringVar(&f.out, "out", "", "write the document to this file (default: standard output)")
	fs.StringVar(&f.format, "format", "html", "html (self-contained, inline SVG charts) or markdown")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if f.format != "html" && f.format != "markdown" {
		return badInputf("--format %q is not html or markdown", f.format)
	}
	if f.json || f.csv || f.markdown {
		return badInputf("report writes a document: use --format markdown, not --json, --csv or --markdown")
	}
	rv, err := f.build()
	if err != nil {
		return err
	}
	doc := rv.markdown()
	if f.format == "html" {
		doc = rv.html()
	}
	if f.out == "" {
		_, err = io.WriteString(stdout, doc)
		return err
	}
	if err := os.WriteFile(f.out, []byte(doc), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", f.out, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s, %d bytes)\n", f.out, f.format, len(doc))
	return nil
}

// build runs the search and everything the review adds to it.
func (f *reportFlags) build() (*review, error) {
	m, err := loadModel(f.model)
	if err != nil {
		return nil, err
	}
	if f.spec, err = f.run.resolve(f.set); err != nil {
		return nil, err
	}
	a, err := f.assume.resolve()
	if err != nil {
		return nil, err
	}
	if a, err = f.perf.apply(a); err != nil {
		return nil, err
	}
	o, err := f.options()
	if err != nil {
		return nil, err
	}
	g, perNode, err := f.hardware(&o)
	if err != nil {
		return nil, err
	}
	f.spec.adjust(&o)
	r, err := search.Search(m, g, perNode, a, o)
	if err != nil {
		return nil, badInput(err)
	}
	rv := &review{m: m, a: a, r: r, spec: f.spec}
	rv.shifts = sensitivityOf(m, g, perNode, a, o, r)
	if err := rv.detail(g, perNode, o); err != nil {
		return nil, err
	}
	rv.calib = calibrationFor(r.Cluster.GPU.Name, r.Job.Precision, a)
	rv.exports = exportsOf(m, r, a, f.export.fws)
	return rv, nil
}

// detail estimates the top plans, and searches the frontier and the
// nearest smaller cluster.
func (rv *review) detail(g hardware.GPU, perNode int, o search.Options) error {
	r := rv.r
	for _, p := range r.Plans[:min(reportTop, len(r.Plans))] {
		rep, err := costmodel.Estimate(rv.m, r.Cluster, p.Plan, rv.a)
		if err != nil {
			return fmt.Errorf("estimating %s: %w", p.PlanString, err)
		}
		rv.reports = append(rv.reports, rep)
	}
	rv.frontier = r.Frontier
	if len(rv.frontier) == 0 && len(r.Plans) > 0 {
		rv.frontier = rv.frontierUpTo(g, perNode, o, frontierTop(r))
	}
	if len(r.Plans) == 0 {
		rv.near = r
		return nil
	}
	if n := nearCount(r); n >= r.Cluster.GPUsPerNode {
		no := o
		no.Objective, no.GPUs, no.Frontier = search.Throughput, n, false
		if nr, err := search.Search(rv.m, g, perNode, rv.a, no); err == nil {
			rv.near = nr
		}
	}
	return nil
}

// frontierTop is the largest count the review's frontier reaches: the
// count asked for, or four times the fewest.
func frontierTop(r *search.Result) int {
	if r.Objective == search.FewestGPUs {
		return min(4*r.GPUs, hardware.MaxGPUs)
	}
	return r.GPUs
}

// nearCount is the smaller cluster whose misses the review shows: half
// the count asked for, or one node below the fewest.
func nearCount(r *search.Result) int {
	per := r.Cluster.GPUsPerNode
	if r.Objective == search.FewestGPUs {
		return r.GPUs - per
	}
	return r.GPUs / 2 / per * per
}

// frontierUpTo searches every whole-node count up to top for the
// frontier (nil when the search fails).
func (rv *review) frontierUpTo(g hardware.GPU, perNode int, o search.Options, top int) []search.Ranked {
	fo := o
	fo.Objective, fo.Frontier, fo.MaxGPUs, fo.GPUs = search.FewestGPUs, true, top, 0
	fr, err := search.Search(rv.m, g, perNode, rv.a, fo)
	if err != nil {
		return nil
	}
	return fr.Frontier
}

// exportsOf writes the winner's launch config for each framework (all
// four when none is named).
func exportsOf(m *costmodel.Model, r *search.Result, a costmodel.Assumptions, fws []launch.Framework) []exported {
	if len(r.Plans) == 0 {
		return nil
	}
	if len(fws) == 0 {
		fws = launch.Frameworks()
	}
	out := make([]exported, len(fws))
	for i, fw := range fws {
		c, err := launch.Export(fw, launch.Job{Model: m, Plan: r.Plans[0].Plan, Assumptions: a})
		var u *launch.Unsupported
		if err != nil && !errors.As(err, &u) {
			panic(fmt.Sprintf("planner: exporting the winner to %s: %v", fw, err))
		}
		out[i] = exported{fw: fw, text: c.Text, err: err}
	}
	return out
}
