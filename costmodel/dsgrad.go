package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// srcDSStep cites DeepSpeed ZeRO-1/2's optimizer step.
const srcDSStep = "DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, DeepSpeedZeroOptimizer.step: " +
	"single_grad_partition = flatten(averaged_gradients).to(fp32), set as the fp32 partition's .grad"

// stepGradCopy is the memory DeepSpeed's ZeRO-1/2 optimizer step adds
// (Assumptions.StepFP32GradPartition): the step flattens the GPU's
// gradient partition and casts it to fp32 to set it as the gradient of
// the fp32 master partition, 4 bytes a parameter of the partition,
// while the 16-bit gradients are still held. It exists after the
// backward pass, when the activations are freed and the caching
// allocator reuses their blocks, so it adds to the peak only what the
// activations do not cover:
//
//	max(0, 4 B x P_gpu / (dp x cp) - activations)
//
// (routed experts' parameters over the expert data-parallel group).
func (e *Evaluator) stepGradCopy(p Plan, s *StageMemory) {
	if !e.a.StepFP32GradPartition || p.ZeRO < 1 || p.ZeRO > 2 || p.Offload != NoOffload || p.Task.Adapted() {
		return
	}
	part := 4 * (s.Params/float64(p.ShardDegree()) + s.ExpertParams/float64(p.ExpertDP()))
	s.StepGradCopy = hardware.Bytes(max(0, part-float64(s.Activations())))
}

// stepGradCopyLine itemizes stepGradCopy.
func stepGradCopyLine(p Plan, s StageMemory) Line {
	return Line{Name: "optimizer step: fp32 copy of the gradient partition (DeepSpeed)", Group: GroupStates, Bytes: s.StepGradCopy,
		Formula: fmt.Sprintf("max(0, 4 B x P_gpu/%d - activations freed before the step)", p.ShardDegree()), Source: srcDSStep}
}
