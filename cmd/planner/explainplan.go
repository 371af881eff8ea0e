package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func init() {
	commands["explain-plan"] = command{"spell out a plan string, part by part", runExplainPlan}
	helpFooters["planner search"] = planLegend
}

// planLegend is the short key to the plan strings the search prints.
const planLegend = `plan string: tp<T>-pp<P>[v<V>][<first>,<last>]-cp<C>-dp<D>-zero<Z>[-sp]-<recompute>-mb<M>[-gpipe]
  = tensor, pipeline (v: virtual stages; [first,last]: layers on the end stages), context and
  data parallel degrees, ZeRO stage, sequence parallelism, recompute (selective[mods]: Megatron's
  recompute modules), micro-batch size;
  planner explain-plan PLAN spells one out`

func runExplainPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain-plan", stderr)
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		if err := fs.Parse(args); err != nil {
			return badInput(err)
		}
		return badInputf("give one plan string, e.g. planner explain-plan tp8-pp16v2[7,7]-cp1-dp128-zero1-sp-selective-mb1")
	}
	p, err := costmodel.ParsePlan(args[0], costmodel.Plan{})
	if err != nil {
		return badInput(err)
	}
	if err := checkPlanString(p); err != nil {
		return err
	}
	writePlanParts(stdout, args[0], p)
	return nil
}

// checkPlanString bounds what a plan string can say without a model: the
// degrees and the ZeRO stage.
func checkPlanString(p costmodel.Plan) error {
	for _, d := range []struct {
		name string
		v    int
	}{{"tp", p.TP}, {"pp", p.PP}, {"cp", p.CP}, {"dp", p.DP}, {"mb", p.MicroBatch}, {"v", p.VPP}} {
		if d.v < 1 || d.v > hardware.MaxGPUs {
			return badInputf("%s%d: %s is not in [1, %d]", d.name, d.v, d.name, hardware.MaxGPUs)
		}
	}
	if p.ZeRO > 3 {
		return badInputf("zero%d: the ZeRO stages are 0, 1, 2 and 3", p.ZeRO)
	}
	if _, ok := hardware.MulCount(p.TP, p.PP, p.CP, p.DP); !ok {
		return badInputf("tp x pp x cp x dp = %d x %d x %d x %d is more than %d GPUs", p.TP, p.PP, p.CP, p.DP, hardware.MaxGPUs)
	}
	return nil
}

// writePlanParts prints each part of the plan string s with its meaning.
func writePlanParts(w io.Writer, s string, p costmodel.Plan) {
	fmt.Fprintln(w, s)
	part := func(field, meaning string, args ...any) {
		indent := strings.Repeat(" ", 14)
		if len(field) > 11 { // a long field (selective[...]) on a line of its own
			fmt.Fprintf(w, "  %s\n%s", field, indent)
		} else {
			fmt.Fprintf(w, "  %-11s ", field)
		}
		fmt.Fprintf(w, "%s\n", wrapText(fmt.Sprintf(meaning, args...), textWidth, indent))
	}
	part(fmt.Sprintf("tp%d", p.TP), "tensor parallelism: each layer's weights split over %s (best inside one NVLink domain)", plural(p.TP, "GPU", "GPUs"))
	part(fmt.Sprintf("pp%d", p.PP), "pipeline parallelism: the layers in %s, one after the other", plural(p.PP, "stage", "stages"))
	if p.VPP > 1 {
		part(fmt.Sprintf("v%d", p.VPP), "interleaved 1F1B: %d model chunks per pipeline stage", p.VPP)
	}
	if p.FirstStageLayers != 0 || p.LastStageLayers != 0 {
		part(fmt.Sprintf("[%d,%d]", p.FirstStageLayers, p.LastStageLayers), "%s on the first stage and %d on the last; the middle stages share the rest equally",
			plural(p.FirstStageLayers, "layer", "layers"), p.LastStageLayers)
	}
	part(fmt.Sprintf("cp%d", p.CP), "context parallelism: each sequence split over %s", plural(p.CP, "GPU", "GPUs"))
	part(fmt.Sprintf("dp%d", p.DP), "data parallelism: %s, each on its own share of the batch", plural(p.DP, "replica", "replicas"))
	part(fmt.Sprintf("zero%d", p.ZeRO), "%s", zeroMeaning[p.ZeRO])
	if p.SP {
		part("sp", "sequence parallelism: norms and dropout split along the sequence over the tp ranks")
	}
	if p.Recompute == costmodel.Selective && p.RecomputeModules != 0 {
		part(fmt.Sprintf("selective[%s]", p.RecomputeModules), "selective recompute of Megatron-Core's modules %s: their saved tensors dropped and their forward run again in the backward pass",
			p.RecomputeModules)
	} else if p.Recompute == costmodel.Full && p.RecomputeLayers > 0 {
		part(fmt.Sprintf("full[%s%d]", p.RecomputeMethod, p.RecomputeLayers), "%s", partialRecomputeMeaning(p))
	} else {
		part(p.Recompute.String(), "%s", recomputeMeaning[p.Recompute.String()])
	}
	part(fmt.Sprintf("mb%d", p.MicroBatch), "micro-batches of %s", plural(p.MicroBatch, "sequence", "sequences"))
	if p.Schedule == costmodel.GPipe {
		part("gpipe", "GPipe schedule: every forward of a step before any backward")
	}
	fmt.Fprintf(w, "GPUs: tp x pp x cp x dp = %d x %d x %d x %d = %d\n", p.TP, p.PP, p.CP, p.DP, p.GPUs())
}

var zeroMeaning = [4]string{
	"ZeRO 0 (DDP): every data-parallel rank holds all model states",
	"ZeRO 1: optimizer states sharded over dp x cp",
	"ZeRO 2: optimizer states and gradients sharded over dp x cp",
	"ZeRO 3 (FSDP): optimizer states, gradients and weights sharded over dp x cp",
}

var recomputeMeaning = map[string]string{
	"none":      "no recompute: every activation kept for the backward pass",
	"selective": "selective recompute: attention's large intermediates recomputed in the backward pass",
	"full":      "full recompute: only each layer's input kept; the layer's forward runs again in the backward pass",
	"opsac":     "op-level selective checkpointing (torchtitan): each layer's input and the outputs of every other matmul and of the fused attention kept; the rest recomputed",
}

// partialRecomputeMeaning spells out Megatron-LM's --recompute-method
// with --recompute-num-layers.
func partialRecomputeMeaning(p costmodel.Plan) string {
	if p.RecomputeMethod == costmodel.Block {
		return fmt.Sprintf("full recompute of only the first %s of each pipeline stage (each model chunk): their inputs saved, their forward run again in the backward pass; the other layers keep their activations (Megatron-LM --recompute-method block --recompute-num-layers %d)",
			plural(p.RecomputeLayers, "layer", "layers"), p.RecomputeLayers)
	}
	return fmt.Sprintf("full recompute in groups of %s: one input saved per group, the group's forward run again in its backward pass (Megatron-LM --recompute-method uniform --recompute-num-layers %d)",
		plural(p.RecomputeLayers, "layer", "layers"), p.RecomputeLayers)
}
