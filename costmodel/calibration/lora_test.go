package calibration

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestLoRARows: the LoRA fine-tuning rows are cases with each source's
// adapters (NeMo 1.x: rank 32 on the fused QKV; Megatron-Bridge: rank 32
// on every projection), a frozen bf16 base, held out of the fit; the
// frozen base makes the step shorter than the same plan pre-training.
func TestLoRARows(t *testing.T) {
	for _, tt := range []struct {
		id      string
		targets costmodel.LoRATargets
	}{
		{"r0165", costmodel.TargetQ | costmodel.TargetK | costmodel.TargetV},
		{"r0167", costmodel.TargetQ | costmodel.TargetK | costmodel.TargetV},
		{"r0266", costmodel.AllTargets},
		{"r0268", costmodel.AllTargets},
	} {
		c := caseByID(t, tt.id)
		p := c.Plan
		if p.Task != costmodel.LoRA || p.LoRARank != 32 || p.LoRATargets != tt.targets || p.BaseDType != costmodel.BaseBF16 || InFit(c) {
			t.Errorf("%s: task %s rank %d targets %s base %s in fit %v", tt.id, p.Task, p.LoRARank, p.LoRATargets, p.BaseDType, InFit(c))
		}
		lora, err := Predict(c, costmodel.DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		full := c
		full.Plan.Task, full.Plan.LoRARank, full.Plan.LoRATargets = costmodel.Pretrain, 0, 0
		pre, err := Predict(full, costmodel.DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		if lora.StepTime >= pre.StepTime {
			t.Errorf("%s: LoRA step %.3g s, not below the full-training step %.3g s", tt.id, lora.StepTime, pre.StepTime)
		}
	}
}

// TestLoRAAccuracy holds the LoRA rows, outside the fit, to today's
// figures with a small margin: a median |error| of 30.7% and pessimistic
// (the model prices causal attention over each whole packed sequence).
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
	if s.Rows != 5 || s.Median > 0.31 || s.Signed > 0 {
		t.Errorf("%d LoRA rows: median %.1f%% (guard 31%%), signed %+.1f%% (guard <= 0)", s.Rows, 100*s.Median, 100*s.Signed)
	}
}
