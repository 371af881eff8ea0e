package frameworks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/efficiency"
)

// Preset is one framework's settings. The zero value is not a preset;
// use Lookup or the package variables.
type Preset struct {
	// Name is the key users type (--framework), Title what it stands for.
	Name, Title string
	// Attention is the attention kernel; Kernel the fused-attention
	// implementation (costmodel.Assumptions.AttentionKernel).
	Attention costmodel.Attention
	Kernel    efficiency.Kernel
	// CPAllGather: context parallelism all-gathers keys and values
	// (costmodel.Assumptions field) instead of Megatron-Core's ring.
	CPAllGather bool
	// UnfusedElementwise: norms, rotary embeddings and SwiGLU run as
	// eager PyTorch kernel chains (costmodel.Assumptions field).
	UnfusedElementwise bool
	// Overlaps (costmodel.Assumptions fields of the same names).
	OverlapGradReduce, OverlapParamGather, TPCommOverlap, OverlapP2P bool
	// AsyncTP: TPCommOverlap is PyTorch's micro-pipeline TP
	// (costmodel.Assumptions field).
	AsyncTP bool
	// GradAccumFP32 keeps gradients in fp32 buffers.
	GradAccumFP32 bool
	// StepFP32GradPartition: ZeRO-1/2's step casts the gradient
	// partition to fp32 (DeepSpeed; costmodel.Assumptions field).
	StepFP32GradPartition bool
	// FSDPUnshardedUnderPP: under pipeline parallelism FSDP keeps each
	// stage unsharded for the step (costmodel.Assumptions field).
	FSDPUnshardedUnderPP bool
	// EagerCrossEntropy: the loss is PyTorch's cross_entropy on fp32
	// logits (costmodel.Assumptions field).
	EagerCrossEntropy bool
	// SeparateProjections: the model code has separate query, key and
	// value projections and separate SwiGLU gate and up projections
	// (costmodel.Assumptions.SeparateProjections).
	SeparateProjections bool
	// ZeRO3PerMatrix: ZeRO-3 as DeepSpeed v0.3 of 2021 runs it, one
	// list-form collective per weight matrix (costmodel.Assumptions field).
	ZeRO3PerMatrix bool
	// BF16OptimizerGrads: DeepSpeed's BF16_Optimizer accumulates and
	// all-reduces fp32 gradients (costmodel.Assumptions field).
	BF16OptimizerGrads bool
	// MoEWeightedActivation: the MoE router's probabilities are applied in
	// the expert activation (Megatron-Core), not at the combine.
	MoEWeightedActivation bool
	// HighPrecisionSavedInputs: the framework's low-precision linears
	// (torchao float8) save their 16-bit inputs for the backward.
	HighPrecisionSavedInputs bool
	// CompiledAmax: torch.compile fuses the tensorwise FP8 casts' amax
	// into the producing kernel (costmodel.Assumptions field).
	CompiledAmax bool
	// FP8TPAllGather: tensorwise FP8 plans all-gather in FP8 over tensor
	// parallelism (costmodel.Assumptions field).
	FP8TPAllGather bool
	// SequenceParallel comes with tensor parallelism.
	SequenceParallel bool
	// Recipes are the FP8 and 4-bit training precisions the framework
	// offers.
	Recipes []costmodel.Precision
	// What a job of this framework runs unless told otherwise: the
	// calibration assumes these where a source does not state them.
	Recompute  costmodel.Recompute
	MicroBatch int
	ZeRO       int
	// Cite holds the source of each setting, keyed by Setting names;
	// a setting the framework's sources do not state is marked there
	// with "assumed:".
	Cite map[string]string
}

// Setting is one applied setting, for printing.
type Setting struct {
	Name, Value, Source string
}

