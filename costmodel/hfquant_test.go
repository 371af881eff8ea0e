package costmodel

import (
	"strings"
	"testing"
)

// TestCheckpointFormat: the catalog's checkpoints carry the formats
// their config.json's quantization_config gives (gpt-oss mxfp4,
// DeepSeek-V3 fp8 with 128 x 128 blocks), the others bf16, and a scheme
// the planner does not read is bf16 with a note that says so.
func TestCheckpointFormat(t *testing.T) {
	for _, c := range []struct {
		model string
		want  DType
		note  string
	}{
		{"gpt-oss-120b", DTypeMXFP4, `quant_method "mxfp4"`},
		{"gpt-oss-20b", DTypeMXFP4, `quant_method "mxfp4"`},
		{"deepseek-v3", DTypeFP8Block, "weight_block_size [128 128]"},
		{"llama3.1-70b", DTypeBF16, ""},
	} {
		m, err := LookupModel(c.model)
		if err != nil {
			t.Fatal(err)
		}
		if m.Checkpoint != c.want || !strings.Contains(m.CheckpointNote, c.note) || (c.note == "") != (m.CheckpointNote == "") {
			t.Errorf("%s: checkpoint %v (%q), want %v (%q)", c.model, m.Checkpoint, m.CheckpointNote, c.want, c.note)
		}
	}
	for _, c := range []struct {
		q    hfQuantization
		want DType
		note string
	}{
		{hfQuantization{QuantMethod: "fp8"}, DTypeFP8, `"fp8"`},
		{hfQuantization{QuantMethod: "gptq", Bits: 4}, DTypeInt4, "bits 4"},
		{hfQuantization{QuantMethod: "gptq", Bits: 8}, DTypeBF16, "not a format the planner reads"},
		{hfQuantization{QuantMethod: "bitsandbytes"}, DTypeBF16, "not a format the planner reads"},
	} {
		if got, note := c.q.checkpoint(); got != c.want || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %v (%q), want %v (%q)", c.q, got, note, c.want, c.note)
		}
	}
}
