package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/launch"
	"github.com/gpu-planner/planner/search"
)

// exportFlags are the flags of `planner export`: the framework, the
// model, the job settings a plan string leaves out, and the step-time
// flags whose overlap settings the launch config should match.
type exportFlags struct {
	to, model string
	job       searchFlags
	perf      perfFlags
}

func (f *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "", "framework: megatron, torchtitan, nemo (Megatron-Bridge) or deepspeed")
	fs.StringVar(&f.model, "model", "", "model: a catalog name (planner models) or a Hugging Face config.json path")
	j := &f.job
	fs.IntVar(&j.seq, "seq", 8192, "sequence length, tokens")
	fs.IntVar(&j.gbs, "gbs", 0, "global batch, sequences per step (default: 16,777,216 tokens, Llama 3's batch)")
	fs.IntVar(&j.gbsTokens, "gbs-tokens", 0, "global batch in tokens, a multiple of --seq (alternative to --gbs)")
	fs.StringVar(&j.precision, "precision", "bf16", "training precision: bf16, fp16, fp8, fp32")
	fs.StringVar(&j.optimizer, "optimizer", "adam", "optimizer: adam, adam8bit, momentum, sgd")
	fs.StringVar(&j.attn, "attn", "flash", "attention kernel: flash, eager")
	j.schedule = "1f1b" // the plan string carries -gpipe
	// Exports are of pre-training plans: the tuning defaults.
	j.tune = tuneFlags{task: "pretrain", rank: costmodel.DefaultLoRARank, targets: costmodel.AllTargets.String(), base: "bf16", offload: "none"}
	f.perf.register(fs)
}

// parseWithPlan parses flags around one positional argument, the plan.
func parseWithPlan(fs *flag.FlagSet, args []string) (string, error) {
	if err := parseQuietly(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", badInput(err)
	}
	if fs.NArg() == 0 {
		return "", badInputf("give the plan to export, as search prints it (e.g. tp8-pp16v2-cp1-dp1-zero1-sp-selective-mb1)")
	}
	plan := fs.Arg(0)
	if err := parseQuietly(fs, fs.Args()[1:]); err != nil {
		return "", badInput(err)
	}
	if fs.NArg() > 0 {
		return "", badInputf("unexpected argument %q after the plan %q (one plan per export)", fs.Arg(0), plan)
	}
	return plan, nil
}

func runExport(args []string, stdout, stderr io.Writer) error {
	var f exportFlags
	fs := newFlagSet("export", stderr)
	f.register(fs)
	planStr, err := parseWithPlan(fs, args)
	if err != nil {
		return err
	}
	f.job.set = setFlags(fs)
	fw, err := launch.ParseFramework(f.to)
	if err != nil {
		return badInput(err)
	}
	m, err := loadModel(f.model)
	if err != nil {
		return err
	}
	a, err := f.perf.apply(costmodel.DefaultAssumptions())
	if err != nil {
		return err
	}
	j, err := f.job.job()
	if err != nil {
		return err
	}
	p, err := costmodel.ParsePlan(planStr, jobPlan(j))
	if err != nil {
		return badInput(err)
	}
	if p, err = p.Normalize(m, 0); err != nil {
		return badInput(err)
	}
	return writeExport(stdout, fw, launch.Job{Model: m, Plan: p, Assumptions: a})
}

// jobPlan is a plan carrying the job settings, for ParsePlan.
func jobPlan(j search.Job) costmodel.Plan {
	return costmodel.Plan{Seq: j.Seq, GlobalBatch: j.GlobalBatch, Precision: j.Precision, Optimizer: j.Optimizer,
		Attention: j.Attention, Schedule: j.Schedule}
}

// writeExport writes one launch config; a plan the framework cannot
// express is bad input (exit 2) with the reason.
func writeExport(w io.Writer, fw launch.Framework, job launch.Job) error {
	c, err := launch.Export(fw, job)
	if err != nil {
		return badInput(err)
	}
	_, err = io.WriteString(w, c.Text)
	return err
}

// exportFlag is --export on search and report: the frameworks whose
// launch configs of the winner to append.
type exportFlag struct{ fws []launch.Framework }

func (e *exportFlag) String() string {
	s := make([]string, len(e.fws))
	for i, f := range e.fws {
		s[i] = string(f)
	}
	return strings.Join(s, ",")
}

func (e *exportFlag) Set(v string) error {
	e.fws = nil
	for _, s := range strings.Split(v, ",") {
		f, err := launch.ParseFramework(s)
		if err != nil {
			return err
		}
		e.fws = append(e.fws, f)
	}
	return nil
}

// writeWinnerExports appends the winner's launch configs to a search's
// text; a framework that cannot express it says why in the text.
func writeWinnerExports(w io.Writer, m *costmodel.Model, r *search.Result, a costmodel.Assumptions, fws []launch.Framework) {
	if len(fws) == 0 || len(r.Plans) == 0 {
		return
	}
	for _, fw := range fws {
		fmt.Fprintf(w, "\nlaunch config, %s, for %s:\n", fw, r.Plans[0].PlanString)
		c, err := launch.Export(fw, launch.Job{Model: m, Plan: r.Plans[0].Plan, Assumptions: a})
		if err != nil {
			fmt.Fprintf(w, "%v\n", err)
			continue
		}
		io.WriteString(w, c.Text)
	}
}
