package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// defaultBatchTokens is the global batch when neither --gbs nor
// --gbs-tokens is given: Llama 3 405B's 16M tokens per step (Dubey et
// al. 2024, sec. 3.4.1), 2,048 sequences of 8,192 tokens.
const defaultBatchTokens = 1 << 24

// searchFlags are the flags of `planner search`.
type searchFlags struct {
	model                         string
	cluster                       clusterFlags
	assume                        assumptionFlags
	perf                          perfFlags
	seq, gbs, gbsTokens           int
	precision, optimizer, attn    string
	schedule                      string
	objective, granularity        string
	maxGPUs, top                  int
	tp, pp, vpp, cp, extra, shift intList
	ep, etp                       intList
	zero                          intList
	mbs                           intList
	recompute                     recomputeList
	sp                            boolList
	tune                          tuneFlags
	json, csv, markdown, wide     bool
	set                           map[string]bool
	fw                            frameworkFlag
	run                           runFlags
	spec                          runSpec
	sensitivity                   bool
	shifts                        []search.Shift
	export                        exportFlag
	assumptions                   costmodel.Assumptions
}

func (f *searchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "model: a catalog name (planner models) or a Hugging Face config.json path")
	f.cluster.register(fs)
	fs.Lookup("gpus").Usage = "search exactly this many GPUs (default: find the fewest)"
	fs.Lookup("nodes").Usage = "search exactly this many nodes (alternative to --gpus)"
	f.assume.register(fs)
	f.perf.register(fs)
	fs.IntVar(&f.seq, "seq", 8192, "sequence length, tokens")
	fs.IntVar(&f.gbs, "gbs", 0, "global batch, sequences per step (default: 16,777,216 tokens, Llama 3's batch)")
	fs.IntVar(&f.gbsTokens, "gbs-tokens", 0, "global batch in tokens, a multiple of --seq (alternative to --gbs)")
	fs.StringVar(&f.precision, "precision", "bf16", precisionUsage)
	fs.StringVar(&f.optimizer, "optimizer", "adam", "optimizer: adam, adam8bit, momentum, sgd")
	fs.StringVar(&f.attn, "attn", "flash", "attention kernel: flash, eager")
	fs.StringVar(&f.schedule, "schedule", "1f1b", "pipeline schedule: 1f1b (interleaved with vpp > 1), gpipe")
	f.tune.register(fs)
	fs.StringVar(&f.objective, "objective", "", "throughput (on --gpus) or fewest-gpus (default: throughput when --gpus or --nodes is given)")
	fs.StringVar(&f.granularity, "granularity", "node", "fewest-gpus steps: node (whole NVLink domains) or gpu (any count)")
	fs.IntVar(&f.maxGPUs, "max-gpus", 0, fmt.Sprintf("fewest-gpus: search every count up to this one and print the Pareto frontier of GPUs against throughput (default: stop at the fewest, at most %d)", search.DefaultMaxGPUs))
	fs.IntVar(&f.top, "top", 10, "how many plans to rank")
	for _, a := range []struct {
		v    *intList
		name string
		what string
	}{{&f.tp, "tp", "tensor-parallel degrees (default: those that split the heads, up to the NVLink domain; list larger ones to go beyond)"},
		{&f.pp, "pp", "pipeline-parallel degrees (default: every divisor of the GPU count up to the layers)"},
		{&f.vpp, "vpp", "virtual pipeline stages per rank (default: 1,2,3,4,6,8)"},
		{&f.cp, "cp", "context-parallel degrees (default: 1 and powers of two leaving at least 4,096 tokens per rank)"},
		{&f.ep, "ep", "expert-parallel degrees of an MoE model (default: every divisor of the routed experts that divides the GPU count)"},
		{&f.etp, "etp", "expert tensor-parallel degrees of an MoE model (default: 1)"},
		{&f.extra, "mid-extra", "layers each middle pipeline stage holds beyond the balanced split, taken from the first and last stages (default: 0,1,2)"},
		{&f.shift, "end-shift", "layers the first pipeline stage then hands to the last; negative the other way (default: 0,1,2)"},
		{&f.zero, "zero", "ZeRO stages (default: 0,1,2,3)"},
		{&f.mbs, "mbs", "micro-batch sizes, sequences (default: 1,2,4,8)"}} {
		fs.Var(a.v, a.name, "comma-separated "+a.what)
	}
	fs.Var(&f.recompute, "recompute", "comma-separated recompute policies: none, selective, full, opsac (default: none, selective, full)")
	fs.Var(&f.sp, "sp", "sequence parallelism: on, off or on,off (default: both when tp > 1)")
	fs.BoolVar(&f.json, "json", false, "print JSON in raw base units")
	fs.BoolVar(&f.csv, "csv", false, "print CSV in raw base units")
	fs.BoolVar(&f.markdown, "markdown", false, "print Markdown for an architecture review")
	f.fw.register(fs)
	fs.BoolVar(&f.wide, "wide", false, "text tables with every column (GPUs, exposed communication), past 100 columns")
	f.run.register(fs, true)
	fs.Var(&f.export, "export", "append the winner's launch config for these frameworks: megatron, torchtitan, nemo, deepspeed (comma-separated)")
	fs.BoolVar(&f.sensitivity, "sensitivity", false, "re-run the search with the network 2x slower, GEMMs 10% slower, the sequence doubled, the batch halved, the HBM budget at 85% and 95%, and say whether the winner stays")
}

