package costmodel

import (
	"fmt"
	"strings"
)

// Task is what a training run updates: every weight (pre-training or a
// full fine-tune) or low-rank adapters on a frozen base (LoRA, QLoRA).
type Task int

const (
	// Pretrain trains every weight; the default.
	Pretrain Task = iota
	// FullFineTune trains every weight, like Pretrain: the same memory and
	// time, named for the question it answers.
	FullFineTune
	// LoRA freezes the base weights and trains rank-r adapters B·A beside
	// the target matrices (Hu et al. 2021, "LoRA", arXiv:2106.09685).
	LoRA
	// QLoRA is LoRA on a base quantized to 4-bit NormalFloat with double
	// quantization, paged optimizers (Dettmers et al. 2023, "QLoRA",
	// arXiv:2305.14314).
	QLoRA
)

var taskNames = enumNames{"pretrain", "full", "lora", "qlora"}

func (t Task) String() string               { return taskNames.name(int(t)) }
func (t Task) MarshalText() ([]byte, error) { return []byte(t.String()), nil }
func (t *Task) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "task", taskNames, (*int)(t))
}
func ParseTask(s string) (Task, error) {
	i, err := taskNames.parse("task", s)
	return Task(i), err
}

// Adapted reports whether the task trains adapters on a frozen base.
func (t Task) Adapted() bool { return t == LoRA || t == QLoRA }

// BaseDType is the storage of a frozen base model's weights.
type BaseDType int

const (
	// BaseBF16 keeps the base in bf16, 2 bytes per parameter.
	BaseBF16 BaseDType = iota
	// BaseFP8 keeps the base in fp8, 1 byte per parameter (per-tensor
	// scales, negligible).
	BaseFP8
	// BaseNF4 is QLoRA's 4-bit NormalFloat with double quantization.
	BaseNF4
)

var baseDTypeNames = enumNames{"bf16", "fp8", "nf4"}

func (d BaseDType) String() string               { return baseDTypeNames.name(int(d)) }
func (d BaseDType) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (d *BaseDType) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "base dtype", baseDTypeNames, (*int)(d))
}
func ParseBaseDType(s string) (BaseDType, error) {
	i, err := baseDTypeNames.parse("base dtype", s)
	return BaseDType(i), err
}

// NF4 block sizes of QLoRA (Dettmers et al. 2023, sec. 3, "Double
// Quantization"): one absmax constant per 64 weights, and the constants
// quantized to 8 bits with one fp32 second-level constant per 256.
const (
	nf4Block  = 64
	nf4Block2 = 256
)

// NF4BitsPerParam is QLoRA's storage per weight: 4 bits of NormalFloat
// plus the double-quantized block constants,
//
//	4 + 8/64 + 32/(64·256) = 4.127 bits
//
// (Dettmers et al. 2023, sec. 3: "reduces the memory footprint per
// parameter from 32/64 = 0.5 bits, to 8/64 + 32/(64·256) = 0.127 bits").
func NF4BitsPerParam() float64 {
	return 4 + 8.0/nf4Block + 32.0/(nf4Block*nf4Block2)
}

// Bytes is the storage of one frozen base weight: bf16 2, fp8 1, NF4
// NF4BitsPerParam/8 = 0.516.
func (d BaseDType) Bytes() float64 {
	switch d {
	case BaseFP8:
		return 1
	case BaseNF4:
		return NF4BitsPerParam() / 8
	}
	return 2
}

// LoRATargets is the set of a layer's projection matrices that carry
// adapters, one bit per matrix.
type LoRATargets uint8

