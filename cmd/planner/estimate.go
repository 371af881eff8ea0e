package main

import (
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
)

// estimateFlags are the flags of `planner estimate`.
type estimateFlags struct {
	model   string
	mode    string
	json    bool
	stages  bool
	wide    bool
	cluster clusterFlags
	plan    planFlags
	assume  assumptionFlags
	perf    perfFlags
	serve   serveFlags
	fw      frameworkFlag
	run     runFlags
}

func runEstimate(args []string, stdout, stderr io.Writer) error {
	var f estimateFlags
	fs := newFlagSet("estimate", stderr)
	fs.StringVar(&f.model, "model", "", "model: a catalog name (planner models) or a Hugging Face config.json path")
	fs.StringVar(&f.mode, "mode", "train", "train or serve")
	fs.BoolVar(&f.json, "json", false, "print JSON in raw base units (bytes as integers)")
	fs.BoolVar(&f.stages, "stages", false, "also print every pipeline stage's memory")
	fs.BoolVar(&f.wide, "wide", false, "text tables with every column (why each change helps, collective algorithms and groups), past 100 columns")
	f.cluster.register(fs)
	f.plan.register(fs)
	f.assume.register(fs)
	f.perf.register(fs)
	f.serve.register(fs)
	f.fw.register(fs)
	f.run.register(fs, false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.plan.set = setFlags(fs)
	if f.mode != "train" && f.mode != "serve" {
		return badInputf("--mode %q is not train or serve", f.mode)
	}
	if err := checkClusterFlags(f.plan.set, &f.cluster); err != nil {
		return err
	}
	if err := f.checkModeFlags(f.plan.set); err != nil {
		return err
	}
	if err := f.fw.resolve(); err != nil {
		return err
	}
	f.plan.attn = f.fw.attention(f.plan.set, f.plan.attn)
	m, err := loadModel(f.model)
	if err != nil {
		return err
	}
	a, err := f.assume.resolve()
	if err != nil {
		return err
	}
	if a, err = f.perf.apply(a); err != nil {
		return err
	}
	a = f.fw.apply(f.plan.set, a)
	switch f.mode {
	case "train":
		return f.train(m, a, stdout)
	case "serve":
		return f.serveEstimate(m, a, stdout)
	}
	return badInputf("--mode %q is not train or serve", f.mode)
}

func (f *estimateFlags) train(m *costmodel.Model, a costmodel.Assumptions, w io.Writer) error {
	p, err := f.plan.resolve(f.cluster.totalGPUs())
	if err != nil {
		return err
	}
	if f.fw.preset != nil && !f.plan.set["sp"] {
		p.SP = f.fw.preset.SequenceParallel && p.TP > 1
	}
	if err := f.fw.checkPrecision(p.Precision); err != nil {
		return err
	}
	// The plan against the model first, so a pp above the layers is
	// named as such, not as a GPU count that fills no whole node.
	if _, err := p.Normalize(m, 0); err != nil {
		return badInput(err)
	}
	c, err := f.cluster.resolve(p.GPUs())
	if err != nil {
		return err
	}
	e, err := costmodel.NewEvaluator(m, c, a)
	if err != nil {
		return badInput(err)
	}
	r, err := e.Estimate(p)
	if err != nil {
		return badInput(err)
	}
	spec, err := f.run.resolve(f.plan.set)
	if err != nil {
		return err
	}
	if f.json {
		return writeEstimateJSON(w, r, spec)
	}
	writeTrainReport(w, m, r, f.stages, f.wide)
	f.fw.write(w)
	writeEstimateRun(w, r, spec)
	return nil
}

func writeTrainReport(w io.Writer, m *costmodel.Model, r *costmodel.Report, stages, wide bool) {
	p := r.Plan
	header(w, "model", m.Name+": "+describeModel(m))
	header(w, "cluster", describeCluster(r.Cluster))
	header(w, "plan", fmt.Sprintf("%s; seq %d, gbs %d (%s per step), %s, %s, %s attention%s",
		r.PlanString, p.Seq, p.GlobalBatch, plural(r.MicroBatches, "micro-batch", "micro-batches"), p.Precision, p.Optimizer, p.Attention, tuneSummary(p)))
	header(w, "accuracy", coverageLine(r.Cluster.GPU.Name, p.Precision))
	if n := costmodel.KernelNote(r.Cluster.GPU, p.Precision, r.Assumptions); n != "" {
		header(w, "kernels", n)
	}
	fmt.Fprintf(w, "\nmemory per GPU, %s (the most loaded):\n", stageOf(r.PeakStage, p.PP))
	writeInventory(w, r.Memory, r.Assumptions.HBMFraction)
	writeHost(w, r.Host)
	if !r.Memory.Fits || r.Host != nil && !r.Host.Fits {
		writeLargest(w, r.Memory)
		writeLevers(w, r.Levers, wide)
	}
	if stages {
		writeStages(w, r)
	}
	writeTraffic(w, r, wide)
	writeStepTime(w, r)
	writeAssumptions(w, r.Assumptions)
	writeStepAssumptions(w, r.Assumptions, r.Cluster.GPU)
	writeNotes(w, r.Notes)
}

func writeStages(w io.Writer, r *costmodel.Report) {
	fmt.Fprintf(w, "\npipeline stages, numbered from 0 as in --json:")
	fmt.Fprintf(w, "\n%5s %6s %10s %10s %12s %10s %10s  %s\n", "stage", "layers", "params", "states", "activations", "overheads", "total", "fits")
	for _, s := range r.Stages {
		fits := "yes"
		if s.Total > r.Memory.Budget {
			fits = "no"
		}
		fmt.Fprintf(w, "%5d %6d %10s %10v %12v %10v %10v  %s\n", s.Stage, s.Layers, costmodel.FormatCount(s.Params),
			s.ModelStates()+s.GatherBuffers, s.Activations(), s.Overheads(), s.Total, fits)
	}
}
