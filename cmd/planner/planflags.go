package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// planFlags describe one training plan.
type planFlags struct {
	tp, pp, vpp, cp, dp     int
	ep, etp                 int
	firstLayers, lastLayers int
	zero                    int
	sp                      bool
	mbs, gbs, seq           int
	recompute, attn         string
	recomputeModules        string
	recomputeMethod         string
	recomputeLayers         int
	optimizer, precision    string
	schedule                string
	offloadActs             int
	tune                    tuneFlags
	set                     map[string]bool
}

func (f *planFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.tp, "tp", 1, "tensor-parallel degree")
	fs.IntVar(&f.pp, "pp", 1, "pipeline-parallel degree")
	fs.IntVar(&f.vpp, "vpp", 1, "virtual pipeline stages per rank (interleaved 1F1B when > 1)")
	fs.IntVar(&f.cp, "cp", 1, "context-parallel degree")
	fs.IntVar(&f.ep, "ep", 1, "expert-parallel degree of the MoE layers (divides the routed experts; ep*etp divides tp*cp*dp)")
	fs.IntVar(&f.etp, "etp", 1, "expert tensor-parallel degree of the MoE layers")
	fs.IntVar(&f.dp, "dp", 0, "data-parallel degree (default: GPUs / (tp*pp*cp))")
	fs.IntVar(&f.firstLayers, "first-stage-layers", 0, "layers on the first pipeline stage (default: even, or balanced when uneven)")
	fs.IntVar(&f.lastLayers, "last-stage-layers", 0, "layers on the last pipeline stage")
	fs.IntVar(&f.zero, "zero", 0, "ZeRO stage over data parallelism: 0 (DDP), 1, 2, 3 (FSDP)")
	fs.BoolVar(&f.sp, "sp", false, "sequence parallelism (Megatron) with tp > 1")
	fs.IntVar(&f.mbs, "mbs", 1, "micro-batch size, sequences")
	fs.IntVar(&f.gbs, "gbs", 0, "global batch, sequences per step (default: mbs*dp*pp, enough micro-batches to fill the pipeline)")
	fs.IntVar(&f.seq, "seq", 4096, "sequence length, tokens")
	fs.StringVar(&f.recompute, "recompute", "none", "activation recompute: none, selective (attention core), full (every layer), opsac (torchtitan's op-level selective checkpointing)")
	fs.StringVar(&f.recomputeModules, "recompute-modules", "", "with --recompute selective, the Megatron-Core modules recomputed, comma-separated: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts (default: core_attn)")
	fs.StringVar(&f.recomputeMethod, "recompute-method", "uniform", "with --recompute full and --recompute-num-layers, Megatron-LM's --recompute-method: uniform (checkpoint groups of N layers), block (checkpoint only the first N layers of each pipeline stage or virtual stage)")
	fs.IntVar(&f.recomputeLayers, "recompute-num-layers", 0, "with --recompute full, Megatron-LM's --recompute-num-layers N: layers per checkpointed group (uniform) or checkpointed layers per stage (block); default every layer checkpointed alone")
	fs.StringVar(&f.attn, "attn", "flash", "attention kernel: flash, eager")
	fs.StringVar(&f.optimizer, "optimizer", "adam", "optimizer: adam, adam8bit, momentum, sgd")
	fs.StringVar(&f.precision, "precision", "bf16", precisionUsage)
	fs.StringVar(&f.schedule, "schedule", "1f1b", "pipeline schedule: 1f1b (interleaved with --vpp > 1), gpipe")
	fs.IntVar(&f.offloadActs, "offload-activations", 0, "transformer layers per stage whose saved activations are copied to host memory after their forward and back before their backward (Megatron-Core's cpu_offloading_num_layers; below the stage's layers, with --recompute none)")
	f.tune.register(fs)
}

