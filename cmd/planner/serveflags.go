package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
)

// serveFlags describe a serving load.
type serveFlags struct {
	context      int
	users        int
	weightsDType string
	kvDType      string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.context, "context", 4096, "serving: tokens per sequence (prompt + output)")
	fs.IntVar(&f.users, "users", 1, "serving: concurrent sequences")
	fs.StringVar(&f.weightsDType, "weights-dtype", "bf16", "serving: weight format: bf16, fp8, int4, fp32")
	fs.StringVar(&f.kvDType, "kv-dtype", "bf16", "serving: KV cache format: bf16, fp8, fp32")
}

// plan builds a serving plan of tp x pp GPUs per replica on gpus GPUs.
func (f *serveFlags) plan(tp, pp, gpus int) (costmodel.ServePlan, error) {
	s := costmodel.ServePlan{TP: tp, PP: pp, Context: f.context, Users: f.users}
	var err error
	if s.Weights, err = costmodel.ParseDType(f.weightsDType); err != nil {
		return s, badInput(err)
	}
	if s.KV, err = costmodel.ParseDType(f.kvDType); err != nil {
		return s, badInput(err)
	}
	if tp < 1 || pp < 1 || gpus%(tp*pp) != 0 {
		return s, badInputf("tp*pp = %d*%d does not divide %d GPUs", tp, pp, gpus)
	}
	s.Replicas = gpus / (tp * pp)
	return s, nil
}

func (f *estimateFlags) serveEstimate(m *costmodel.Model, a costmodel.Assumptions, w io.Writer) error {
	tp, pp := f.plan.tp, f.plan.pp
	if tp < 1 || pp < 1 || tp > 1<<20 || pp > 1<<20 {
		return badInputf("--tp %d and --pp %d must be in [1, %d]", tp, pp, 1<<20)
	}
	c, err := f.cluster.resolve(tp * pp)
	if err != nil {
		return err
	}
	s, err := f.serve.plan(tp, pp, c.GPUs())
	if err != nil {
		return err
	}
	r, err := costmodel.EstimateServe(m, c, s, a)
	if err != nil {
		return badInput(err)
	}
	if f.json {
		return writeJSON(w, r)
	}
	writeServeReport(w, m, r)
	return nil
}

func writeServeReport(w io.Writer, m *costmodel.Model, r *costmodel.ServeReport) {
	s := r.Plan
	fmt.Fprintf(w, "model    %s: %s\n", m.Name, describeModel(m))
	fmt.Fprintf(w, "cluster  %s\n", describeCluster(r.Cluster))
	fmt.Fprintf(w, "serve    tp%d-pp%d x %s; %s x %d tokens; weights %s, KV cache %s\n",
		s.TP, s.PP, plural(s.Replicas, "replica", "replicas"), plural(s.Users, "user", "users"), s.Context, s.Weights, s.KV)
	fmt.Fprintf(w, "\nmemory per GPU (the most loaded pipeline stage, %d users per replica):\n", s.UsersPerReplica())
	writeInventory(w, r.Memory, r.Assumptions.HBMFraction)
	fmt.Fprintf(w, "\nKV cache: %v per token (all layers), %v per %d-token sequence\n", r.KVPerToken, r.KVPerSequence, s.Context)
	fmt.Fprintf(w, "capacity: %s tokens of KV cache in the budget = %d concurrent users at %d tokens\n",
		costmodel.FormatCount(r.KVCapacityTokens), r.MaxUsers, s.Context)
	fmt.Fprintf(w, "weights take %.1f%% of each GPU's HBM\n", 100*r.WeightsFraction)
	writeAssumptions(w, r.Assumptions)
	writeNotes(w, r.Notes)
}
