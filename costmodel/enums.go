package costmodel

import (
	"fmt"
	"strings"
)

// enumNames maps each value of a small enum (its index) to its name.
type enumNames []string

func (n enumNames) name(i int) string {
	if i >= 0 && i < len(n) {
		return n[i]
	}
	return fmt.Sprintf("invalid(%d)", i)
}

// parse returns the index of s in n, ignoring case, or an error that
// names the flag, the bad value and the valid ones.
func (n enumNames) parse(what, s string) (int, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for i, v := range n {
		if v == key {
			return i, nil
		}
	}
	return 0, fmt.Errorf("costmodel: unknown %s %q (valid: %s)", what, s, strings.Join(n, ", "))
}

// Precision is the numeric format of training: what weights, gradients and
// activations are stored in, and which tensor-core peak the GEMMs run at.
type Precision int

const (
	// BF16 is mixed precision: bf16 weights, gradients and activations,
	// fp32 master weights in the optimizer (Micikevicius et al. 2018).
	BF16 Precision = iota
	// FP16 is mixed precision like BF16, with loss scaling.
	FP16
	// FP8 runs the GEMMs in FP8 with tensorwise delayed scaling
	// (Transformer Engine DelayedScaling, its default recipe);
	// parameters, gradients and saved activations stay in bf16. The
	// recipes below differ in their scales (recipes.go).
	FP8
	// FP32 trains in full precision: 4-byte weights and gradients, no
	// master copy, GEMMs on TF32 tensor cores.
	FP32
	// FP8CS is FP8 with tensorwise current scaling: each tensor's amax
	// is taken just before its cast (Transformer Engine
	// Float8CurrentScaling; torchao Float8 "tensorwise").
	FP8CS
	// FP8Rowwise scales FP8 GEMM inputs per row (torchao Float8
	// "rowwise").
	FP8Rowwise
	// FP8Blockwise scales weights per 128x128 block and activations per
	// 1x128 tile (DeepSeek-V3 report, sec. 3.3; Transformer Engine
	// Float8BlockScaling).
	FP8Blockwise
	// MXFP8 is the OCP microscaling FP8 format: one E8M0 scale per 32
	// values (Transformer Engine MXFP8BlockScaling, Blackwell).
	MXFP8
	// NVFP4 is 4-bit E2M1 with one E4M3 scale per 16 values and an fp32
	// scale per tensor (Transformer Engine NVFP4BlockScaling, Blackwell).
	NVFP4
	// FP8RowwiseGWHP is torchao's rowwise recipe with the weight
	// gradient in high precision (Float8 "rowwise_with_gw_hp").
	FP8RowwiseGWHP
)

var precisionNames = enumNames{"bf16", "fp16", "fp8", "fp32", "fp8-cs", "fp8-rowwise", "fp8-blockwise", "mxfp8", "nvfp4",
	"fp8-rowwise-gw-hp"}

func (p Precision) String() string               { return precisionNames.name(int(p)) }
func (p Precision) MarshalText() ([]byte, error) { return []byte(p.String()), nil }
func (p *Precision) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "precision", precisionNames, (*int)(p))
}
func ParsePrecision(s string) (Precision, error) {
	i, err := precisionNames.parse("precision", s)
	return Precision(i), err
}

// Optimizer is the update rule, which fixes the bytes of state per
// parameter.
type Optimizer int

const (
	// Adam (AdamW) keeps two fp32 moments (Kingma and Ba 2015).
	Adam Optimizer = iota
	// Adam8bit keeps both moments in 8 bits with one fp32 scale per
	// 2,048-value block (Dettmers et al. 2022, "8-bit Optimizers via
	// Block-wise Quantization").
	Adam8bit
	// Momentum keeps one fp32 momentum buffer (SGD with momentum, Muon).
	Momentum
	// SGD keeps no state beyond the master weights.
	SGD
)

var optimizerNames = enumNames{"adam", "adam8bit", "momentum", "sgd"}

func (o Optimizer) String() string               { return optimizerNames.name(int(o)) }
func (o Optimizer) MarshalText() ([]byte, error) { return []byte(o.String()), nil }
func (o *Optimizer) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "optimizer", optimizerNames, (*int)(o))
}
func ParseOptimizer(s string) (Optimizer, error) {
	i, err := optimizerNames.parse("optimizer", s)
	return Optimizer(i), err
}

// Recompute is the activation recomputation policy (Korthikanti et al.
// 2022, section 5).
type Recompute int

const (
	// NoRecompute stores every activation the backward pass needs.
	NoRecompute Recompute = iota
	// Selective recomputes the attention core (scores, softmax, dropout)
	// and stores the rest.
	Selective
	// Full stores only each layer's input and recomputes the layer's
	// forward pass during backward (Megatron's --recompute-granularity
	// full, torchtitan's activation_checkpoint mode "full": a
	// checkpoint_wrapper around every transformer block).
	Full
	// OpSAC is PyTorch's op-level selective activation checkpointing
	// as torchtitan applies it to every transformer block
	// (activation_checkpoint mode "selective", selective_ac_option "op";
	// torchtitan/models/llama/parallelize_llama.py, _save_list and
	// _custom_policy): the block is checkpointed, but the outputs of its
	// matrix multiplies (except every second one), of the fused attention
	// and of the tensor-parallel reduce-scatters are saved; everything
	// else is recomputed (opSACTensors).
	OpSAC
)

