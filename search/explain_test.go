package search

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// TestWhyReadsTheBreakdown: the explanation names the parts of the
// calibrated breakdown that separate the plans, largest difference
// first, with the values the ranking used: here a bubble of 0.3 s against
// 0.7 s although both plans share pp, micro-batches and vpp (so the
// (pp-1)/(m*vpp) rule would see no difference), then 0.1 s against 0.35 s
// of gradient reduction; the optimizer's 1 ms, under a tenth of the
// 0.651 s gap, is left out. Steps of 5.402 and 6.053 s: the bubble is
// 5.55% and 11.6% of them, the reduction 1.85% and 5.78%, and a runs
// 6.053/5.402 - 1 = 12.1% more tokens/s.
func TestWhyReadsTheBreakdown(t *testing.T) {
	step := func(bubble, grads, opt float64) costmodel.Performance {
		s := costmodel.StepTime{Compute: 5, Bubble: seconds(bubble), ExposedDPGrads: seconds(grads), Optimizer: seconds(opt)}
		s.Total = s.Compute + s.Bubble + s.ExposedDPGrads + s.Optimizer
		return costmodel.Performance{StepTime: s.Total, TokensPerSecond: 1e6 / float64(s.Total), Breakdown: s}
	}
	p := costmodel.Plan{TP: 8, PP: 16, VPP: 8, CP: 1, DP: 128, MicroBatch: 1, GlobalBatch: 2048}
	a := Ranked{Plan: p, MicroBatches: 16, Performance: step(0.3, 0.1, 0.002)}
	b := Ranked{Plan: p, MicroBatches: 16, Performance: step(0.7, 0.35, 0.003)}
	why := Why(a, b)
	want := []string{
		"pipeline bubble 300 ms vs 700 ms (5.55% vs 11.6% of the step): pp 16 vs 16, 16 vs 16 micro-batches, vpp 8 vs 8",
		"exposed dp gradient reduction 100 ms vs 350 ms (1.85% vs 5.78% of the step)",
	}
	if len(why) != 3 || why[1] != want[0] || why[2] != want[1] {
		t.Errorf("Why:\n%s\nwant lines 2-3:\n%s", strings.Join(why, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(why[0], "12.1% more tokens/s") {
		t.Errorf("lead: %s", why[0])
	}
}

func seconds(s float64) hardware.Seconds { return hardware.Seconds(s) }