func runSearch(args []string, stdout, stderr io.Writer) error {
	var f searchFlags
	fs := newFlagSet("search", stderr)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if err := checkClusterFlags(f.set, &f.cluster); err != nil {
		return err
	}
	if err := f.fw.resolve(); err != nil {
		return err
	}
	f.attn = f.fw.attention(f.set, f.attn)
	if f.fw.preset != nil && !f.set["sp"] {
		f.sp.vals = []bool{f.fw.preset.SequenceParallel}
	}
	m, err := loadModel(f.model)
	if err != nil {
		return err
	}
	if f.spec, err = f.run.resolve(f.set); err != nil {
		return err
	}
	f.spec.top = f.top
	a, err := f.assume.resolve()
	if err != nil {
		return err
	}
	if a, err = f.perf.apply(a); err != nil {
		return err
	}
	a = f.fw.apply(f.set, a)
	o, err := f.options()
	if err != nil {
		return err
	}
	g, perNode, err := f.hardware(&o)
	if err != nil {
		return err
	}
	f.spec.adjust(&o)
	r, err := search.Search(m, g, perNode, a, o)
	if errors.Is(err, search.ErrNothingFits) {
		return err
	}
	if err != nil {
		return badInput(err)
	}
	if f.sensitivity {
		f.shifts = sensitivityOf(m, g, perNode, a, o, r)
	}
	f.assumptions = a
	if err := f.write(stdout, m, r); err != nil {
		return err
	}
	if len(r.Plans) == 0 {
		return errNothingFits
	}
	return nil
}

// write prints the result in the format the flags ask for.
func (f *searchFlags) write(w io.Writer, m *costmodel.Model, r *search.Result) error {
	switch {
	case f.json:
		return writeJSON(w, f.jsonOf(r))
	case f.csv:
		return writeSearchCSV(w, r)
	case f.markdown:
		writeSearchMarkdown(w, m, r)
		writeRunsMarkdown(w, f.spec, r)
		writeSensitivityMarkdown(w, r, f.shifts)
	default:
		writeSearchText(w, m, r, f.wide)
		f.fw.write(w)
		if f.spec.on {
			writeRunsText(w, searchRuns(f.spec, r), f.spec)
		}
		writeSensitivityText(w, r, f.shifts)
		writeWinnerExports(w, m, r, f.assumptions, f.export.fws)
	}
	return nil
}

