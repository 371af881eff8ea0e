package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// serveFlags describe a serving load.
type serveFlags struct {
	context      int
	users        int
	weightsDType string
	kvDType      string
	blockTokens  int
	speed        speedFlags
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.context, "context", 4096, "serving: tokens per sequence (prompt + output)")
	fs.IntVar(&f.users, "users", 1, "serving: concurrent sequences")
	fs.StringVar(&f.weightsDType, "weights-dtype", "", "serving: weight format: bf16, fp8, fp8-block (128 x 128 block scales, DeepSeek-V3 style), int4, fp32, nvfp4, mxfp4 (default: the checkpoint's, from its config.json quantization_config: mxfp4 for gpt-oss, fp8-block for DeepSeek-V3, bf16 without one)")
	fs.StringVar(&f.kvDType, "kv-dtype", "bf16", "serving: KV cache format: bf16, fp8, fp32")
	fs.IntVar(&f.blockTokens, "block-size", 16, "serving: paged KV-cache block in tokens (vLLM's default 16); 0 for a contiguous cache")
	f.speed.register(fs)
}

// load is the serving load of the flags for model m: everything but the
// layout. Without --weights-dtype the weights are in m's checkpoint
// format (Model.Checkpoint).
func (f *serveFlags) load(m *costmodel.Model) (costmodel.ServePlan, error) {
	s := costmodel.ServePlan{TP: 1, PP: 1, Replicas: 1, Context: f.context, Users: f.users, BlockTokens: f.blockTokens}
	if f.users < 1 {
		return s, badInputf("--users %d: serve at least one user", f.users)
	}
	if f.context < 1 {
		return s, badInputf("--context %d: a sequence has at least one token", f.context)
	}
	if f.blockTokens < 0 {
		return s, badInputf("--block-size %d: give a positive block size in tokens, or 0 for a contiguous cache", f.blockTokens)
	}
	var err error
	s.Weights = m.Checkpoint
	if f.weightsDType != "" {
		if s.Weights, err = costmodel.ParseDType(f.weightsDType); err != nil {
			return s, badInput(err)
		}
	}
	if s.KV, err = costmodel.ParseDType(f.kvDType); err != nil {
		return s, badInput(err)
	}
	return s, nil
}

// plan builds a serving plan of model m, tp x pp GPUs per replica on
// gpus GPUs.
func (f *serveFlags) plan(m *costmodel.Model, tp, pp, gpus int) (costmodel.ServePlan, error) {
	s, err := f.load(m)
	if err != nil {
		return s, err
	}
	s.TP, s.PP = tp, pp
	if tp < 1 || pp < 1 || gpus%(tp*pp) != 0 {
		return s, badInputf("tp*pp = %d*%d does not divide %d GPUs", tp, pp, gpus)
	}
	s.Replicas = gpus / (tp * pp)
	return s, nil
}

// speedFlags override the serving-speed assumptions.
type speedFlags struct {
	hbm, flop, link        float64
	allReduceUS, networkUS float64
}

func (f *speedFlags) register(fs *flag.FlagSet) {
	d := costmodel.DefaultAssumptions()
	fs.Float64Var(&f.hbm, "decode-hbm-efficiency", d.ServeHBMEfficiency, "serving: achieved share of the HBM bandwidth in decode")
	fs.Float64Var(&f.flop, "prefill-flop-efficiency", d.ServeFLOPEfficiency, "serving: achieved share of the tensor-core peak in prefill")
	fs.Float64Var(&f.link, "serve-link-efficiency", d.ServeLinkEfficiency, "serving: achieved share of NVLink and network bandwidth (under load, a tensor-parallel all-reduce past the custom kernel's 8 MiB runs NCCL's measured NVLink all-reduce instead)")
	fs.Float64Var(&f.allReduceUS, "allreduce-us", float64(d.ServeAllReduceLatency)*1e6, "serving: fixed latency of one tensor-parallel all-reduce, µs")
	fs.Float64Var(&f.networkUS, "network-us", float64(d.ServeNetworkLatency)*1e6, "serving: fixed latency of one message between nodes, µs")
}

// apply sets the serving-speed fields of a and checks them.
func (f *speedFlags) apply(a costmodel.Assumptions) (costmodel.Assumptions, error) {
	if err := floatIn("allreduce-us", f.allReduceUS, 0, 1e6); err != nil {
		return a, err
	}
	if err := floatIn("network-us", f.networkUS, 0, 1e6); err != nil {
		return a, err
	}
	a.ServeHBMEfficiency, a.ServeFLOPEfficiency, a.ServeLinkEfficiency = f.hbm, f.flop, f.link
	a.ServeAllReduceLatency = hardware.Seconds(f.allReduceUS / 1e6)
	a.ServeNetworkLatency = hardware.Seconds(f.networkUS / 1e6)
	return a, badInput(a.Validate())
}

func (f *estimateFlags) serveEstimate(m *costmodel.Model, a costmodel.Assumptions, w io.Writer) error {
	tp, pp := f.plan.tp, f.plan.pp
	if tp < 1 || pp < 1 || tp > hardware.MaxGPUs || pp > hardware.MaxGPUs {
		return badInputf("--tp %d and --pp %d must be in [1, %d]", tp, pp, hardware.MaxGPUs)
	}
	c, err := f.cluster.resolve(tp * pp)
	if err != nil {
		return err
	}
	s, err := f.serve.plan(m, tp, pp, c.GPUs())
	if err != nil {
		return err
	}
	if a, err = f.serve.speed.apply(a); err != nil {
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
	header(w, "model", m.Name+": "+describeModel(m))
	header(w, "cluster", describeCluster(r.Cluster))
	fmt.Fprintf(w, "serve    tp%d-pp%d x %s; %s x %d tokens; weights %s, KV cache %s\n",
		s.TP, s.PP, plural(s.Replicas, "replica", "replicas"), plural(s.Users, "user", "users"), s.Context, s.Weights, s.KV)
	if fromCheckpoint(s.Weights, m) {
		header(w, "weights", weightsText(s.Weights, m))
	}
	fmt.Fprintf(w, "\nmemory per GPU (the most loaded pipeline stage, %s per replica):\n", plural(s.UsersPerReplica(), "user", "users"))
	writeInventory(w, r.Memory, r.Assumptions.HBMFraction)
	fmt.Fprintf(w, "\nKV cache: %v per token (all layers), %v per %d-token sequence\n", r.KVPerToken, r.KVPerSequence, s.Context)
	fmt.Fprintf(w, "capacity: %s tokens of KV cache in the budget = %d concurrent users at %d tokens\n",
		costmodel.FormatCount(r.KVCapacityTokens), r.MaxUsers, s.Context)
	fmt.Fprintf(w, "weights take %.1f%% of each GPU's HBM\n", 100*r.WeightsFraction)
	writeAssumptions(w, r.Assumptions)
	writeNotes(w, r.Notes)
}
