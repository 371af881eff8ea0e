package calibration

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestLoRARows: the LoRA fine-tuning rows are cases with each source's
// adapters, rank 32 on the fused QKV as one adapter (NeMo 1.x's
// attention_qkv; Megatron-Bridge's linear_qkv override), NeMo's base in
// FP8 (fp8_params) and Megatron-Bridge's in bf16, in the fit; the frozen
// base makes the step shorter than the same plan pre-training.
func TestLoRARows(t *testing.T) {
	for _, tt := range []struct {
		id   string
		base costmodel.BaseDType
	}{
		{"r0165", costmodel.BaseFP8},
		{"r0167", costmodel.BaseFP8},
		{"r0266", costmodel.BaseBF16},
		{"r0268", costmodel.BaseBF16},
	} {
		c := caseByID(t, tt.id)
		p := c.Plan
		if p.Task != costmodel.LoRA || p.LoRARank != 32 || p.LoRATargets != costmodel.TargetQKV || p.BaseDType != tt.base || !InFit(c) {
			t.Errorf("%s: task %s rank %d targets %s base %s in fit %v", tt.id, p.Task, p.LoRARank, p.LoRATargets, p.BaseDType, InFit(c))
		}
		lora, err := Predict(c, costmodel.DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		full := c
		full.Plan.Task, full.Plan.LoRARank, full.Plan.LoRATargets, full.Plan.BaseDType = costmodel.Pretrain, 0, 0, costmodel.BaseBF16
		pre, err := Predict(full, costmodel.DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		if lora.StepTime >= pre.StepTime {
			t.Errorf("%s: LoRA step %.3g s, not below the full-training step %.3g s", tt.id, lora.StepTime, pre.StepTime)
		}
	}
}

// TestLoRAAccuracy holds the LoRA rows to today's figures with a small
// margin: a median |error| of 9.6% and a signed median of -9.6%, now that
// their packed SQuAD attention runs within each sample (packedSQuAD), at
// the GEMM efficiency refitted after the measured NVLink collectives and
// async TP took over part of what the shared GEMM share covered (0.831;
// 9.0% at 0.837, 8.5% at 0.844).
func TestLoRAAccuracy(t *testing.T) {
	cmp := comparison(t)
	var rs []Result
	for _, r := range cmp.Results {
		if r.Plan.Task.Adapted() {
			rs = append(rs, r)
		}
	}
	s := summarize("lora", rs)
	t.Logf("%d LoRA rows: median %.1f%%, signed %+.1f%%", s.Rows, 100*s.Median, 100*s.Signed)
	if s.Rows != 5 || s.Median > 0.10 || math.Abs(s.Signed) > 0.10 {
		t.Errorf("%d LoRA rows: median %.1f%% (guard 10%%), signed %+.1f%% (guard within 10%%)", s.Rows, 100*s.Median, 100*s.Signed)
	}
}

// TestPackedFineTuningRows: the NeMo 24.07 and Megatron-Bridge SFT and
// LoRA rows attend within packed SQuAD samples of the measured length
// (packedSQuAD), and their pre-training rows over the whole sequence.
// With the fine-tuning scripts' settings (nemoRecipes) the NeMo 24.07
// fine-tuning rows come within 13.5% (they were 14-35% pessimistic with
// attention over each whole sequence and without the scripts'
// interleaving).
func TestPackedFineTuningRows(t *testing.T) {
	for id, want := range map[string]int{"r0162": 196, "r0163": 196, "r0164": 196, "r0165": 196, "r0166": 196,
		"r0167": 196, "r0266": 194, "r0268": 194, "r0263": 194, "r0154": 0, "r0156": 0} {
		if got := caseByID(t, id).Plan.PackedSampleTokens; got != want {
			t.Errorf("%s: packed sample tokens %d, want %d", id, got, want)
		}
	}
	if p := caseByID(t, "r0164").Plan; p.VPP != 20 || !p.SP {
		t.Errorf("r0164: vpp %d sp %v, want the 70b_2node script's vpp 20 with sequence parallelism", p.VPP, p.SP)
	}
	cmp := comparison(t)
	for _, r := range cmp.Results {
		if r.Row.Source() != "nemo_perf_summary_24.07" || r.Plan.PackedSampleTokens == 0 {
			continue
		}
		if e := math.Abs(r.Err); e > 0.135 {
			t.Errorf("%s: |error| %.1f%%, limit 13.5%%", r.Row.ID(), 100*e)
		}
	}
}

// TestNeMoBF16OptimizerFits: NeMo 24.07's Llama 2 70B SFT (the 70b_2node
// script: fp8_params, distributed_fused_adam in bf16) and Nemotron-4
// 340B (nemotron_340b.yaml's bf16 optimizer) ran on 80 GB H100s; with
// bf16 optimizer state and gradients they are predicted to fit (they were
// 22% and 14% over the HBM with fp32 master weights, moments and
// gradients).
func TestNeMoBF16OptimizerFits(t *testing.T) {
	for _, id := range []string{"r0159", "r0164"} {
		c := caseByID(t, id)
		if !c.BF16Optimizer {
			t.Errorf("%s: not a bf16-optimizer case", id)
		}
		e, err := costmodel.NewEvaluator(c.Model, c.Cluster, c.Assumptions(costmodel.DefaultAssumptions()))
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Estimate(c.Plan)
		if err != nil {
			t.Fatal(err)
		}
		if r.Memory.Total > r.Memory.Capacity {
			t.Errorf("%s: %v predicted, over the %v it ran in", id, r.Memory.Total, r.Memory.Capacity)
		}
	}
}
