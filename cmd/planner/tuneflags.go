package main

import (
	"flag"

	"github.com/gpu-planner/planner/costmodel"
)

// tuneFlags describe what the run trains (pre-training, a full
// fine-tune, LoRA or QLoRA), what it offloads to host memory, and
// whether its sequences are packed from short samples.
type tuneFlags struct {
	task, targets, base, offload string
	rank                         int
	packed                       int
	set                          map[string]bool
}

func (f *tuneFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.task, "task", "pretrain", "what trains: pretrain, full (fine-tune every weight), lora, qlora (4-bit NF4 base)")
	fs.IntVar(&f.rank, "lora-rank", costmodel.DefaultLoRARank, "LoRA adapter rank r (lora, qlora)")
	fs.StringVar(&f.targets, "lora-targets", costmodel.AllTargets.String(), "comma-separated matrices with adapters: q, k, v, o, gate, up, down, or all; qkv is one adapter on the fused QKV projection (Megatron's linear_qkv) in place of q, k, v (lora, qlora)")
	fs.StringVar(&f.base, "base-dtype", "bf16", "frozen base weights: bf16 or fp8 (lora); qlora is nf4")
	fs.StringVar(&f.offload, "offload", "none", "model states in host memory: none, optimizer (ZeRO-Offload, zero >= 1), params (ZeRO-Infinity, zero 3)")
	fs.IntVar(&f.packed, "packed-sample-tokens", 0, "sequences packed from short samples, attention within each (THD / cu_seqlens): the samples' length-weighted mean length E[len^2]/E[len], tokens, at most --seq (0: not packed)")
}

// apply sets the task fields of p; set is the flags given.
func (f *tuneFlags) apply(p *costmodel.Plan, set map[string]bool) error {
	var err error
	if p.Task, err = costmodel.ParseTask(f.task); err != nil {
		return badInput(err)
	}
	if p.Offload, err = costmodel.ParseOffload(f.offload); err != nil {
		return badInput(err)
	}
	if f.packed < 0 {
		return badInputf("--packed-sample-tokens %d is negative (give the packed samples' E[len^2]/E[len] in tokens, or 0 for unpacked sequences)", f.packed)
	}
	p.PackedSampleTokens = f.packed
	if !p.Task.Adapted() {
		for _, n := range []string{"lora-rank", "lora-targets", "base-dtype"} {
			if set[n] {
				return badInputf("--%s needs --task lora or qlora, not %s", n, p.Task)
			}
		}
		return nil
	}
	if f.rank < 1 {
		return badInputf("--lora-rank %d must be at least 1", f.rank)
	}
	p.LoRARank = f.rank
	if p.LoRATargets, err = costmodel.ParseLoRATargets(f.targets); err != nil {
		return badInput(err)
	}
	if p.BaseDType, err = costmodel.ParseBaseDType(f.base); err != nil {
		return badInput(err)
	}
	if p.Task == costmodel.QLoRA {
		if set["base-dtype"] && p.BaseDType != costmodel.BaseNF4 {
			return badInputf("--base-dtype %s: qlora's base is nf4 (use --task lora for a bf16 or fp8 base)", f.base)
		}
		p.BaseDType = costmodel.BaseNF4
	}
	return nil
}
