package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
	"github.com/gpu-planner/planner/view"
)

// The review document is a list of sections, each paragraphs, tables,
// charts (HTML only) and preformatted blocks, rendered as HTML or
// Markdown by report_render.go.
type section struct {
	id, title string
	paras     []string
	tables    []tableData
	charts    []chart
	blocks    []block
}

type tableData struct {
	caption string
	header  []string
	rows    [][]string
}

// chart is an SVG document or the reason it could not be drawn.
type chart struct {
	svg string
	err error
}

type block struct{ title, text string }

// sections builds the document.
func (rv *review) sections() []section {
	out := []section{rv.question(), rv.setup(), rv.plans(), rv.memory(), rv.stepTime(), rv.frontierSection(),
		rv.missesSection(), rv.sensitivitySection(), rv.calibrationSection()}
	if rv.spec.on {
		out = append(out, rv.runSection())
	}
	return append(out, rv.launchSection())
}

func (rv *review) question() section {
	r := rv.r
	q := fmt.Sprintf("Which parallel layout should train %s on %d %s GPUs, and what does it cost?", rv.m.Name, r.GPUs, r.GPU)
	if r.Objective == search.FewestGPUs {
		q = fmt.Sprintf("On how few %s GPUs does %s train, in which layout, and what does it cost?", r.GPU, rv.m.Name)
	}
	s := section{id: "question", title: "Question", paras: []string{q}}
	if len(r.Plans) == 0 {
		s.paras = append(s.paras, "Answer: "+strings.ReplaceAll(headline(r), "\n", " "))
		return s
	}
	w := r.Plans[0]
	s.paras = append(s.paras, fmt.Sprintf("Answer: %s on %d GPUs, %v per step, %s tokens/s per GPU, MFU %s, peak %v per GPU against a %v budget.",
		w.PlanString, w.GPUs, w.Performance.StepTime, hardware.Grouped(w.Performance.TokensPerSecondPerGPU), pct(w.Performance.MFU), w.Peak, r.Budget))
	return s
}

// rank labels the i-th plan (from 0) of the top plans: "#1".
func rank(i int) string { return fmt.Sprintf("#%d", i+1) }

func (rv *review) setup() section {
	r := rv.r
	var a, s bytes.Buffer
	writeAssumptions(&a, r.Assumptions)
	writeStepAssumptions(&s, r.Assumptions, r.Cluster.GPU)
	return section{id: "setup", title: "Model, cluster and assumptions", tables: []tableData{{header: []string{"", ""}, rows: [][]string{
		{"model", rv.m.Name + ": " + describeModel(rv.m)},
		{"cluster", describeCluster(r.Cluster)},
		{"job", describeJob(r.Job)},
		{"budget", fmt.Sprintf("%v per GPU (%g%% of %v)", r.Budget, 100*r.Assumptions.HBMFraction, r.Cluster.GPU.HBM)},
		{"memory", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a.String()), "assumptions:"))},
		{"step time", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s.String()), "step-time assumptions:"))},
	}}}}
}

func (rv *review) plans() section {
	s := section{id: "plans", title: "Top plans"}
	if len(rv.r.Plans) == 0 {
		s.paras = []string{"No plan fits; see the nearest misses below."}
		return s
	}
	t := tableData{header: []string{"#", "plan", "GPUs", "peak/GPU", "headroom", "step time", "tokens/s/GPU", "MFU", "exposed comm"}}
	for i, p := range rv.r.Plans {
		pf := p.Performance
		t.rows = append(t.rows, []string{fmt.Sprint(i + 1), p.PlanString, fmt.Sprint(p.GPUs), p.Peak.String(), p.Headroom.String(),
			pf.StepTime.String(), hardware.Grouped(pf.TokensPerSecondPerGPU), pct(pf.MFU), exposedComm(pf)})
	}
	s.tables = []tableData{t}
	if len(rv.r.Why) > 0 {
		s.paras = append(s.paras, fmt.Sprintf("Why %s ranks above %s: %s.", rv.r.Plans[0].PlanString, rv.r.Plans[1].PlanString, strings.Join(rv.r.Why, "; ")))
	}
	return s
}

// memory lists every pipeline stage of the top plans and charts their
// most loaded stage's inventory.
func (rv *review) memory() section {
	s := section{id: "memory", title: "Memory per stage"}
	var bars []view.InventoryBar
	for _, rep := range rv.reports {
		t := tableData{caption: rank(len(bars)) + " " + rep.PlanString, header: []string{"stage", "layers", "params", "states", "activations", "overheads", "total", "fits"}}
		for _, st := range rep.Stages {
			t.rows = append(t.rows, []string{fmt.Sprint(st.Stage), fmt.Sprint(st.Layers), costmodel.FormatCount(st.Params),
				(st.ModelStates() + st.GatherBuffers).String(), st.Activations().String(), st.Overheads().String(), st.Total.String(),
				yesNo(st.Total <= rep.Memory.Budget)})
		}
		s.tables = append(s.tables, t)
		bars = append(bars, view.InventoryBar{Label: rank(len(bars)), Memory: rep.Memory})
	}
	if len(bars) > 0 {
		svg, err := view.InventoryChart("Most loaded stage of each top plan (#1 is the winner)", bars...)
		s.charts = append(s.charts, chart{svg, err})
	}
	return s
}

// stepTime charts each top plan's step and tabulates the winner's
// exposed communication by link tier.
func (rv *review) stepTime() section {
	s := section{id: "steptime", title: "Step time and exposed communication"}
	var bars []view.StepBar
	t := tableData{header: []string{"plan", "compute", "recompute", "bubble", "exposed comm", "optimizer", "step"}}
	for _, rep := range rv.reports {
		b := rep.Performance.Breakdown
		bars = append(bars, view.StepBar{Label: rank(len(bars)), Performance: rep.Performance})
		t.rows = append(t.rows, []string{rank(len(bars)-1) + " " + rep.PlanString, b.Compute.String(), b.Recompute.String(), b.Bubble.String(),
			rep.Performance.ExposedComm.String(), b.Optimizer.String(), b.Total.String()})
	}
	if len(bars) == 0 {
		return s
	}
	svg, err := view.StepTimeChart("Step time of the top plans (#1 is the winner)", bars...)
	s.charts = append(s.charts, chart{svg, err})
	s.tables = append(s.tables, t, exposedByTier(rv.reports[0]))
	return s
}

// exposedByTier sums the winner's collectives by link tier.
func exposedByTier(rep *costmodel.Report) tableData {
	t := tableData{caption: "Collectives of " + rep.PlanString + " by link tier", header: []string{"tier", "collectives", "bytes/GPU", "time", "exposed"}}
	for _, tier := range []hardware.Tier{hardware.Local, hardware.ScaleUp, hardware.ScaleOut} {
		var n int
		var bytes hardware.Bytes
		var tm, exp hardware.Seconds
		for _, l := range rep.Traffic {
			if l.Tier == tier {
				n, bytes, tm, exp = n+1, bytes+l.Bytes, tm+l.Time, exp+l.Exposed
			}
		}
		if n > 0 {
			t.rows = append(t.rows, []string{tier.String(), fmt.Sprint(n), bytes.String(), tm.String(), exp.String()})
		}
	}
	return t
}
