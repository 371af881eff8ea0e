package costmodel

import "fmt"

// hfQuantization is the part of config.json's quantization_config that
// says how the checkpoint stores its weights (Hugging Face transformers,
// "Quantization" docs: quant_method names the scheme; the fp8 scheme's
// weight_block_size its scale blocks).
type hfQuantization struct {
	QuantMethod     string `json:"quant_method"`
	WeightBlockSize []int  `json:"weight_block_size"`
	Bits            int    `json:"bits"`
}

// checkpoint is the weight format of quantization_config q and a note
// naming it: mxfp4 (gpt-oss's experts; its attention, router,
// embeddings and output layer stay bf16, modules_to_not_convert, which
// the serving model prices as mxfp4 too), fp8 with block scales when
// weight_block_size is given (DeepSeek-V3's 128 x 128) and per-tensor
// otherwise, 4-bit GPTQ and AWQ as int4; no quantization_config is bf16,
// and a scheme it does not read is bf16 with the note saying so.
func (q *hfQuantization) checkpoint() (DType, string) {
	if q == nil {
		return DTypeBF16, ""
	}
	from := fmt.Sprintf("config.json quantization_config quant_method %q", q.QuantMethod)
	switch {
	case q.QuantMethod == "mxfp4":
		return DTypeMXFP4, from
	case q.QuantMethod == "fp8" && len(q.WeightBlockSize) == 2:
		return DTypeFP8Block, fmt.Sprintf("%s, weight_block_size %v", from, q.WeightBlockSize)
	case q.QuantMethod == "fp8":
		return DTypeFP8, from
	case (q.QuantMethod == "gptq" || q.QuantMethod == "awq") && q.Bits == 4:
		return DTypeInt4, from + ", bits 4"
	}
	return DTypeBF16, from + " is not a format the planner reads: bf16 assumed (give --weights-dtype)"
}
