package costmodel

import (
	"math"
	"testing"
)

// TestInFlight checks the micro-batches each schedule keeps in flight.
func TestInFlight(t *testing.T) {
	tests := []struct {
		name string
		p    Plan
		r, m int
		want float64
	}{
		{"1F1B first stage holds pp", Plan{PP: 8, VPP: 1}, 0, 64, 8},
		{"1F1B last stage holds one", Plan{PP: 8, VPP: 1}, 7, 64, 1},
		{"1F1B capped by micro-batches", Plan{PP: 8, VPP: 1}, 0, 3, 3},
		// Korthikanti et al. 2022, sec. 4.2.3: pp*(1 + (pp-1)/(pp*v)).
		{"interleaved first stage", Plan{PP: 8, VPP: 3}, 0, 64, 8 * (1 + 7.0/24)},
		{"interleaved last stage", Plan{PP: 8, VPP: 3}, 7, 64, (2*8 + 1) / 3.0},
		{"GPipe holds all", Plan{PP: 4, VPP: 1, Schedule: GPipe}, 2, 32, 32},
		{"no pipeline", Plan{PP: 1, VPP: 1}, 0, 32, 1},
	}
	for _, tt := range tests {
		if got := tt.p.inFlight(tt.r, tt.m); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", tt.name, got, tt.want)
		}
	}
}

// TestLlama405BSplit: 126 layers on 16 stages is Meta's split, one layer
// fewer on the first and last stages (Dubey et al. 2024, sec. 3.3.2).
func TestLlama405BSplit(t *testing.T) {
	p, err := (Plan{PP: 16, VPP: 1}).balanceLayers(126)
	if err != nil {
		t.Fatal(err)
	}
	if p.FirstStageLayers != 7 || p.LastStageLayers != 7 {
		t.Errorf("split %d, %d; want 7, 7", p.FirstStageLayers, p.LastStageLayers)
	}
	total := 0
	for r := range 16 {
		n, _ := p.stageLayers(layerKinds{layers: 126, dense: 126}, r)
		total += n
		if want := 8 - boolIndex(r == 0 || r == 15); n != want {
			t.Errorf("stage %d: %d layers, want %d", r, n, want)
		}
	}
	if total != 126 {
		t.Errorf("stages hold %d layers, want 126", total)
	}
}

func TestSplitErrors(t *testing.T) {
	bad := []Plan{
		{PP: 4, VPP: 5}, // 20 chunks of 2 leave the end chunks -2 layers each
		{PP: 4, VPP: 2, FirstStageLayers: 5, LastStageLayers: 5},   // 22 layers do not make 4 equal middle chunks
		{PP: 4, VPP: 2, FirstStageLayers: 4, LastStageLayers: 8},   // middle chunks of 5 leave the first end chunk -1
		{PP: 2, VPP: 2, FirstStageLayers: 4, LastStageLayers: 28},  // the balanced 8-layer chunk leaves chunk 0 -4
		{PP: 4, VPP: 1, FirstStageLayers: 20, LastStageLayers: 20}, // more than 32
		{PP: 64, VPP: 1}, // more stages than layers
		{PP: 1, VPP: 1, FirstStageLayers: 3},
	}
	for _, p := range bad {
		if _, err := p.balanceLayers(32); err == nil {
			t.Errorf("%+v: no error for 32 layers", p)
		}
	}
}

// TestStageLayersCoverModel: every layer is on exactly one stage, for
// even, uneven and interleaved splits, and MoE layers are counted where
// they are (DeepSeek-V3: 3 dense layers first).
func TestStageLayersCoverModel(t *testing.T) {
	for _, p := range []Plan{{PP: 1, VPP: 1}, {PP: 4, VPP: 1}, {PP: 5, VPP: 1}, {PP: 2, VPP: 2}, {PP: 3, VPP: 1}, {PP: 7, VPP: 2}, {PP: 8, VPP: 2}} {
		q, err := p.balanceLayers(60)
		if err != nil {
			t.Fatal(err)
		}
		total, moe := 0, 0
		for r := range q.PP {
			n, e := q.stageLayers(layerKinds{layers: 60, dense: 3}, r)
			total += n
			moe += e
		}
		if total != 60 || moe != 57 {
			t.Errorf("%s: %d layers, %d MoE; want 60, 57", q, total, moe)
		}
	}
}

