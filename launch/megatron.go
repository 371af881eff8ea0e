package launch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// MegatronCommit is the Megatron-LM commit whose arguments
// (megatron/training/arguments.py) the flags are checked against.
const MegatronCommit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"

// arg is one flag or key and its value ("" for a bare switch); list
// marks a space-separated value that is several arguments (nargs='*').
type arg struct {
	key, value string
	list       bool
}

// args collects flags in order.
type args []arg

func (a *args) add(key string, value any) { *a = append(*a, arg{key: key, value: fmt.Sprint(value)}) }
func (a *args) on(key string)             { *a = append(*a, arg{key: key}) }

// addList adds a flag that takes several values (argparse nargs='*').
func (a *args) addList(key string, values []string) {
	*a = append(*a, arg{key: key, value: strings.Join(values, " "), list: true})
}

func (a args) keys() []string {
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = x.key
	}
	return out
}

// megatron writes Megatron-LM's pretrain_gpt.py arguments as a bash
// array.
// opSACElsewhere says why Megatron-Core cannot run OpSAC.
const opSACElsewhere = "its recompute is by module (--recompute-modules) or whole layers, not PyTorch's op-level " +
	"selective checkpointing (opsac, torchtitan's selective_ac_option \"op\")"

func megatron(job Job) (Config, error) {
	p, m := job.Plan, job.Model
	if p.Schedule == costmodel.GPipe {
		return Config{}, unsupported(Megatron, job, "Megatron-LM schedules pipelines with 1F1B (interleaved with virtual stages), not GPipe")
	}
	if p.Recompute == costmodel.OpSAC {
		return Config{}, unsupported(Megatron, job, "%s", opSACElsewhere)
	}
	var a args
	megatronModel(&a, m, p)
	if err := megatronParallel(&a, job); err != nil {
		return Config{}, err
	}
	if err := megatronPrecision(&a, job); err != nil {
		return Config{}, err
	}
	megatronOverlap(&a, job)
	var b strings.Builder
	fmt.Fprintf(&b, "# Megatron-LM (NVIDIA/Megatron-LM %s) pretrain_gpt.py arguments\n", MegatronCommit[:12])
	fmt.Fprintf(&b, "# plan %s on %d GPUs, %s\n", p, p.GPUs(), m.Name)
	b.WriteString("MEGATRON_ARGS=(\n")
	for _, x := range a {
		switch {
		case x.value == "":
			fmt.Fprintf(&b, "  %s\n", x.key)
		case x.list:
			fmt.Fprintf(&b, "  %s", x.key)
			for _, v := range strings.Fields(x.value) {
				fmt.Fprintf(&b, " %s", shellQuote(v))
			}
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "  %s %s\n", x.key, shellQuote(x.value))
		}
	}
	b.WriteString(")\n")
	return Config{Framework: Megatron, Text: b.String(), Keys: a.keys()}, nil
}

func megatronModel(a *args, m *costmodel.Model, p costmodel.Plan) {
	a.add("--num-layers", m.Layers)
	a.add("--hidden-size", m.Hidden)
	a.add("--ffn-hidden-size", m.FFN)
	a.add("--num-attention-heads", m.Heads)
	if m.KVHeads > 0 && m.KVHeads < m.Heads {
		a.on("--group-query-attention")
		a.add("--num-query-groups", m.KVHeads)
	}
	a.add("--seq-length", p.Seq)
	a.add("--max-position-embeddings", max(p.Seq, m.MaxSeq))
	a.add("--micro-batch-size", p.MicroBatch)
	a.add("--global-batch-size", p.GlobalBatch)
}

