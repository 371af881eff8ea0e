package costmodel

import "github.com/gpu-planner/planner/hardware"

// fp8ParamStorage drops the 16-bit weights of the stage's transformer
// layers when the framework keeps those parameters only in the low
// format (Assumptions.FP8ParamStorage). Megatron-Core's fp8_param_gather
// makes each linear layer's weight a quantized tensor whose data lives
// in the parameter buffer ("Keep the compute param in fp8 (do not use
// any other intermediate dtype) and perform the param all-gather in
// fp8", megatron/training/arguments.py, --fp8-param-gather); under MXFP8
// with reuse_grad_buf_for_mxfp8_param_ag the MXFP8 parameters keep
// their own quantized storage and only the 16-bit parameters left (the
// embedding, the norms) map to the buffer shared with the gradients
// (megatron/core/distributed/param_and_grad_buffer.py). The low-format
// weights (StageMemory.LowPrecisionWeights, Recipe.WeightCopyBytes) are
// then the only copy of those weights; the fp32 master weights and the
// gradients stay. The embedding and the output layer keep their 16-bit
// weights. A recipe without cached low-format weights (bf16, fp16,
// torchao's rowwise FP8) and a LoRA plan are left as they are. Memory
// only: the data-parallel parameter all-gather, which the setting also
// runs in FP8, is still priced at the 16-bit weight size (commplan.go).
func (e *Evaluator) fp8ParamStorage(p Plan, s *StageMemory, weight float64) {
	if !e.fp8Params(p) {
		return
	}
	dense := (e.localLayerParams(p, s) - s.ExpertParams) * weight
	experts := s.ExpertParams * weight
	if p.ZeRO == 3 {
		dense /= float64(p.ShardDegree())
		experts /= float64(p.ExpertDP())
	}
	s.Weights -= min(s.Weights, hardware.Bytes(dense))
	s.ExpertWeights -= min(s.ExpertWeights, hardware.Bytes(experts))
}

// srcFP8Params is the source of FP8ParamStorage.
const srcFP8Params = "Megatron-LM megatron/training/arguments.py, --fp8-param-gather"

// fp8Params reports whether plan p keeps its layers' weights only in the
// low format (fp8ParamStorage).
func (e *Evaluator) fp8Params(p Plan) bool {
	return e.a.FP8ParamStorage && p.Precision.Recipe().WeightCopyBytes > 0
}
