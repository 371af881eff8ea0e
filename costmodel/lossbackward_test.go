package costmodel

import (
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestLossBackward: an eager fp32 cross-entropy adds 8 B per logit
// (s x b x v / t) to the last stage only, net of the recomputed layer
// under full recompute, and nothing without the setting. The figures
// are those of torchtitan's Llama-3.1-8B CP rows: 32,768 tokens a GPU
// and a 128,256 vocabulary give 33.6 GB.
func TestLossBackward(t *testing.T) {
	m := actOffloadGPT(4096, 32)
	m.Vocab = 128256
	c, err := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	eager := DefaultAssumptions()
	eager.EagerCrossEntropy = true
	fused, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(m, c, eager)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Plan
		full bool
	}{
		{Plan{TP: 1, PP: 2, CP: 2, DP: 1, Recompute: NoRecompute, MicroBatch: 1, GlobalBatch: 4, Seq: 65536, Attention: Flash}, false},
		{Plan{TP: 2, PP: 2, CP: 1, DP: 1, Recompute: Full, MicroBatch: 1, GlobalBatch: 4, Seq: 32768, Attention: Flash}, true},
	} {
		p, err := tc.p.Normalize(m, 4)
		if err != nil {
			t.Fatal(err)
		}
		tokens := float64(p.Seq/p.CP) * float64(p.MicroBatch)
		want := 8 * tokens * 128256 / float64(p.TP)
		last := e.Stage(p, 1)
		if tc.full {
			want -= float64(last.RecomputeWorkingSet)
			if last.RecomputeWorkingSet == 0 {
				t.Fatalf("%v: no recompute working set", p)
			}
		}
		if !closeTo(float64(last.LossBackward), want) {
			t.Errorf("%v: last stage loss backward %v, want %v", p, last.LossBackward, hardware.Bytes(want))
		}
		tl, err := StepTimeline(p, last)
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(tl.Points[tl.Peak].Total) - float64(last.Total); d > 1e-6*float64(last.Total) || d < -1e-6*float64(last.Total) {
			t.Errorf("%v: timeline peak %v, stage total %v", p, tl.Points[tl.Peak].Total, last.Total)
		}
		if got := e.Stage(p, 0).LossBackward; got != 0 {
			t.Errorf("%v: first stage loss backward %v, want 0", p, got)
		}
		if got := fused.Stage(p, 1); got.LossBackward != 0 || got.Total+hardware.Bytes(want) > last.Total+1 {
			t.Errorf("%v: fused loss adds %v (total %v against eager %v)", p, got.LossBackward, got.Total, last.Total)
		}
	}
}