// TestPeakFastEqualsPeak: PeakFast returns the very stage Peak returns,
// field for field; PeakLowerBound never exceeds it, and SplitLowerBound
// never exceeds PeakLowerBound. Over dense and MoE models (DeepSeek-V3's
// dense layers span the first stages), every schedule, interleaving,
// even and uneven splits, and pipelines starved of micro-batches.
func TestPeakFastEqualsPeak(t *testing.T) {
	c := cluster(t, "h100-sxm", 8)
	compared := 0
	for _, name := range []string{"llama3-405b", "deepseek-v3", "mixtral-8x7b", "gpt3-175b", "qwen3-30b-a3b"} {
		m, err := LookupModel(name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEvaluator(m, c, DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peakTestPlans() {
			q, err := p.Normalize(m, 0)
			if err != nil {
				continue
			}
			want, got := e.Peak(q), e.PeakFast(q)
			if got != want {
				t.Fatalf("%s %s: PeakFast stage %d total %v, Peak stage %d total %v", name, q, got.Stage, got.Total, want.Stage, want.Total)
			}
			lb := e.PeakLowerBound(q)
			if lb > want.Total || lb <= 0 {
				t.Fatalf("%s %s: lower bound %v above peak %v", name, q, lb, want.Total)
			}
			if slb := e.SplitLowerBound(q); slb > lb || slb <= 0 {
				t.Fatalf("%s %s: split bound %v above the bound %v", name, q, slb, lb)
			}
			compared++
		}
	}
	if compared < 3000 {
		t.Errorf("only %d plans compared", compared)
	}
}

func peakTestPlans() []Plan {
	var out []Plan
	for _, pp := range []int{1, 2, 3, 4, 5, 7, 8, 16} {
		for _, vpp := range []int{1, 2, 3} {
			for _, sched := range []Schedule{OneFOneB, GPipe} {
				for _, rc := range []Recompute{NoRecompute, Selective, Full} {
					for _, zero := range []int{0, 3} {
						for _, gbs := range []int{2, 3 * pp, 8 * pp} {
							for _, ends := range []int{0, 1, 3} {
								out = append(out, Plan{TP: 8, PP: pp, VPP: vpp, CP: 1, DP: 2, ZeRO: zero, SP: true,
									FirstStageLayers: ends, LastStageLayers: ends,
									Recompute: rc, MicroBatch: 1, GlobalBatch: 2 * gbs, Seq: 4096, Schedule: sched})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// BenchmarkPeak compares the memory evaluation of one plan by every stage
// (Peak) and by the stages that can hold the peak (PeakFast), and the
// lower bound without activations: Llama 3 405B, tp 8, pp 16.
func BenchmarkPeak(b *testing.B) {
	m, _ := LookupModel("llama3-405b")
	e, err := NewEvaluator(m, cluster(b, "h100-sxm", 128), DefaultAssumptions())
	if err != nil {
		b.Fatal(err)
	}
	p, err := Plan{TP: 8, PP: 16, CP: 1, DP: 1, ZeRO: 1, SP: true, Recompute: Selective, MicroBatch: 1, GlobalBatch: 16, Seq: 8192}.Normalize(m, 128)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name string
		f    func(Plan)
	}{{"Peak", func(p Plan) { e.Peak(p) }}, {"PeakFast", func(p Plan) { e.PeakFast(p) }}, {"PeakLowerBound", func(p Plan) { e.PeakLowerBound(p) }}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.f(p)
			}
		})
	}
}
