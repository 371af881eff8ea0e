package costmodel

// A training precision is a recipe: which GEMMs run in a low format,
// the format of their inputs, the memory-bound passes that produce those
// inputs, and the low-precision weight copies kept between micro-batches.

const (
	srcTE = "Transformer Engine docs, \"Using FP8 and FP4 with Transformer Engine\" " +
		"(docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/fp8_primer.html)"
	srcTorchao         = "torchao float8 README (github.com/pytorch/ao/tree/main/torchao/float8): tensorwise and rowwise recipes"
	srcTorchaoRoofline = "torchao torchao/testing/training/roofline_utils.py, get_tensor_memory_traffic_ovhd_s (rowwise): " +
		"8 bytes of casts per input and output-gradient element"
	srcTorchaoRescale = "torchao torchao/float8/float8_ops.py, addmm_float8_unwrapped (rowwise scales without fast accumulation: " +
		"cuBLAS tensorwise kernel, then output *= scales); pytorch/ao#2184: one extra kernel per GEMM for the rescaling"
	srcDSV3  = "DeepSeek-V3 technical report (arXiv:2412.19437), sec. 3.3.2: 1x128 activation tiles, 128x128 weight blocks"
	srcMX    = "OCP Microscaling Formats (MX) v1.0: 32-element blocks with an E8M0 scale"
	srcNVFP4 = "NVIDIA, \"Pretraining LLMs with NVFP4\" (arXiv:2509.25149): E2M1 values, E4M3 scale per 16, fp32 per tensor"
)

// lowGEMMsTE is what Transformer Engine runs in the low format: the
// linear layers of te.Linear, te.LayerNormLinear and te.LayerNormMLP
// (QKV, attention output, MLP); the embedding, the output layer and the
// attention core (softmax(QK^T)V) stay in bf16 (srcTE).
const lowGEMMsTE = "transformer-layer linears (QKV, attention output, MLP); embedding, output layer and attention core in bf16"

// Recipe describes a training precision's GEMMs.
type Recipe struct {
	Precision Precision `json:"precision"`
	// GEMMFormat is the GEMM input format, named as the efficiency
	// package's formats: BF16, FP16, TF32, FP8, FP8Row, FP8Block, MXFP8,
	// NVFP4.
	GEMMFormat string `json:"gemm_format"`
	// LowGEMMs says which GEMMs run in the low format ("" for none).
	LowGEMMs string `json:"low_gemms,omitempty"`
	// InputBytes is the bytes per GEMM input element in the low format,
	// scales included (0: the GEMM reads 16- or 32-bit inputs).
	InputBytes float64 `json:"input_bytes,omitempty"`
	// CastReads and CastWrites are the memory-bound passes per GEMM
	// activation input: how often its 16-bit values are read (amax,
	// cast) and how many low-format copies are written (the copy and its
	// transpose, or rowwise and columnwise scaled copies).
	CastReads  float64 `json:"cast_reads,omitempty"`
	CastWrites float64 `json:"cast_writes,omitempty"`
	// WeightCopyBytes is the extra memory per local weight parameter:
	// low-format weight copies cached across micro-batches, with scales.
	WeightCopyBytes float64 `json:"weight_copy_bytes,omitempty"`
	// WgradCastBytes is the bytes moved per element of each of the
	// weight-gradient GEMM's two operands (the input and the output
	// gradient) to cast it again along the other axis from its 16-bit
	// tensor (torchao saves the high-precision input and scales both
	// operands per column in the backward); 0: the GEMM reads the
	// transposed copies CastWrites counts.
	WgradCastBytes float64 `json:"wgrad_cast_bytes,omitempty"`
	// WgradHighPrecision: the weight-gradient GEMM runs in 16 bits on
	// the 16-bit input and output gradient, with no cast.
	WgradHighPrecision bool `json:"wgrad_high_precision,omitempty"`
	// RescaleBackward: the two backward GEMMs run unscaled and their
	// 16-bit outputs are multiplied by the scales in a kernel of their
	// own, which reads and writes each output element once.
	RescaleBackward bool `json:"rescale_backward,omitempty"`
	// SavedInputBytes is the bytes per element of a low-format linear's
	// input as saved for its weight gradient (0: kept in the activation
	// dtype). Transformer Engine's Linear, LayerNormLinear and
	// GroupedLinear save the quantized input they own, with its scales,
	// and drop the row-wise copy the backward does not read, keeping the
	// column-wise one (transformer_engine/pytorch/module/linear.py,
	// forward: inputmat.update_usage(rowwise_usage=False,
	// columnwise_usage=True), then saved_inputmat = inputmat): one
	// low-format copy, InputBytes. torchao's float8 linear saves the
	// high-precision input instead (torchao/float8/float8_linear.py,
	// matmul_with_hp_or_float8_args: ctx.save_for_backward(input_hp, ...)).
	SavedInputBytes float64 `json:"saved_input_bytes,omitempty"`
	Source          string  `json:"source"`
}