// Setting names, in the order Settings lists them.
const (
	SetAttention   = "attention"
	SetKernel      = "attention kernel"
	SetCP          = "context parallelism"
	SetElementwise = "elementwise"
	SetGradReduce  = "overlap-grad-reduce"
	SetParamGather = "overlap-param-gather"
	SetTPOverlap   = "tp-comm-overlap"
	SetP2P         = "overlap-p2p"
	SetGradDType   = "gradient dtype"
	SetSP          = "sequence parallelism"
	SetRecipes     = "low-precision recipes"
	SetFSDPUnderPP = "zero-3 under pp"
	SetLoss        = "cross-entropy"
	SetProjections = "projections"
	SetZeRO3Calls  = "zero-3 collectives"
	SetFP8Linears  = "fp8 linears"
)

// Settings lists what the preset sets, each with its source: the
// preset's citation, or for the behaviour every framework shares when the
// preset does not change it (per-layer ZeRO-3 gathers, a fused loss) that
// behaviour's own source.
func (p Preset) Settings() []Setting {
	grad := either(p.GradAccumFP32, "fp32", "bf16")
	if p.BF16OptimizerGrads {
		grad = "fp32, accumulated per micro-batch, all-reduced"
	}
	names := make([]string, len(p.Recipes))
	for i, r := range p.Recipes {
		names[i] = r.String()
	}
	rec := strings.Join(names, ", ")
	if rec == "" {
		rec = "none"
	}
	s := []Setting{{SetAttention, p.Attention.String(), ""}, {SetKernel, p.Kernel.String(), ""},
		{SetCP, either(p.CPAllGather, "all-gather", "ring"), ""},
		{SetElementwise, either(p.UnfusedElementwise, "eager (unfused)", "fused"), ""},
		{SetGradReduce, onOff(p.OverlapGradReduce), ""}, {SetParamGather, onOff(p.OverlapParamGather), ""},
		{SetTPOverlap, onOff(p.TPCommOverlap) + either(p.AsyncTP, " (async TP when on)", ""), ""}, {SetP2P, onOff(p.OverlapP2P), ""},
		{SetGradDType, grad, ""}, {SetSP, onOff(p.SequenceParallel) + " with tp > 1", ""}, {SetRecipes, rec, ""},
		{SetFSDPUnderPP, either(p.FSDPUnshardedUnderPP, "stage kept unsharded", "per layer"),
			either(p.FSDPUnshardedUnderPP, "", srcFSDPPerLayer)},
		{SetZeRO3Calls, either(p.ZeRO3PerMatrix, "per weight matrix, list form", "per layer"),
			either(p.ZeRO3PerMatrix, "", srcFSDPPerLayer)},
		{SetLoss, either(p.EagerCrossEntropy, "eager on fp32 logits", "fused, in place"),
			either(p.EagerCrossEntropy, "", srcFusedLoss)},
		{SetProjections, either(p.SeparateProjections, "separate q, k, v and gate, up", "fused qkv and gate+up"),
			either(p.SeparateProjections, "", srcFusedProjections)},
		{SetFP8Linears, p.fp8Linears(), either(p.HighPrecisionSavedInputs || p.CompiledAmax || p.FP8TPAllGather, "", srcTEFP8Linears)}}
	for i := range s {
		if s[i].Source == "" {
			s[i].Source = p.Cite[s[i].Name]
		}
	}
	return s
}