// megatronParallel writes the layout: tp, pp with virtual stages and
// uneven end stages, cp, sequence parallelism, the ZeRO stage and
// recompute.
func megatronParallel(a *args, job Job) error {
	p := job.Plan
	a.add("--tensor-model-parallel-size", p.TP)
	a.add("--pipeline-model-parallel-size", p.PP)
	uneven := p.FirstStageLayers != 0 || p.LastStageLayers != 0
	switch {
	case uneven && p.VPP > 1:
		// Megatron splits an uneven end stage evenly over its chunks;
		// the plan's difference sits in the end chunks, which only a
		// layout spells out.
		a.add("--pipeline-model-parallel-layout", megatronLayout(p, job.Model.Layers))
	case uneven:
		a.add("--decoder-first-pipeline-num-layers", p.FirstStageLayers)
		a.add("--decoder-last-pipeline-num-layers", p.LastStageLayers)
	case p.VPP > 1:
		a.add("--num-virtual-stages-per-pipeline-rank", p.VPP)
	}
	a.add("--context-parallel-size", p.CP)
	expertArgs(a, job, "--expert-model-parallel-size", "--expert-tensor-parallel-size")
	if p.SP {
		a.on("--sequence-parallel")
	}
	switch p.ZeRO {
	case 1:
		a.on("--use-distributed-optimizer")
	case 2, 3:
		a.on("--use-distributed-optimizer")
		a.on("--use-megatron-fsdp")
		a.add("--data-parallel-sharding-strategy", map[int]string{2: "optim_grads", 3: "optim_grads_params"}[p.ZeRO])
	}
	switch p.Recompute {
	case costmodel.Selective:
		a.add("--recompute-granularity", "selective")
		a.addList("--recompute-modules", p.RecomputeModules.Names())
	case costmodel.Full:
		a.add("--recompute-granularity", "full")
		method, n := recomputeLayers(p)
		a.add("--recompute-method", method)
		a.add("--recompute-num-layers", n)
	}
	return nil
}

func megatronPrecision(a *args, job Job) error {
	p := job.Plan
	switch p.Precision {
	case costmodel.BF16:
		a.on("--bf16")
	case costmodel.FP16:
		a.on("--fp16")
	case costmodel.FP8:
		a.on("--bf16")
		a.add("--fp8-format", "hybrid")
	}
	switch p.Optimizer {
	case costmodel.Adam:
		a.add("--optimizer", "adam")
	case costmodel.SGD, costmodel.Momentum:
		a.add("--optimizer", "sgd")
		if p.Optimizer == costmodel.Momentum {
			a.add("--sgd-momentum", "0.9")
		}
	default:
		return unsupported(Megatron, job, "Megatron-LM has no %s optimizer (adam, sgd)", p.Optimizer)
	}
	if p.Attention == costmodel.Flash {
		a.add("--attention-backend", "flash")
	}
	return nil
}

// megatronOverlap matches the overlap the step time assumed.
func megatronOverlap(a *args, job Job) {
	p, as := job.Plan, job.Assumptions
	if as.OverlapGradReduce && p.DP*p.CP > 1 {
		a.on("--overlap-grad-reduce")
	}
	if as.OverlapParamGather && p.ZeRO >= 1 && p.DP*p.CP > 1 {
		a.on("--overlap-param-gather")
	}
	if as.TPCommOverlap && p.TP > 1 && p.SP {
		a.on("--tp-comm-overlap")
	}
	if !as.OverlapP2P && p.Interleaved() {
		a.on("--no-overlap-p2p-communication")
	}
}

// megatronLayout writes the model chunks in layer order in the syntax of
// Megatron-LM's PipelineParallelLayerLayout ("E" embedding, "t" a
// transformer layer, "L" the loss, "|" between virtual stages, x*n
// repeats): the first chunk holds the embedding and
// first - (vpp-1) x c layers, the last last - (vpp-1) x c and the loss,
// every other chunk c (chunkLayers).
func megatronLayout(p costmodel.Plan, layers int) string {
	c, chunks := chunkLayers(p, layers), p.PP*p.VPP
	first, last := endChunk(p, p.FirstStageLayers, layers), endChunk(p, p.LastStageLayers, layers)
	mid := ""
	if n := chunks - 2; n > 0 {
		mid = "(" + repeatT(c) + "|)*" + strconv.Itoa(n) + ","
	}
	return "E" + repeatT(first) + "|" + mid + repeatT(last) + "L"
}

// repeatT writes n transformer layers: "", "t" or "t*n".
func repeatT(n int) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "t"
	}
	return "t*" + strconv.Itoa(n)
}

// shellQuote quotes a value for bash when it holds anything beyond
// letters, digits and . _ - / : , =.
func shellQuote(v string) string {
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:,=", r)) {
			return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		}
	}
	return v
}

// recomputeLayers is Megatron-LM's --recompute-method and
// --recompute-num-layers for a full recompute: the plan's partial
// recompute (costmodel.Plan.RecomputeLayers), or uniform groups of one
// layer, every layer checkpointed (megatron/core/transformer/
// transformer_block.py, _checkpointed_forward).
func recomputeLayers(p costmodel.Plan) (method string, n int) {
	if p.RecomputeLayers == 0 {
		return "uniform", 1
	}
	return p.RecomputeMethod.String(), p.RecomputeLayers
}