// The projection matrices LoRA can target, in Hugging Face PEFT's
// names for Llama-style layers.
const (
	TargetQ LoRATargets = 1 << iota
	TargetK
	TargetV
	TargetO
	TargetGate
	TargetUp
	TargetDown
	// TargetQKV is one adapter on the fused query-key-value projection
	// (Megatron-Core's linear_qkv): A is r x h, B is (q + 2 kv) x r, so the
	// input is read by one A, not three. NeMo 1.x's attention_qkv target
	// (LoraKQVAdapter) and Megatron-Bridge's LoRA on linear_qkv
	// (src/megatron/bridge/peft/lora.py wraps the module in one
	// LoRALinear) are this; Hugging Face PEFT's q_proj, k_proj, v_proj are
	// three adapters. Not with q, k or v, nor with MLA's split projections.
	TargetQKV
)

// AllTargets is every attention and MLP projection, QLoRA's choice
// (Dettmers et al. 2023, sec. 4: adapters on all linear layers are needed
// to match full fine-tuning).
const AllTargets = TargetQ | TargetK | TargetV | TargetO | TargetGate | TargetUp | TargetDown

var targetNames = []string{"q", "k", "v", "o", "gate", "up", "down", "qkv"}

// String lists the targets, "q,k,v,o,gate,up,down".
func (t LoRATargets) String() string {
	var out []string
	for i, n := range targetNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

func (t LoRATargets) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// ParseLoRATargets reads a comma-separated list of q, k, v, o, gate, up,
// down, qkv (also "all", and PEFT's q_proj ... down_proj).
func ParseLoRATargets(s string) (LoRATargets, error) {
	var t LoRATargets
	for _, f := range strings.Split(s, ",") {
		key := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(f)), "_proj")
		if key == "all" {
			t |= AllTargets
			continue
		}
		i := indexOf(targetNames, key)
		if i < 0 {
			return 0, fmt.Errorf("costmodel: unknown LoRA target %q (valid: %s, all)", f, strings.Join(targetNames, ", "))
		}
		t |= 1 << i
	}
	return t, nil
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

// Offload is what a plan keeps in host memory instead of HBM.
type Offload int

const (
	// NoOffload keeps every model state on the GPU.
	NoOffload Offload = iota
	// OffloadOptimizer is ZeRO-Offload (Ren et al. 2021,
	// arXiv:2101.06840): fp32 master weights and optimizer moments live
	// in host memory, gradients stream to the host and the optimizer step
	// runs on the CPU.
	OffloadOptimizer
	// OffloadParams is ZeRO-Infinity's CPU offload (Rajbhandari et al.
	// 2021, arXiv:2104.07857): the weights too, fetched over the host link
	// layer by layer for every forward and backward.
	OffloadParams
)

var offloadNames = enumNames{"none", "optimizer", "params"}

func (o Offload) String() string               { return offloadNames.name(int(o)) }
func (o Offload) MarshalText() ([]byte, error) { return []byte(o.String()), nil }
func (o *Offload) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "offload", offloadNames, (*int)(o))
}
func ParseOffload(s string) (Offload, error) {
	i, err := offloadNames.parse("offload", s)
	return Offload(i), err
}

// DefaultLoRARank is the adapter rank when none is given: r = 16, the
// rank of QLoRA's 7B-65B runs' ablations and PEFT examples (Dettmers et
// al. 2023, Appendix B.2 uses r = 64; Hu et al. 2021 find r as low as 4
// to 8 sufficient).
const DefaultLoRARank = 16

const maxLoRARank = 1 << 16