// either is yes when b holds, else no.
func either(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// srcFSDPPerLayer is ZeRO-3's per-layer gather, the behaviour of every
// framework that does not keep a pipeline stage unsharded.
const srcFSDPPerLayer = "ZeRO-3 / FSDP gathers one layer at a time and frees it (Zhao et al. 2023, PyTorch FSDP, sec. 3.3)"

// srcFusedLoss is the in-place fused cross-entropy, whose only saved
// tensor is the fp32 softmax.
const srcFusedLoss = "Megatron-Core tensor_parallel/cross_entropy.py: VocabParallelCrossEntropy saves the softmax and writes the gradient into it in place (Korthikanti et al. 2022, sec. 4.3: 4sbv/t)"

// srcFusedProjections is the fused projections of Megatron-style model
// code.
const srcFusedProjections = "Megatron-Core transformer/attention.py linear_qkv and transformer/mlp.py linear_fc1 " +
	"(gate and up in one GEMM for gated linear units)"

func onOff(b bool) string { return either(b, "on", "off") }

// fp8Linears says how the preset's low-precision linears run: what they
// save for the backward, where the casts' amax is taken, and the dtype of
// their tensor-parallel all-gathers.
func (p Preset) fp8Linears() string {
	return either(p.HighPrecisionSavedInputs, "bf16 saved", "fp8 saved") + "; " +
		either(p.FP8TPAllGather, "fp8 tp", "bf16 tp") + "; " + either(p.CompiledAmax, "amax fused", "amax apart")
}

// srcTEFP8Linears cites Transformer Engine's FP8 linears: the fused
// cast-transpose writes the FP8 copy and its transpose the backward
// reads, and the sequence-parallel all-gather runs on the 16-bit input.
const srcTEFP8Linears = "Transformer Engine pytorch/module/linear.py and layernorm_linear.py (cast_transpose of the input, saved in FP8; " +
	"gather_along_first_dim of the 16-bit input under sequence parallelism)"

// srcTitanFP8Linears cites torchao's float8 linears as torchtitan runs
// them.
const srcTitanFP8Linears = "torchao float8/float8_linear.py (16-bit inputs saved), testing/training/roofline_utils.py " +
	"(tensorwise amax fused with the producer under torch.compile), float8/float8_tensor_parallel.py (Float8ColwiseParallel, " +
	"Float8RowwiseParallel: tp all-gathers in fp8); torchtitan parallelize_llama.apply_tp"

// Apply sets the preset's assumptions in a.
func (p Preset) Apply(a costmodel.Assumptions) costmodel.Assumptions {
	a.OverlapGradReduce, a.OverlapParamGather = p.OverlapGradReduce, p.OverlapParamGather
	a.TPCommOverlap, a.OverlapP2P, a.AsyncTP = p.TPCommOverlap, p.OverlapP2P, p.AsyncTP
	a.UnfusedElementwise, a.GradAccumFP32 = p.UnfusedElementwise, p.GradAccumFP32
	a.AttentionKernel, a.CPAllGather = p.Kernel, p.CPAllGather
	a.MoEWeightedActivation = p.MoEWeightedActivation
	a.HighPrecisionSavedInputs = p.HighPrecisionSavedInputs
	a.CompiledAmax, a.FP8TPAllGather = p.CompiledAmax, p.FP8TPAllGather
	a.StepFP32GradPartition = p.StepFP32GradPartition
	a.FSDPUnshardedUnderPP = p.FSDPUnshardedUnderPP
	a.EagerCrossEntropy = p.EagerCrossEntropy
	a.SeparateProjections = p.SeparateProjections
	a.ZeRO3PerMatrix = p.ZeRO3PerMatrix
	a.BF16OptimizerGrads = p.BF16OptimizerGrads
	return a
}

// Supports reports whether the framework offers precision pr: every
// framework trains in bf16, fp16 and fp32; the low-precision recipes are
// those in Recipes.
func (p Preset) Supports(pr costmodel.Precision) bool {
	return !pr.LowPrecisionGEMM() || slices.Contains(p.Recipes, pr)
}

// Names lists the user-facing presets, sorted.
func Names() []string {
	var out []string
	for _, p := range userPresets {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// Lookup finds a preset by name, ignoring case; the error names the
// valid ones.
func Lookup(name string) (Preset, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, p := range append(slices.Clone(userPresets), historical...) {
		if p.Name == key {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("frameworks: unknown framework %q (valid: %s)", name, strings.Join(All(), ", "))
}

// All lists every preset's name, current then historical, each sorted.
func All() []string {
	out := Names()
	var h []string
	for _, p := range historical {
		h = append(h, p.Name)
	}
	slices.Sort(h)
	return append(out, h...)
}
