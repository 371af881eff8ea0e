package calibration

import "github.com/gpu-planner/planner/costmodel"

// packedSQuAD is, per source, the length-weighted mean length
// E[len^2]/E[len] (costmodel.Plan.PackedSampleTokens) of the SQuAD
// samples its fine-tuning benchmarks pack into each sequence, in that
// source's sample format:
//
//   - NeMo 24.07 (NeMo-Framework-Launcher 24.07, examples/peft/llama/h100/
//     *.sh: packed_sequence=true, max_seq_length 4096): a sample is
//     "{question} {title} Paragraph: {context}" (launcher_scripts/
//     nemo_launcher/utils/data_utils/prepare_squad.py) then " {answer}"
//     (conf/peft/llama/sft.yaml prompt_template "{input} {output}",
//     add_bos false, add_eos true), Llama 2's tokenizer: 196 tokens.
//   - Megatron-Bridge (scripts/performance/utils/datasets.py
//     create_squad_dataset_config, --data squad_packed; the 26.04 and
//     26.06 Llama 3 finetune configs set offline_packing_specs
//     packed_sequence_size 4096): "Context: {context} Question:
//     {question} Answer:" then " {answer}" (src/megatron/bridge/data/
//     sources/hf_adapters.py), BOS and EOS: 194 tokens.
//
// Measured: the 705 answerable questions of the first five articles of
// SQuAD 2.0's development set (Normans to Victoria_(Australia), the same
// Wikipedia paragraphs and question style as v1.1), each sample formatted
// as above and tokenized with Llama 2's SentencePiece model (32,000
// pieces): mean 172 tokens, E[len^2]/E[len] 196 (NeMo's format; 177 to
// 222 by article), 170 and 194 in Megatron-Bridge's. Llama 3's 128K
// tokenizer, which the Megatron-Bridge rows use, splits English into
// somewhat fewer tokens; it was not measured, so their figure is Llama
// 2's. A pack's trailing padding (pad_to_max_length) is a sample of its
// own in cu_seqlens and is not counted.
var packedSQuAD = map[string]int{
	"nemo_perf_summary_24.07":      196,
	"megatron_bridge_perf_summary": 194,
}

// packing sets a fine-tuning row's packed samples: both sources' SFT
// and LoRA benchmarks pack SQuAD (NeMo 24.07's table says so, the row's
// notes; Megatron-Bridge's finetune configs pack offline), and the fused
// attention runs within each sample (Transformer Engine's THD layout
// with cu_seqlens).
func (c *Case) packing(p *costmodel.Plan) {
	task := c.Row.Get("task")
	n, ok := packedSQuAD[c.Row.Source()]
	if !ok || (task != "sft" && task != "lora") {
		return
	}
	p.PackedSampleTokens = min(n, p.Seq)
	assume(&c.Assumed, "packed SQuAD: attention within samples of E[len^2]/E[len] = %d tokens (measured, Llama 2 tokenizer)", p.PackedSampleTokens)
}