// normalizeTune fills the fine-tuning defaults and checks them.
func (p *Plan) normalizeTune() error {
	if !p.Task.Adapted() {
		if p.Task < Pretrain || p.Task > QLoRA {
			return fmt.Errorf("costmodel: task %d is not a task (valid: %s)", p.Task, strings.Join(taskNames, ", "))
		}
		if p.LoRARank != 0 || p.LoRATargets != 0 || p.BaseDType != BaseBF16 {
			return fmt.Errorf("costmodel: LoRA rank, targets and base dtype need task lora or qlora, not %s", p.Task)
		}
		return p.checkOffload()
	}
	if p.LoRARank == 0 {
		p.LoRARank = DefaultLoRARank
	}
	if p.LoRATargets == 0 {
		p.LoRATargets = AllTargets
	}
	if p.Task == QLoRA {
		p.BaseDType = BaseNF4
	}
	switch {
	case p.LoRARank < 1 || p.LoRARank > maxLoRARank:
		return fmt.Errorf("costmodel: LoRA rank %d is not in [1, %d]", p.LoRARank, maxLoRARank)
	case p.LoRATargets&^(AllTargets|TargetQKV) != 0:
		return fmt.Errorf("costmodel: LoRA targets %#x name unknown matrices (valid: %s)", uint8(p.LoRATargets), AllTargets|TargetQKV)
	case p.LoRATargets&TargetQKV != 0 && p.LoRATargets&(TargetQ|TargetK|TargetV) != 0:
		return fmt.Errorf("costmodel: LoRA targets %s: qkv is one adapter on the fused projection, q, k, v three on separate ones (give one or the other)", p.LoRATargets)
	case p.Task == LoRA && p.BaseDType == BaseNF4:
		return fmt.Errorf("costmodel: base dtype nf4 is QLoRA (use task qlora; lora takes bf16 or fp8)")
	case p.BaseDType < BaseBF16 || p.BaseDType > BaseNF4:
		return fmt.Errorf("costmodel: base dtype %d is not one of %s", p.BaseDType, strings.Join(baseDTypeNames, ", "))
	}
	return p.checkOffload()
}

// checkOffload applies DeepSpeed's rules: optimizer offload runs on a
// ZeRO-sharded optimizer (stage 1 or more), parameter offload on ZeRO-3.
func (p *Plan) checkOffload() error {
	switch {
	case p.Offload < NoOffload || p.Offload > OffloadParams:
		return fmt.Errorf("costmodel: offload %d is not one of %s", p.Offload, strings.Join(offloadNames, ", "))
	case p.Offload == OffloadOptimizer && p.ZeRO < 1:
		return fmt.Errorf("costmodel: offload optimizer needs zero 1, 2 or 3 (ZeRO-Offload shards the optimizer), not zero %d", p.ZeRO)
	case p.Offload == OffloadParams && p.ZeRO != 3:
		return fmt.Errorf("costmodel: offload params needs zero 3 (ZeRO-Infinity), not zero %d", p.ZeRO)
	}
	return nil
}

// tuneLevers are the fine-tuning changes to a plan that trains every
// weight with its states on the GPU: quantized optimizer states (8-bit
// Adam), the optimizer states offloaded to the CPU (on a ZeRO stage of at
// least 1), LoRA on the bf16 base, QLoRA on an NF4 base.
func tuneLevers(p Plan) []leverCandidate {
	if p.Task.Adapted() {
		return nil
	}
	var c []leverCandidate
	if p.Optimizer == Adam {
		c = append(c, leverCandidate{"--optimizer adam8bit", "8-bit Adam moments: 2 B/param instead of 8",
			func(q Plan) Plan { q.Optimizer = Adam8bit; return q }, 0})
	}
	if p.Offload == NoOffload {
		z := max(p.ZeRO, 1)
		c = append(c, leverCandidate{fmt.Sprintf("--offload optimizer --zero %d", z), "fp32 master weights and moments in host memory (ZeRO-Offload)",
			func(q Plan) Plan { q.Offload, q.ZeRO = OffloadOptimizer, z; return q }, 0})
	}
	return append(c,
		leverCandidate{"--task lora", "trains rank-16 adapters; the bf16 base is frozen (no gradients or optimizer states)",
			func(q Plan) Plan { q.Task = LoRA; return q }, 0},
		leverCandidate{"--task qlora", "LoRA on a 4-bit NF4 base (0.52 B/param)",
			func(q Plan) Plan { q.Task = QLoRA; return q }, 0})
}
