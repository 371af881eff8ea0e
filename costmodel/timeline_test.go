package costmodel

import (
	"math"
	"strings"
	"testing"
)

// schedule writes a rank's passes as "F0 F1 B0 ...".
func schedule(t *testing.T, p Plan, r int) string {
	t.Helper()
	passes, err := p.StageSchedule(r)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, ps := range passes {
		s = append(s, ps.String())
	}
	return strings.Join(s, " ")
}

// TestStageSchedule checks the pass orders against the schedules'
// published figures: 1F1B with pp=4 and 8 micro-batches (Narayanan et al.
// 2021, Figure 4, top), interleaving with pp=2, v=2 and 4 micro-batches
// (Megatron-LM's warm-up of (pp-r-1)*2 + (v-1)*pp chunks, chunk order in
// groups of pp), GPipe, and plain gradient accumulation.
func TestStageSchedule(t *testing.T) {
	onef := Plan{PP: 4, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 8}
	inter := Plan{PP: 2, VPP: 2, DP: 1, MicroBatch: 1, GlobalBatch: 4}
	gpipe := Plan{PP: 2, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 3, Schedule: GPipe}
	none := Plan{PP: 1, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 3}
	tests := []struct {
		name string
		p    Plan
		r    int
		want string
	}{
		{"1F1B first stage", onef, 0, "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7"},
		{"1F1B last stage", onef, 3, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7"},
		{"1F1B middle stage", onef, 2, "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7"},
		{"interleaved first rank", inter, 0,
			"F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3"},
		{"interleaved last rank", inter, 1,
			"F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3"},
		{"GPipe", gpipe, 1, "F0 F1 F2 B0 B1 B2"},
		{"no pipeline", none, 0, "F0 B0 F1 B1 F2 B2"},
	}
	for _, tt := range tests {
		if got := schedule(t, tt.p, tt.r); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if _, err := onef.StageSchedule(4); err == nil {
		t.Error("stage 4 of pp=4: no error")
	}
}

// TestStageScheduleHoldsInFlight: every schedule runs each chunk pass once
// forward and once backward, the forward first, and holds exactly the
// in-flight count of StageMemory at its first backward.
func TestStageScheduleHoldsInFlight(t *testing.T) {
	for _, base := range []Plan{
		{PP: 8, VPP: 1}, {PP: 8, VPP: 3}, {PP: 4, VPP: 2}, {PP: 4, VPP: 1, Schedule: GPipe}, {PP: 1, VPP: 1},
	} {
		for _, m := range []int{1, 3, 8, 12, 64} {
			p := base
			p.DP, p.MicroBatch, p.GlobalBatch = 1, 1, m
			for r := range p.PP {
				passes, err := p.StageSchedule(r)
				if err != nil {
					t.Fatal(err)
				}
				checkPasses(t, p, r, passes)
			}
		}
	}
}

func checkPasses(t *testing.T, p Plan, r int, passes []Pass) {
	t.Helper()
	m := p.MicroBatches()
	if len(passes) != 2*m*p.VPP {
		t.Fatalf("%v r=%d m=%d: %d passes, want %d", p, r, m, len(passes), 2*m*p.VPP)
	}
	open := map[Pass]bool{}
	first := -1.0
	for _, ps := range passes {
		key := Pass{MicroBatch: ps.MicroBatch, Chunk: ps.Chunk}
		if !ps.Backward {
			if open[key] {
				t.Fatalf("%v r=%d: %v twice", p, r, ps)
			}
			open[key] = true
			continue
		}
		if !open[key] {
			t.Fatalf("%v r=%d: %v before its forward", p, r, ps)
		}
		if first < 0 {
			first = float64(len(open)) / float64(p.VPP)
		}
		delete(open, key)
	}
	if len(open) != 0 {
		t.Errorf("%v r=%d: %d passes never run backward", p, r, len(open))
	}
	if want := p.inFlight(r, m); math.Abs(first-want) > 1e-12 {
		t.Errorf("%v r=%d m=%d: %g micro-batches in flight at the first backward, StageMemory counts %g", p, r, m, first, want)
	}
}

// TestStepTimelinePeak: the timeline peaks at the start of the first
// backward pass, at exactly the stage's StageMemory total, and the step
// ends with only the static memory held.
func TestStepTimelinePeak(t *testing.T) {
	l70, _ := LookupModel("llama3-70b")
	gpt, _ := LookupModel("megatron-22b")
	tests := []struct {
		name string
		m    *Model
		p    Plan
	}{
		{"llama 70b pp4 1F1B", l70, Plan{TP: 8, PP: 4, CP: 1, DP: 2, ZeRO: 1, SP: true, Recompute: Selective, MicroBatch: 1, GlobalBatch: 16, Seq: 8192}},
		{"llama 70b pp4 interleaved, full recompute", l70, Plan{TP: 8, PP: 4, VPP: 5, CP: 1, DP: 2, ZeRO: 1, Recompute: Full, MicroBatch: 1, GlobalBatch: 16, Seq: 4096}},
		{"gpt 22b pp2 GPipe (dropout, embedding mask)", gpt, Plan{TP: 8, PP: 2, CP: 1, DP: 1, Recompute: NoRecompute, MicroBatch: 4, GlobalBatch: 32, Seq: 2048, Attention: Eager, Schedule: GPipe}},
		{"gpt 22b pp2 1F1B", gpt, Plan{TP: 8, PP: 2, CP: 1, DP: 1, Recompute: Selective, MicroBatch: 4, GlobalBatch: 32, Seq: 2048}},
		{"llama 70b no pipeline, ZeRO-3", l70, Plan{TP: 1, PP: 1, CP: 1, DP: 16, ZeRO: 3, Recompute: Full, MicroBatch: 1, GlobalBatch: 64, Seq: 4096}},
	}
	for _, tt := range tests {
		c := cluster(t, "h100-sxm", tt.p.GPUs())
		e, err := NewEvaluator(tt.m, c, DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		p, err := tt.p.Normalize(tt.m, c.GPUs())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for r := range p.PP {
			s := e.Stage(p, r)
			tl, err := StepTimeline(p, s)
			if err != nil {
				t.Fatal(err)
			}
			checkTimeline(t, tt.name, tl, s)
		}
	}
}

func checkTimeline(t *testing.T, name string, tl Timeline, s StageMemory) {
	t.Helper()
	peak := tl.Points[tl.Peak]
	if !within(float64(peak.Total), float64(s.Total), 1e-12) {
		t.Errorf("%s stage %d: timeline peak %v, StageMemory total %v", name, s.Stage, peak.Total, s.Total)
	}
	for i, pt := range tl.Points {
		if pt.Pass.Backward {
			if i != tl.Peak {
				t.Errorf("%s stage %d: peak at pass %d (%v), first backward is pass %d", name, s.Stage, tl.Peak, peak.Pass, i)
			}
			break
		}
		if i > 0 && pt.Total <= tl.Points[i-1].Total {
			t.Errorf("%s stage %d: memory does not grow during warm-up forward %v", name, s.Stage, pt.Pass)
		}
	}
	if end := tl.Points[len(tl.Points)-1].After; math.Abs(float64(end-tl.Static)) > 1e-9*float64(tl.Static) {
		t.Errorf("%s stage %d: the step ends holding %v, want the static %v", name, s.Stage, end, tl.Static)
	}
	for i, pt := range tl.Points {
		if !pt.Pass.Backward && pt.After != pt.Total || pt.Pass.Backward && pt.After >= pt.Total {
			t.Errorf("%s stage %d: pass %d (%v) ends at %v from a largest %v", name, s.Stage, i, pt.Pass, pt.After, pt.Total)
		}
	}
}

// TestStepTimelineDurations: a backward takes two forwards, three under
// full recompute; interleaved chunks take 1/v each.
func TestStepTimelineDurations(t *testing.T) {
	s := StageMemory{InFlight: 2, LayerActivations: 2e9}
	for _, tt := range []struct {
		p    Plan
		want float64
	}{
		{Plan{PP: 2, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 4}, 4 * 3},
		{Plan{PP: 2, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 4, Recompute: Full}, 4 * 4},
		{Plan{PP: 2, VPP: 2, DP: 1, MicroBatch: 1, GlobalBatch: 4}, 4 * 3},
	} {
		tl, err := StepTimeline(tt.p, s)
		if err != nil {
			t.Fatal(err)
		}
		if end := tl.Points[len(tl.Points)-1].End; math.Abs(end-tt.want) > 1e-9 {
			t.Errorf("%v: step ends at %g forward passes, want %g", tt.p, end, tt.want)
		}
	}
	if _, err := StepTimeline(Plan{PP: 2, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 4}, StageMemory{}); err == nil {
		t.Error("zero in-flight StageMemory: no error")
	}
}