// options builds the search options from the job, objective and axis
// flags.
func (f *searchFlags) options() (search.Options, error) {
	var o search.Options
	if n := boolCount(f.json, f.csv, f.markdown); n > 1 {
		return o, badInputf("--json, --csv and --markdown are alternatives; give one")
	}
	job, err := f.job()
	if err != nil {
		return o, err
	}
	o.Job, o.Top = job, f.top
	if f.top < 1 || f.top > hardware.MaxTop {
		return o, badInputf("--top %d is not in [1, %d]", f.top, hardware.MaxTop)
	}
	o.Space = search.Space{TP: f.tp.vals, PP: f.pp.vals, VPP: f.vpp.vals, CP: f.cp.vals, EP: f.ep.vals, ETP: f.etp.vals, MidExtra: f.extra.vals, EndShift: f.shift.vals,
		ZeRO: f.zero.vals, MicroBatch: f.mbs.vals, Recompute: f.recompute.vals, SP: f.sp.vals}
	switch f.granularity {
	case "node":
		o.Granularity = search.Nodes
	case "gpu":
		o.Granularity = search.SingleGPUs
	default:
		return o, badInputf("--granularity %q is not node or gpu", f.granularity)
	}
	return o, nil
}

// job reads the fixed job settings; the batch is --gbs sequences,
// --gbs-tokens tokens, or Llama 3's 16M tokens.
func (f *searchFlags) job() (search.Job, error) {
	j := search.Job{Seq: f.seq, GlobalBatch: f.gbs}
	if f.seq < 1 {
		return j, badInputf("--seq %d must be at least 1", f.seq)
	}
	switch {
	case f.set["gbs"] && f.set["gbs-tokens"]:
		return j, badInputf("--gbs and --gbs-tokens are alternatives; give one")
	case f.set["gbs-tokens"] && (f.gbsTokens < f.seq || f.gbsTokens%f.seq != 0):
		return j, badInputf("--gbs-tokens %d is not a whole number of %d-token sequences", f.gbsTokens, f.seq)
	case f.set["gbs-tokens"]:
		j.GlobalBatch = f.gbsTokens / f.seq
	case !f.set["gbs"]:
		j.GlobalBatch = max(1, defaultBatchTokens/f.seq)
	}
	var err error
	if j.Precision, err = costmodel.ParsePrecision(f.precision); err != nil {
		return j, badInput(err)
	}
	if err := f.fw.checkPrecision(j.Precision); err != nil {
		return j, err
	}
	if j.Optimizer, err = costmodel.ParseOptimizer(f.optimizer); err != nil {
		return j, badInput(err)
	}
	if j.Attention, err = costmodel.ParseAttention(f.attn); err != nil {
		return j, badInput(err)
	}
	if j.Schedule, err = costmodel.ParseSchedule(f.schedule); err != nil {
		return j, badInput(err)
	}
	var p costmodel.Plan
	if err := f.tune.apply(&p, f.set); err != nil {
		return j, err
	}
	j.Task, j.LoRARank, j.LoRATargets, j.BaseDType, j.Offload = p.Task, p.LoRARank, p.LoRATargets, p.BaseDType, p.Offload
	j.PackedSampleTokens = p.PackedSampleTokens
	return j, checkPacked(j)
}

// checkPacked checks --packed-sample-tokens against the job before the
// search, which would otherwise reject every plan for it.
func checkPacked(j search.Job) error {
	n := j.PackedSampleTokens
	switch {
	case n > j.Seq:
		return badInputf("--packed-sample-tokens %d is more than --seq %d (a packed sample is part of a sequence)", n, j.Seq)
	case n > 0 && n < j.Seq && j.Attention == costmodel.Eager:
		return badInputf("--packed-sample-tokens %d needs --attn flash (packed samples need the fused kernels' per-sample boundaries, THD / cu_seqlens)", n)
	}
	return nil
}