// recipes is indexed by Precision.
var recipes = [...]Recipe{
	BF16: {GEMMFormat: "BF16", Source: "Micikevicius et al. 2018 (mixed precision)"},
	FP16: {GEMMFormat: "FP16", Source: "Micikevicius et al. 2018 (mixed precision, loss scaling)"},
	FP32: {GEMMFormat: "TF32", Source: "NVIDIA A100 whitepaper (TF32 tensor cores)"},
	// Delayed scaling takes the scale from an amax history, so the cast
	// reads its input once; TE's fused cast_transpose writes the FP8 copy
	// and its transpose for the backward; the weight and its transpose
	// are cached in FP8 across micro-batches (srcTE, DelayedScaling).
	FP8: {GEMMFormat: "FP8", LowGEMMs: lowGEMMsTE, InputBytes: 1, CastReads: 1, CastWrites: 2, WeightCopyBytes: 2,
		Source: srcTE + ": DelayedScaling"},
	// Current scaling reads each input once for its amax and once to
	// cast (srcTE, Float8CurrentScaling; torchao "tensorwise").
	FP8CS: {GEMMFormat: "FP8", LowGEMMs: lowGEMMsTE, InputBytes: 1, CastReads: 2, CastWrites: 2, WeightCopyBytes: 2,
		Source: srcTE + ": Float8CurrentScaling; " + srcTorchao},
	// torchao's rowwise recipe (Float8LinearRecipeName.ROWWISE) swaps
	// every nn.Linear (torchtitan leaves the output layer out) and runs
	// all three GEMMs in FP8 with one fp32 scale per row; it casts the
	// weights at every call (no cached copy). Casts, as torchao's float8
	// roofline counts them (srcTorchaoRoofline): a tensor's rowwise
	// scale is a reduction along the contiguous row, so its amax and
	// cast are one kernel (read 2, write 1 byte per element); the
	// column-wise copy the weight gradient reads takes the rest of the
	// roofline's 8 bytes per input and output-gradient element: a
	// 16-bit transposed copy written and read again and the FP8 copy
	// written (5 bytes). The backward GEMMs run without fast
	// accumulation, which torchao sends to the per-tensor cuBLAS kernel
	// with unit scales and then rescales the output (srcTorchaoRescale).
	FP8Rowwise: {GEMMFormat: "FP8Row", LowGEMMs: "every nn.Linear except the output layer (torchtitan filter_fqns)",
		InputBytes: 1, CastReads: 1, CastWrites: 1, WgradCastBytes: 5, RescaleBackward: true,
		Source: srcTorchao + "; " + srcTorchaoRoofline + "; " + srcTorchaoRescale},
	// rowwise_with_gw_hp (Float8LinearRecipeName.ROWWISE_WITH_GW_HP,
	// torchao/float8/config.py): the forward as rowwise; the data
	// gradient multiplies the rowwise-scaled output gradient by the
	// weight scaled per tensor, which is not the rowwise pair torchao
	// rescales by hand (addmm_float8_unwrapped), so no rescale kernel;
	// the weight gradient runs in bf16 on the saved 16-bit input and the
	// output gradient (scaling disabled), so neither is cast again.
	FP8RowwiseGWHP: {GEMMFormat: "FP8Row", LowGEMMs: "every nn.Linear except the output layer (torchtitan filter_fqns); weight gradients in bf16",
		InputBytes: 1, CastReads: 1, CastWrites: 1, WgradHighPrecision: true, Source: srcTorchao + "; " + srcTorchaoRoofline},
	// Blockwise: a 1x128 tile's amax is local to the cast kernel (one
	// read); fp32 scales per 128 activations and per 128x128 weights.
	FP8Blockwise: {GEMMFormat: "FP8Block", LowGEMMs: lowGEMMsTE, InputBytes: 1 + 4.0/128, CastReads: 1, CastWrites: 2,
		WeightCopyBytes: 2 * (1 + 4.0/(128*128)), Source: srcDSV3 + "; " + srcTE + ": Float8BlockScaling"},
	// MXFP8 scales along the reduction dimension, so the forward and the
	// backward need rowwise and columnwise copies, each with one byte of
	// scale per 32 values (srcMX; srcTE, MXFP8BlockScaling).
	MXFP8: {GEMMFormat: "MXFP8", LowGEMMs: lowGEMMsTE, InputBytes: 1 + 1.0/32, CastReads: 1, CastWrites: 2,
		WeightCopyBytes: 2 * (1 + 1.0/32), Source: srcMX + "; " + srcTE + ": MXFP8BlockScaling"},
	// NVFP4 needs a per-tensor amax before its block cast (two reads),
	// writes rowwise and columnwise copies of half a byte plus one E4M3
	// scale per 16 values (srcNVFP4; srcTE, NVFP4BlockScaling).
	NVFP4: {GEMMFormat: "NVFP4", LowGEMMs: lowGEMMsTE, InputBytes: 0.5 + 1.0/16, CastReads: 2, CastWrites: 2,
		WeightCopyBytes: 2 * (0.5 + 1.0/16), Source: srcNVFP4 + "; " + srcTE + ": NVFP4BlockScaling"},
}

// Recipe returns p's recipe.
func (p Precision) Recipe() Recipe {
	r := recipes[p]
	r.Precision = p
	return r
}

// init gives Transformer Engine's recipes their saved-input bytes: the
// one low-format copy of the input (SavedInputBytes).
func init() {
	for i := range recipes {
		if recipes[i].LowGEMMs == lowGEMMsTE {
			recipes[i].SavedInputBytes = recipes[i].InputBytes
		}
	}
}

// Precisions lists every training precision in enum order.
func Precisions() []Precision {
	out := make([]Precision, len(recipes))
	for i := range out {
		out[i] = Precision(i)
	}
	return out
}

// LowPrecisionGEMM reports whether p runs GEMMs below 16 bits.
func (p Precision) LowPrecisionGEMM() bool { return recipes[p].InputBytes > 0 }

// PeakFormat is the hardware.GPU.Peak key of p's GEMMs: bf16, fp16 or
// fp32, fp8 for every 8-bit recipe, fp4 for NVFP4.
func (p Precision) PeakFormat() string {
	switch {
	case p == NVFP4:
		return "fp4"
	case p.LowPrecisionGEMM():
		return "fp8"
	}
	return p.String()
}
