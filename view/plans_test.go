package view

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// ranked is a hand-built search result, so the golden files do not move
// when the cost model's numbers do.
func ranked(name string, gpus int, peak hardware.Bytes, s costmodel.StepTime, tier hardware.Tier) search.Ranked {
	s.Total = s.Compute + s.Recompute + s.Bubble + s.ExposedTP + s.ExposedCP + s.ExposedPP + s.ExposedDPGrads + s.ExposedDPParams + s.Optimizer
	tokens := 2048 * 8192.0
	exposed := s.ExposedTP + s.ExposedCP + s.ExposedPP + s.ExposedDPGrads + s.ExposedDPParams
	return search.Ranked{PlanString: name, GPUs: gpus, Peak: peak, Headroom: 77e9 - peak,
		Performance: costmodel.Performance{StepTime: s.Total, TokensPerSecond: tokens / float64(s.Total),
			TokensPerSecondPerGPU: tokens / float64(s.Total) / float64(gpus), MFU: 0.4 * 7 / float64(s.Total),
			ExposedComm: exposed, ExposedTier: tier, Breakdown: s}}
}

func plans() []search.Ranked {
	return []search.Ranked{
		ranked("tp8-pp2v3-cp1-dp1024-zero3-sp-none-mb2", 16384, 76.8e9,
			costmodel.StepTime{Compute: 4.5, Bubble: 1.8, ExposedTP: 0.86, ExposedDPParams: 0.04, ExposedDPGrads: 0.02}, hardware.ScaleOut),
		ranked("tp8-pp16[7,7]-cp1-dp128-zero2-sp-none-mb1", 16384, 76.3e9,
			costmodel.StepTime{Compute: 4.6, Bubble: 5.4, ExposedTP: 0.88, ExposedPP: 0.03, ExposedDPGrads: 0.32, Optimizer: 0.0004}, hardware.ScaleOut),
		ranked("tp1-pp1-cp1-dp8-zero3-full-mb1 <&>", 8, 80e9,
			costmodel.StepTime{Compute: 0.7, Recompute: 0.2, Optimizer: 0.02}, hardware.Local),
	}
}

func traffic() []costmodel.TrafficLine {
	return []costmodel.TrafficLine{
		{Name: "zero-3: weight all-gather, forward", Kind: costmodel.CommDPParams, Collective: costmodel.AllGather, Tier: hardware.ScaleOut,
			Group: "64 ranks over 8 nodes (8 per node)", Bytes: 139e9, NetworkBytes: 17.4e9, Time: 0.492, Exposed: 0.00615,
			OverlapsWith: "the previous layer's forward", Source: "ZeRO <sec. 7>"},
		{Name: "tp: layer outputs, forward", Kind: costmodel.CommTP, Collective: costmodel.ReduceScatter, Tier: hardware.ScaleUp,
			Group: "8 ranks in 1 node", Bytes: 60.1e9, Time: 0.221, Exposed: 0.221, Source: "Korthikanti"},
	}
}

func TestSearchTablesGolden(t *testing.T) {
	ps := plans()
	golden(t, "plans.html", PlansTable("best plans", ps))
	golden(t, "plan_rows.html", PlanRows("", PlanRow{Rank: 1, Plan: ps[0]}, PlanRow{Rank: 81, Note: "Meta's layout", Plan: ps[1]}))
	golden(t, "traffic.html", TrafficTable("ZeRO-3 on 64 GPUs", traffic()))
	golden(t, "steptime.html", StepTimeTable(StepBar{"best", ps[0].Performance}, StepBar{"Meta's layout", ps[1].Performance}))
}

// TestPlanRows: numbers the tables must show, escaped.
func TestPlanRows(t *testing.T) {
	ps := plans()
	out := PlansTable("", ps)
	for _, want := range []string{"<td class=\"num\">3</td>", "tp1-pp1-cp1-dp8-zero3-full-mb1 &lt;&amp;&gt;", "–", "920 ms", "2,279,513", "16,384"} {
		if !strings.Contains(out, want) {
			t.Errorf("plans table lacks %q", want)
		}
	}
	if strings.Contains(out, "note") {
		t.Error("a note column without notes")
	}
	if !strings.Contains(PlanRows("", PlanRow{Rank: 1, Note: "a <b>", Plan: ps[0]}), "a &lt;b&gt;") {
		t.Error("note is not escaped")
	}
	tr := TrafficTable("", traffic())
	for _, want := range []string{"2 collectives", "199 GB", "713 ms", "227 ms", "ZeRO &lt;sec. 7&gt;"} {
		if !strings.Contains(tr, want) {
			t.Errorf("traffic table lacks %q", want)
		}
	}
	st := StepTimeTable(StepBar{"a", ps[0].Performance}, StepBar{"b", ps[2].Performance})
	if strings.Contains(st, "exposed cp") || !strings.Contains(st, "recompute") || !strings.Contains(st, "0 s (0.0%)") {
		t.Errorf("step-time table: parts zero in every plan must go, others stay:\n%s", st)
	}
}

func searchCharts(t *testing.T) map[string]string {
	t.Helper()
	ps := plans()
	out := map[string]string{}
	var err error
	if out["steptime.svg"], err = StepTimeChart("step time", StepBar{"best", ps[0].Performance},
		StepBar{"Meta's layout", ps[1].Performance}, StepBar{"one node", ps[2].Performance}); err != nil {
		t.Fatal(err)
	}
	var front []search.Ranked
	for i, n := range []int{128, 256, 1024, 4096, 16384} {
		r := ranked("p", n, 70e9, costmodel.StepTime{Compute: hardware.Seconds(1000 / float64(n) * (1 + 0.1*float64(i)))}, hardware.ScaleOut)
		front = append(front, r)
	}
	if out["frontier.svg"], err = FrontierChart("frontier", front, Mark{"Meta's layout", ps[1]}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearchChartsGolden: the charts are byte-identical from run to run
// and match their golden files.
func TestSearchChartsGolden(t *testing.T) {
	checkCharts(t, searchCharts(t), searchCharts(t))
}

func TestSearchChartErrors(t *testing.T) {
	if _, err := StepTimeChart("none"); err == nil {
		t.Error("no bars: no error")
	}
	if _, err := StepTimeChart("zero", StepBar{"x", costmodel.Performance{}}); err == nil {
		t.Error("zero step time: no error")
	}
	nan := plans()[0]
	nan.Performance.Breakdown.Total = hardware.Seconds(math.NaN())
	if _, err := StepTimeChart("nan", StepBar{"x", nan.Performance}); err == nil {
		t.Error("NaN step time: no error")
	}
	if _, err := FrontierChart("none", nil); err == nil {
		t.Error("empty frontier: no error")
	}
	zero := plans()[0]
	zero.Performance.TokensPerSecond = 0
	if _, err := FrontierChart("zero", []search.Ranked{plans()[0]}, Mark{"zero", zero}); err == nil {
		t.Error("a mark at 0 tokens/s on a log axis: no error")
	}
}
