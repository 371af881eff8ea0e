package calibration

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
)

// nemoFinetuneRecipe is one of NeMo-Framework-Launcher 24.07's H100
// fine-tuning scripts (examples/peft/llama/h100/<script>.sh, tag 24.07),
// the layouts of NeMo 24.07's fine-tuning table: what each sets beyond
// the table's columns. Every script sets fp8=true, ++fp8_params=true,
// micro-batch 1, global batch 32 and packed SQuAD of max_seq_length
// 4096 (packedSQuAD).
type nemoFinetuneRecipe struct {
	script, model, task string
	gpus, tp, pp, vpp   int
	sp                  bool
}

var nemoFinetuneRecipes = []nemoFinetuneRecipe{
	{script: "7b_1node", model: "llama-2-7b", task: "sft", gpus: 8, tp: 1, pp: 1},
	{script: "13b_1node", model: "llama-2-13b", task: "sft", gpus: 8, tp: 1, pp: 4, vpp: 10},
	{script: "70b_2node", model: "llama-2-70b", task: "sft", gpus: 16, tp: 4, pp: 4, vpp: 20, sp: true},
	{script: "7b_1node_lora", model: "llama-2-7b", task: "lora", gpus: 8, tp: 1, pp: 1},
	{script: "13b_1node_lora", model: "llama-2-13b", task: "lora", gpus: 8, tp: 1, pp: 1},
	{script: "70b_1node_lora", model: "llama-2-70b", task: "lora", gpus: 8, tp: 2, pp: 4},
}

// nemoRecipes applies the fine-tuning script of a NeMo 24.07 row: its
// interleaving (virtual_pipeline_model_parallel_size, which the table
// does not give), its sequence parallelism, and the FP8 weights of
// fp8_params (Transformer Engine's fp8_model_init: the model's linear
// weights are FP8 tensors): a trained model keeps them in FP8 only
// (costmodel.Assumptions.FP8ParamStorage), a LoRA base is an FP8 base.
func (c *Case) nemoRecipes() {
	c.nemotron340BOptimizer()
	r, ok := c.nemoRecipe()
	if !ok {
		return
	}
	p := c.Plan
	what := fmt.Sprintf("NeMo-Framework-Launcher 24.07 examples/peft/llama/h100/%s.sh", r.script)
	if r.vpp > 1 {
		p.VPP = r.vpp
		what += fmt.Sprintf(", virtual_pipeline_model_parallel_size %d", r.vpp)
	}
	if r.sp {
		p.SP = true
		what += ", sequence_parallel"
	}
	how := "FP8 weights"
	if p.Task.Adapted() {
		p.BaseDType = costmodel.BaseFP8
	} else {
		c.FP8Params, c.BF16Optimizer = true, true
		what += "; conf/peft/llama/sft.yaml optim distributed_fused_adam, dtype bf16, grad_sync_dtype bf16"
		how += ", bf16 optimizer state, weight copy and gradients"
	}
	c.recipePlan(p, what+", fp8_params", how)
}

// nemotron340BOptimizer: the only Nemotron-4 340B training config of
// NeMo-Framework-Launcher 24.07 (launcher_scripts/conf/training/nemotron/
// nemotron_340b.yaml) runs distributed_fused_adam with dtype bf16 and
// grad_sync_dtype bf16. Its layout (tp 8, pp 12, vpp 8, selective
// recompute, fp8 off) is not the table's, which states no config; the
// case takes the config's optimizer and keeps the table's layout.
func (c *Case) nemotron340BOptimizer() {
	if c.Row.Source() != "nemo_perf_summary_24.07" || !has(c.Row.Get("model"), "nemotron-4-340b") {
		return
	}
	c.BF16Optimizer = true
	assume(&c.Assumed, "optimizer: distributed_fused_adam, dtype bf16, grad_sync_dtype bf16 (NeMo-Framework-Launcher 24.07 conf/training/nemotron/nemotron_340b.yaml, whose layout differs)")
}

func (c *Case) nemoRecipe() (nemoFinetuneRecipe, bool) {
	if c.Row.Source() != "nemo_perf_summary_24.07" {
		return nemoFinetuneRecipe{}, false
	}
	p := c.Plan
	for _, r := range nemoFinetuneRecipes {
		if has(c.Row.Get("model"), r.model) && c.Row.Get("task") == r.task && p.GPUs() == r.gpus &&
			p.TP == r.tp && p.PP == r.pp {
			return r, true
		}
	}
	return nemoFinetuneRecipe{}, false
}