// hardware resolves the GPU and its NVLink domain, and the objective: a
// GPU count (--gpus, --nodes, --cluster) means throughput on that count,
// none means the fewest GPUs.
func (f *searchFlags) hardware(o *search.Options) (g hardware.GPU, perNode int, err error) {
	exact := f.set["gpus"] || f.set["nodes"] || f.cluster.cluster != ""
	switch f.objective {
	case "":
		if !exact {
			o.Objective = search.FewestGPUs
		}
	case "throughput":
		if !exact {
			return g, 0, badInputf("--objective throughput ranks plans on a GPU count: give --gpus or --nodes")
		}
	case "fewest-gpus":
		if exact {
			return g, 0, badInputf("--objective fewest-gpus searches the GPU count: drop --gpus/--nodes/--cluster (bound it with --max-gpus)")
		}
		o.Objective = search.FewestGPUs
	default:
		return g, 0, badInputf("--objective %q is not throughput or fewest-gpus", f.objective)
	}
	if !exact {
		return f.fewestHardware(o)
	}
	if f.set["max-gpus"] || f.set["granularity"] {
		return g, 0, badInputf("--max-gpus and --granularity belong to the fewest-gpus search; with --gpus or --nodes the count is fixed")
	}
	if f.set["gpus"] && f.cluster.gpus < 1 {
		return g, 0, badInputf("--gpus %d is not a GPU count (give at least 1, or leave --gpus out to find the fewest)", f.cluster.gpus)
	}
	if f.set["nodes"] && f.cluster.nodes < 1 {
		return g, 0, badInputf("--nodes %d is not a node count (give at least 1, or leave --nodes out to find the fewest GPUs)", f.cluster.nodes)
	}
	c, err := f.cluster.resolve(0)
	if err != nil {
		return g, 0, err
	}
	o.GPUs = c.GPUs()
	return c.GPU, c.GPUsPerNode, nil
}

func (f *searchFlags) fewestHardware(o *search.Options) (hardware.GPU, int, error) {
	g, err := loadGPU(f.cluster.gpu)
	if err != nil {
		return g, 0, badInput(err)
	}
	if f.set["max-gpus"] {
		if f.maxGPUs < 1 {
			return g, 0, badInputf("--max-gpus %d must be at least 1", f.maxGPUs)
		}
		o.MaxGPUs, o.Frontier = f.maxGPUs, true
	}
	if f.cluster.gpusPerNode < 0 {
		return g, 0, badInputf("--gpus-per-node %d must not be negative", f.cluster.gpusPerNode)
	}
	return g, f.cluster.gpusPerNode, nil
}

func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// intList is a comma-separated list of integers as a flag.
type intList struct{ vals []int }

func (l *intList) String() string { return joinInts(l.vals) }

func (l *intList) Set(s string) error {
	l.vals = nil
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q is not an integer (want e.g. 1,2,4)", f)
		}
		l.vals = append(l.vals, v)
	}
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// recomputeList is a comma-separated list of recompute policies.
type recomputeList struct{ vals []costmodel.Recompute }

func (l *recomputeList) String() string {
	s := make([]string, len(l.vals))
	for i, r := range l.vals {
		s[i] = r.String()
	}
	return strings.Join(s, ",")
}

func (l *recomputeList) Set(s string) error {
	l.vals = nil
	for _, f := range strings.Split(s, ",") {
		r, err := costmodel.ParseRecompute(f)
		if err != nil {
			return err
		}
		l.vals = append(l.vals, r)
	}
	return nil
}

// boolList is "on", "off" or both, for sequence parallelism.
type boolList struct{ vals []bool }

func (l *boolList) String() string {
	s := make([]string, len(l.vals))
	for i, b := range l.vals {
		s[i] = map[bool]string{true: "on", false: "off"}[b]
	}
	return strings.Join(s, ",")
}

func (l *boolList) Set(s string) error {
	l.vals = nil
	for _, f := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case "on", "true":
			l.vals = append(l.vals, true)
		case "off", "false":
			l.vals = append(l.vals, false)
		default:
			return fmt.Errorf("%q is not on or off", f)
		}
	}
	return nil
}
