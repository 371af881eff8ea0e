package costmodel

// StateBytes is the bytes per parameter of each part of the model states.
type StateBytes struct {
	// Weight is the parameter as the forward pass reads it.
	Weight float64 `json:"weight"`
	// Grad is the gradient buffer.
	Grad float64 `json:"grad"`
	// Master is the fp32 copy of the weights that mixed-precision
	// optimizers update (Micikevicius et al. 2018, "Mixed Precision
	// Training"); zero in fp32 training, where the weights are the master.
	Master float64 `json:"master"`
	// Moments is the optimizer's own state: Adam's first and second
	// moments, a momentum buffer, or nothing for plain SGD.
	Moments float64 `json:"moments"`
}

// Total is the bytes per parameter of all model states unsharded.
func (s StateBytes) Total() float64 { return s.Weight + s.Grad + s.Master + s.Moments }

// Optimizer is the part ZeRO-1 shards: master weights and moments.
func (s StateBytes) Optimizer() float64 { return s.Master + s.Moments }

// adam8bitBlock is the block size of bitsandbytes' block-wise quantization
// (Dettmers et al. 2022, section 2.1): one fp32 absmax per 2,048 values.
const adam8bitBlock = 2048

// BytesPerParam returns the model-state bytes per parameter. Mixed-precision
// Adam is the classic 16 bytes: bf16 weight 2, bf16 gradient 2, fp32 master
// 4 and two fp32 moments 8 (Rajbhandari et al. 2020, "ZeRO", section 3.1:
// "2Ψ + 2Ψ + 12Ψ"). gradFP32 keeps an fp32 gradient buffer instead
// (Megatron-LM's main_grad), 18 bytes with Adam.
func BytesPerParam(p Precision, o Optimizer, gradFP32 bool) StateBytes {
	s := StateBytes{Weight: 2, Grad: 2, Master: 4}
	if p == FP32 {
		s = StateBytes{Weight: 4, Grad: 4}
	}
	if gradFP32 {
		s.Grad = 4
	}
	switch o {
	case Adam:
		s.Moments = 8
	case Adam8bit:
		s.Moments = 2 + 2*4.0/adam8bitBlock
	case Momentum:
		s.Moments = 4
	}
	return s
}

// ModelStateBytes is BytesPerParam under a's settings. With
// BF16OptimizerStates the Adam moments (or the momentum) are bf16, half
// their fp32 size, and the gradient buffer is bf16: Apex's
// DistributedFusedAdam keeps its state in its dtype and its contiguous
// gradient buffer in grad_sync_dtype (apex/contrib/optimizers/
// distributed_fused_adam.py). The parameter copy it updates is then
// bf16 when the model's weights are FP8 (FP8ParamStorage) and absent
// otherwise, the optimizer stepping the bf16 weights themselves: NeMo's
// setup_optimization sets store_params True under fp8_params and False
// when the optimizer dtype is the model's (nemo/collections/nlp/models/
// language_modeling/megatron_base_model.py, r2.0.0rc1).
func (a Assumptions) ModelStateBytes(p Precision, o Optimizer) StateBytes {
	s := BytesPerParam(p, o, a.GradAccumFP32)
	if !a.BF16OptimizerStates || p == FP32 {
		return s
	}
	s.Grad, s.Master = 2, 0
	if a.FP8ParamStorage {
		s.Master = 2
	}
	if o == Adam || o == Momentum {
		s.Moments /= 2
	}
	return s
}

// ShardedStates is the per-GPU bytes of each model-state part after ZeRO.
type ShardedStates struct {
	Weights, Gradients, Master, Moments float64
}

// Shard divides the states of params parameters over n data-parallel
// ranks at ZeRO stage z (Rajbhandari et al. 2020, Figure 1): stage 1
// shards the optimizer states (master weights and moments), stage 2 also
// the gradients, stage 3 (FSDP) also the weights. With Adam in mixed
// precision and N = n, per GPU that is DDP 16P, ZeRO-1 4P + 12P/N,
// ZeRO-2 2P + 14P/N, ZeRO-3 16P/N.
func (s StateBytes) Shard(params float64, z, n int) ShardedStates {
	div := func(stage int) float64 {
		if z >= stage {
			return float64(n)
		}
		return 1
	}
	return ShardedStates{
		Weights:   params * s.Weight / div(3),
		Gradients: params * s.Grad / div(2),
		Master:    params * s.Master / div(1),
		Moments:   params * s.Moments / div(1),
	}
}

// Total is the sum of the sharded parts.
func (s ShardedStates) Total() float64 { return s.Weights + s.Gradients + s.Master + s.Moments }
