package launch

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// TorchTitanCommit is the torchtitan commit whose JobConfig
// (torchtitan/config/job_config.py) the TOML keys are checked against:
// the last with TOML job configs (the next, #2386, moved them to Python).
const TorchTitanCommit = "e347b1e5e6b6941d789d16d340145294d82dc71e"

// toml collects section.key = value lines in section order.
type toml struct {
	sections []string
	lines    map[string][]string
	keys     []string
}

func (t *toml) set(section, key string, value any) {
	if t.lines == nil {
		t.lines = map[string][]string{}
	}
	if _, ok := t.lines[section]; !ok {
		t.sections = append(t.sections, section)
	}
	v := fmt.Sprint(value)
	switch x := value.(type) {
	case string:
		v = fmt.Sprintf("%q", x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = fmt.Sprintf("%q", s)
		}
		v = "[" + strings.Join(q, ", ") + "]"
	}
	t.lines[section] = append(t.lines[section], key+" = "+v)
	t.keys = append(t.keys, section+"."+key)
}

func (t *toml) String() string {
	var b strings.Builder
	for _, s := range t.sections {
		fmt.Fprintf(&b, "\n[%s]\n%s\n", s, strings.Join(t.lines[s], "\n"))
	}
	return b.String()
}

// torchtitan writes a torchtitan TOML job config.
func torchtitan(job Job) (Config, error) {
	p := job.Plan
	if err := torchtitanCan(job); err != nil {
		return Config{}, err
	}
	var t toml
	t.set("training", "seq_len", p.Seq)
	t.set("training", "global_batch_size", p.GlobalBatch)
	t.set("training", "local_batch_size", torchtitanLocalBatch(p))
	t.set("training", "mixed_precision_param", map[costmodel.Precision]string{costmodel.BF16: "bfloat16", costmodel.FP8: "bfloat16",
		costmodel.FP16: "float16", costmodel.FP32: "float32"}[p.Precision])
	if p.Precision == costmodel.FP8 {
		t.set("model", "converters", []string{"float8"})
	}
	t.set("optimizer", "name", "AdamW")
	torchtitanParallel(&t, job)
	t.set("activation_checkpoint", "mode", map[costmodel.Recompute]string{costmodel.NoRecompute: "none",
		costmodel.Selective: "selective", costmodel.Full: "full", costmodel.OpSAC: "selective"}[p.Recompute])
	if p.Recompute == costmodel.Selective || p.Recompute == costmodel.OpSAC {
		t.set("activation_checkpoint", "selective_ac_option", "op")
	}
	head := fmt.Sprintf("# torchtitan (pytorch/torchtitan %s) job config\n# plan %s on %d GPUs, %s; set [model] name and flavor for it\n",
		TorchTitanCommit[:12], p, p.GPUs(), job.Model.Name)
	return Config{Framework: TorchTitan, Text: head + t.String(), Keys: t.keys}, nil
}

// torchtitanCan names what torchtitan's FSDP2, tensor and pipeline
// parallelism cannot do as planned.
func torchtitanCan(job Job) error {
	p := job.Plan
	switch {
	case p.ZeRO == 1:
		return unsupported(TorchTitan, job, "FSDP2 has no ZeRO-1 (optimizer states alone sharded); use zero 2 (reshard never) or 3")
	case p.ZeRO == 0 && p.CP > 1:
		return unsupported(TorchTitan, job, "with context parallelism FSDP2 shards the weights over the cp ranks; use zero 2 or 3")
	case p.TP > 1 && !p.SP:
		return unsupported(TorchTitan, job, "its tensor parallelism always shards the norms along the sequence (sequence parallelism on)")
	case p.Optimizer != costmodel.Adam:
		return unsupported(TorchTitan, job, "its optimizers are Adam and AdamW, not %s", p.Optimizer)
	case p.Recompute == costmodel.Selective && p.RecomputeModules != 0:
		return unsupported(TorchTitan, job, "its selective checkpointing is per op or per layer, not Megatron's modules (%s)", p.RecomputeModules)
	case p.Recompute == costmodel.Full && p.RecomputeLayers > 0:
		return unsupported(TorchTitan, job, "its full checkpointing wraps every block, and its layer option checkpoints every n-th block, not Megatron's %s of %d layers", p.RecomputeMethod, p.RecomputeLayers)
	case p.PP > 1 && (torchtitanLess(p, p.FirstStageLayers, job) < 0 || torchtitanLess(p, p.LastStageLayers, job) < 0):
		return unsupported(TorchTitan, job, "its pipeline split can make the end stages lighter, not heavier, than the others")
	}
	return nil
}

// torchtitanLocalBatch is the batch per data-parallel rank and step:
// with a pipeline, all its micro-batches (split by
// pipeline_parallel_microbatch_size); without, one micro-batch, the rest
// by gradient accumulation (global / (local x dp)).
func torchtitanLocalBatch(p costmodel.Plan) int {
	if p.PP > 1 {
		return p.GlobalBatch / p.DP
	}
	return p.MicroBatch
}

// torchtitanLess is how many layers fewer than a middle chunk the end
// chunk holds: torchtitan's pipeline_parallel_first/last_stage_less_layers
// (0 for an even split).
func torchtitanLess(p costmodel.Plan, stageLayers int, job Job) int {
	if p.FirstStageLayers == 0 && p.LastStageLayers == 0 {
		return 0
	}
	return chunkLayers(p, job.Model.Layers) - endChunk(p, stageLayers, job.Model.Layers)
}

func torchtitanParallel(t *toml, job Job) {
	p := job.Plan
	t.set("parallelism", "tensor_parallel_degree", p.TP)
	t.set("parallelism", "context_parallel_degree", p.CP)
	if ep, etp := expertDegrees(p); ep > 1 || etp > 1 {
		t.set("parallelism", "expert_parallel_degree", ep)
		t.set("parallelism", "expert_tensor_parallel_degree", etp)
	}
	if p.ZeRO == 0 {
		t.set("parallelism", "data_parallel_replicate_degree", p.DP)
		t.set("parallelism", "data_parallel_shard_degree", 1)
	} else {
		t.set("parallelism", "data_parallel_replicate_degree", 1)
		t.set("parallelism", "data_parallel_shard_degree", p.DP)
		t.set("parallelism", "fsdp_reshard_after_forward", map[int]string{2: "never", 3: "always"}[p.ZeRO])
	}
	t.set("parallelism", "pipeline_parallel_degree", p.PP)
	if p.PP == 1 {
		return
	}
	schedule := "1F1B"
	switch {
	case p.Schedule == costmodel.GPipe:
		schedule = "GPipe"
	case p.VPP > 1:
		schedule = "Interleaved1F1B"
	}
	t.set("parallelism", "pipeline_parallel_schedule", schedule)
	t.set("parallelism", "pipeline_parallel_microbatch_size", p.MicroBatch)
	t.set("parallelism", "pipeline_parallel_layers_per_stage", chunkLayersEven(p, job.Model.Layers))
	t.set("parallelism", "pipeline_parallel_first_stage_less_layers", torchtitanLess(p, p.FirstStageLayers, job))
	t.set("parallelism", "pipeline_parallel_last_stage_less_layers", torchtitanLess(p, p.LastStageLayers, job))
}

// chunkLayersEven is the layers of a middle model chunk, for even splits
// layers / (pp x vpp).
func chunkLayersEven(p costmodel.Plan, layers int) int {
	if p.FirstStageLayers == 0 && p.LastStageLayers == 0 {
		return layers / (p.PP * p.VPP)
	}
	return chunkLayers(p, layers)
}