// resolve builds the plan. gpus is the cluster's GPU count when the
// cluster flags name one, 0 otherwise (dp then defaults to 1).
func (f *planFlags) resolve(gpus int) (costmodel.Plan, error) {
	p := costmodel.Plan{TP: f.tp, PP: f.pp, VPP: f.vpp, CP: f.cp, DP: f.dp, EP: f.ep, ETP: f.etp, ZeRO: f.zero, SP: f.sp,
		FirstStageLayers: f.firstLayers, LastStageLayers: f.lastLayers,
		MicroBatch: f.mbs, GlobalBatch: f.gbs, Seq: f.seq}
	for _, d := range []struct {
		name string
		v    int
	}{{"tp", f.tp}, {"pp", f.pp}, {"cp", f.cp}, {"ep", f.ep}, {"etp", f.etp}, {"vpp", f.vpp}, {"mbs", f.mbs}} {
		if d.v < 1 || d.v > hardware.MaxGPUs {
			return p, badInputf("--%s %d is not in [1, %d]", d.name, d.v, hardware.MaxGPUs)
		}
	}
	if f.sp && f.tp == 1 {
		return p, badInputf("--sp has no effect with --tp 1 (sequence parallelism splits activations over the tensor-parallel ranks; give --tp > 1 or drop --sp)")
	}
	if f.dp < 0 || f.dp > hardware.MaxGPUs {
		return p, badInputf("--dp %d is not in [1, %d]", f.dp, hardware.MaxGPUs)
	}
	if err := f.resolveDP(&p, gpus); err != nil {
		return p, err
	}
	if !f.set["gbs"] {
		p.GlobalBatch = p.MicroBatch * p.DP * p.PP
	}
	var err error
	if p.Recompute, err = costmodel.ParseRecompute(f.recompute); err != nil {
		return p, badInput(err)
	}
	if err := f.resolveModules(&p); err != nil {
		return p, err
	}
	if err := f.resolveRecomputeLayers(&p); err != nil {
		return p, err
	}
	if p.Attention, err = costmodel.ParseAttention(f.attn); err != nil {
		return p, badInput(err)
	}
	if p.Optimizer, err = costmodel.ParseOptimizer(f.optimizer); err != nil {
		return p, badInput(err)
	}
	if p.Precision, err = costmodel.ParsePrecision(f.precision); err != nil {
		return p, badInput(err)
	}
	if p.Schedule, err = costmodel.ParseSchedule(f.schedule); err != nil {
		return p, badInput(err)
	}
	if f.offloadActs < 0 {
		return p, badInputf("--offload-activations %d is not a layer count (give 0, or fewer than the layers of a pipeline stage)", f.offloadActs)
	}
	p.OffloadActivationLayers = f.offloadActs
	return p, f.tune.apply(&p, f.set)
}

// resolveModules reads --recompute-modules, which needs --recompute
// selective (Megatron's recompute_modules need recompute_granularity
// selective).
func (f *planFlags) resolveModules(p *costmodel.Plan) error {
	if !f.set["recompute-modules"] {
		return nil
	}
	mods, err := costmodel.ParseRecomputeModules(f.recomputeModules)
	if err != nil {
		return badInput(err)
	}
	if strings.TrimSpace(f.recomputeModules) == "" {
		return badInputf("--recompute-modules is empty (give a comma-separated list of core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts)")
	}
	if p.Recompute != costmodel.Selective {
		return badInputf("--recompute-modules %s needs --recompute selective (got %s)", f.recomputeModules, p.Recompute)
	}
	p.RecomputeModules = mods
	return nil
}

// resolveRecomputeLayers reads --recompute-method and
// --recompute-num-layers, which need --recompute full (Megatron-LM's
// --recompute-method and --recompute-num-layers need
// --recompute-granularity full). The method alone reads as Megatron's
// uniform with one layer per group, today's full; block needs a count.
func (f *planFlags) resolveRecomputeLayers(p *costmodel.Plan) error {
	if !f.set["recompute-method"] && !f.set["recompute-num-layers"] {
		return nil
	}
	method, err := costmodel.ParseRecomputeMethod(f.recomputeMethod)
	if err != nil {
		return badInput(err)
	}
	if p.Recompute != costmodel.Full {
		return badInputf("--recompute-method and --recompute-num-layers need --recompute full (got %s)", p.Recompute)
	}
	switch {
	case f.set["recompute-num-layers"] && f.recomputeLayers < 1:
		return badInputf("--recompute-num-layers %d is not a layer count (give 1 up to the layers of a pipeline stage, or of a virtual stage with --vpp)", f.recomputeLayers)
	case method == costmodel.Block && !f.set["recompute-num-layers"]:
		return badInputf("--recompute-method block needs --recompute-num-layers N, the layers of each stage checkpointed")
	}
	p.RecomputeMethod, p.RecomputeLayers = method, f.recomputeLayers
	return nil
}

func (f *planFlags) resolveDP(p *costmodel.Plan, gpus int) error {
	mp := p.TP * p.PP * p.CP
	switch {
	case f.set["dp"]:
		if p.DP < 1 {
			return badInputf("--dp %d must be at least 1", p.DP)
		}
	case gpus == 0:
		p.DP = 1
	case gpus%mp != 0:
		return badInputf("tp*pp*cp = %d*%d*%d = %d does not divide %d GPUs", p.TP, p.PP, p.CP, mp, gpus)
	default:
		p.DP = gpus / mp
	}
	if gpus != 0 && p.GPUs() != gpus {
		return badInput(fmt.Errorf("tp*pp*cp*dp = %d*%d*%d*%d = %d, but --gpus/--nodes give %d GPUs", p.TP, p.PP, p.CP, p.DP, p.GPUs(), gpus))
	}
	return nil
}

// precisionUsage lists the training precisions and recipes.
var precisionUsage = func() string {
	var names []string
	for _, p := range costmodel.Precisions() {
		names = append(names, p.String())
	}
	return "training precision or low-precision recipe: " + strings.Join(names, ", ") +
		" (fp8 is Transformer Engine's delayed scaling)"
}()
