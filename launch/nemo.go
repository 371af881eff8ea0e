package launch

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// BridgeCommit is the Megatron-Bridge commit whose ConfigContainer
// sections the override keys are checked against (their Megatron-Core
// bases at the Megatron-LM commit Bridge pins as its submodule).
const BridgeCommit = "067f987df03b8355b03192d88d70f1709fedf51a"

// nemo writes overrides of a Megatron-Bridge (NeMo 2) recipe's
// ConfigContainer, one section.field=value a line, the form its recipe
// scripts take as command-line overrides.
func nemo(job Job) (Config, error) {
	p := job.Plan
	switch {
	case p.Schedule == costmodel.GPipe:
		return Config{}, unsupported(NeMo, job, "Megatron-Core schedules pipelines with 1F1B, not GPipe")
	case p.Optimizer != costmodel.Adam && p.Optimizer != costmodel.SGD:
		return Config{}, unsupported(NeMo, job, "Megatron-Core's optimizers are adam and sgd, not %s", p.Optimizer)
	case p.Recompute == costmodel.OpSAC:
		return Config{}, unsupported(NeMo, job, "%s", opSACElsewhere)
	}
	var a args
	bridgeModel(&a, job)
	a.add("train.micro_batch_size", p.MicroBatch)
	a.add("train.global_batch_size", p.GlobalBatch)
	a.add("dataset.seq_length", p.Seq)
	bridgeData(&a, job)
	var b strings.Builder
	fmt.Fprintf(&b, "# Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge %s) recipe overrides\n", BridgeCommit[:12])
	fmt.Fprintf(&b, "# plan %s on %d GPUs, %s\n", p, p.GPUs(), job.Model.Name)
	for _, x := range a {
		fmt.Fprintf(&b, "%s=%s\n", x.key, x.value)
	}
	return Config{Framework: NeMo, Text: b.String(), Keys: a.keys()}, nil
}

func bridgeModel(a *args, job Job) {
	p := job.Plan
	a.add("model.tensor_model_parallel_size", p.TP)
	a.add("model.pipeline_model_parallel_size", p.PP)
	uneven := p.FirstStageLayers != 0 || p.LastStageLayers != 0
	switch {
	case uneven && p.VPP > 1:
		a.add("model.pipeline_model_parallel_layout", fmt.Sprintf("%q", megatronLayout(p, job.Model.Layers)))
	case uneven:
		a.add("model.num_layers_in_first_pipeline_stage", p.FirstStageLayers)
		a.add("model.num_layers_in_last_pipeline_stage", p.LastStageLayers)
	case p.VPP > 1:
		a.add("model.virtual_pipeline_model_parallel_size", p.VPP)
	}
	a.add("model.context_parallel_size", p.CP)
	expertArgs(a, job, "model.expert_model_parallel_size", "model.expert_tensor_parallel_size")
	a.add("model.sequence_parallel", p.SP)
	a.add("model.seq_length", p.Seq)
	switch p.Recompute {
	case costmodel.Selective:
		a.add("model.recompute_granularity", "selective")
		a.add("model.recompute_modules", "["+p.RecomputeModules.String()+"]")
	case costmodel.Full:
		a.add("model.recompute_granularity", "full")
		method, n := recomputeLayers(p)
		a.add("model.recompute_method", method)
		a.add("model.recompute_num_layers", n)
	}
}

// bridgeData writes the data-parallel sharding, the overlap the step
// time assumed, the precision and the optimizer.
func bridgeData(a *args, job Job) {
	p, as := job.Plan, job.Assumptions
	dist := p.ZeRO >= 1
	a.add("ddp.use_distributed_optimizer", dist)
	a.add("optimizer.use_distributed_optimizer", dist)
	if p.ZeRO >= 2 {
		a.add("ddp.use_megatron_fsdp", true)
		a.add("ddp.data_parallel_sharding_strategy", map[int]string{2: "optim_grads", 3: "optim_grads_params"}[p.ZeRO])
	}
	a.add("ddp.overlap_grad_reduce", as.OverlapGradReduce && p.DP*p.CP > 1)
	a.add("ddp.overlap_param_gather", as.OverlapParamGather && dist && p.DP*p.CP > 1)
	a.add("comm_overlap.tp_comm_overlap", as.TPCommOverlap && p.TP > 1 && p.SP)
	switch p.Precision {
	case costmodel.BF16:
		a.add("mixed_precision.bf16", true)
	case costmodel.FP16:
		a.add("mixed_precision.fp16", true)
	case costmodel.FP8:
		a.add("mixed_precision.bf16", true)
		a.add("mixed_precision.fp8", "hybrid")
	}
	a.add("optimizer.optimizer", map[costmodel.Optimizer]string{costmodel.Adam: "adam", costmodel.SGD: "sgd"}[p.Optimizer])
}
