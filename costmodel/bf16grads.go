package costmodel

import "github.com/gpu-planner/planner/hardware"

// DeepSpeed's BF16_Optimizer (Assumptions.BF16OptimizerGrads;
// microsoft/DeepSpeed v0.6, deepspeed/runtime/bf16_optimizer.py and
// runtime/pipe/engine.py), the optimizer of BLOOM's Megatron-DeepSpeed
// (bigscience-workshop/bigscience train/tr11-176B-ml/README.md):
//
//   - after every micro-batch's backward, update_hp_grads adds each bf16
//     gradient into its fp32 copy, hp_grad.add_(lp.grad.to(fp32)): the
//     cast reads 2 B and writes a 4 B temporary, the add reads it and the
//     fp32 gradient (4 + 4 B) and writes the sum (4 B), 18 B a parameter
//     of the stage, memory-bound;
//   - after the pipeline flush, _bf16_reduce_grads all-reduces those fp32
//     gradients over dp (buffered_allreduce_fallback), the whole stage's
//     and not a shard of it; the optimizer then updates its ZeRO-1 shard
//     and all-gathers the bf16 weights (all_gather_dp_groups).

// bf16AccumBytes is what update_hp_grads moves per parameter and
// micro-batch.
const bf16AccumBytes = 2 + 4 + 4 + 4 + 4

// bf16GradAccum is the per-micro-batch accumulation pass over the
// stage's trained parameters: 18 B each at the HBM rate of memory-bound
// kernels.
func (e *Evaluator) bf16GradAccum(in *stepInput, trained float64) float64 {
	if !e.a.BF16OptimizerGrads || in.p.ZeRO != 1 || in.p.Task.Adapted() {
		return 0
	}
	return bf16AccumBytes * trained / in.r.mem
}

const srcBF16Grads = "DeepSpeed v0.6 PipelineEngine._bf16_reduce_grads (fp32 all-reduce) and BF16_Optimizer.step (all_gather_dp_groups)"

// bf16GradCopies is the memory of the bf16 gradients the BF16_Optimizer
// keeps beside its fp32 ones: backward writes each parameter's bf16
// .grad and update_hp_grads(clear_lp_grads=False) leaves it until
// clear_lp_grads before the next backward, so at the backward's peak the
// GPU holds both, 2 B x P_gpu more than the fp32 gradient line.
func (e *Evaluator) bf16GradCopies(p Plan, s *StageMemory) {
	if !e.a.BF16OptimizerGrads || p.ZeRO != 1 || p.Offload != NoOffload || p.Task.Adapted() {
		return
	}
	s.BF16GradCopies = hardware.Bytes(2 * (s.Params + s.ExpertParams))
}

// bf16GradCopiesLine itemizes bf16GradCopies.
func bf16GradCopiesLine(s StageMemory) Line {
	return Line{Name: "gradients: bf16 copies (BF16_Optimizer)", Group: GroupStates, Bytes: s.BF16GradCopies,
		Formula: "2 B/param x P_gpu beside the fp32 gradients", Source: srcBF16Accum}
}

const srcBF16Accum = "DeepSpeed v0.6 BF16_Optimizer: update_hp_grads(clear_lp_grads=False) after each backward, clear_lp_grads before the next"