var recomputeNames = enumNames{"none", "selective", "full", "opsac"}

// Checkpointed reports whether the policy checkpoints whole layers:
// it keeps each layer's input, reruns the layer's forward collectives
// (all-gathers, all-to-alls) in backward, and rebuilds one layer's
// tensors at a time while it does.
func (r Recompute) Checkpointed() bool { return r == Full || r == OpSAC }

func (r Recompute) String() string               { return recomputeNames.name(int(r)) }
func (r Recompute) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
func (r *Recompute) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "recompute", recomputeNames, (*int)(r))
}
func ParseRecompute(s string) (Recompute, error) {
	i, err := recomputeNames.parse("recompute", s)
	return Recompute(i), err
}

// Attention is the attention kernel.
type Attention int

const (
	// Flash is FlashAttention (Dao et al. 2022): scores are never
	// materialized; the backward pass keeps one log-sum-exp per query row.
	Flash Attention = iota
	// Eager materializes the s x s scores, softmax and dropout per head,
	// as Megatron did before FlashAttention.
	Eager
)

var attentionNames = enumNames{"flash", "eager"}

func (a Attention) String() string               { return attentionNames.name(int(a)) }
func (a Attention) MarshalText() ([]byte, error) { return []byte(a.String()), nil }
func (a *Attention) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "attention", attentionNames, (*int)(a))
}
func ParseAttention(s string) (Attention, error) {
	i, err := attentionNames.parse("attention", s)
	return Attention(i), err
}

// Schedule is the pipeline schedule.
type Schedule int

const (
	// OneFOneB is 1F1B (PipeDream-Flush, Narayanan et al. 2021), which
	// becomes the interleaved schedule when the plan has virtual stages.
	OneFOneB Schedule = iota
	// GPipe runs every micro-batch forward before any backward (Huang
	// et al. 2019).
	GPipe
)

var scheduleNames = enumNames{"1f1b", "gpipe"}

func (s Schedule) String() string               { return scheduleNames.name(int(s)) }
func (s Schedule) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
func (s *Schedule) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "schedule", scheduleNames, (*int)(s))
}
func ParseSchedule(s string) (Schedule, error) {
	i, err := scheduleNames.parse("schedule", s)
	return Schedule(i), err
}

// DType is the storage format of served weights or of the KV cache.
type DType int

const (
	DTypeBF16 DType = iota
	DTypeFP8
	DTypeInt4
	DTypeFP32
	// DTypeNVFP4 is NVIDIA's 4-bit float (e2m1) with an fp8 scale per 16
	// values; DTypeMXFP4 the OCP microscaling 4-bit float with an e8m0
	// scale per 32 values (gpt-oss ships its experts in it).
	DTypeNVFP4
	DTypeMXFP4
	// DTypeFP8Block is fp8 (e4m3) weights with one fp32 scale per 128 x
	// 128 block, activations quantized per 1 x 128 tile (DeepSeek-AI
	// 2024, DeepSeek-V3 technical report, sec. 3.3.2; the format of the
	// DeepSeek-V3/R1 and Qwen3 FP8 checkpoints); weights only.
	DTypeFP8Block
)

var dtypeNames = enumNames{"bf16", "fp8", "int4", "fp32", "nvfp4", "mxfp4", "fp8-block"}

// Bytes is the storage size of one value: bf16 2, fp8 and fp8-block 1,
// int4 0.5, fp32 4, nvfp4 and mxfp4 0.5 (block scales are counted apart,
// in weightBytesPerParam).
func (d DType) Bytes() float64 {
	return [...]float64{2, 1, 0.5, 4, 0.5, 0.5, 1}[d]
}

// IsFP4 reports a 4-bit float format (nvfp4, mxfp4).
func (d DType) IsFP4() bool { return d == DTypeNVFP4 || d == DTypeMXFP4 }

// IsFP8 reports an 8-bit float format (fp8, fp8-block), whose GEMMs run
// on fp8 tensor cores.
func (d DType) IsFP8() bool { return d == DTypeFP8 || d == DTypeFP8Block }

func (d DType) String() string               { return dtypeNames.name(int(d)) }
func (d DType) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (d *DType) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "dtype", dtypeNames, (*int)(d))
}
func ParseDType(s string) (DType, error) {
	i, err := dtypeNames.parse("dtype", s)
	return DType(i), err
}

func unmarshalEnum(b []byte, what string, n enumNames, dst *int) error {
	i, err := n.parse(what, string(b))
	if err != nil {
		return err
	}
	*dst = i
	return nil
}
