package costmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestPartialRecomputePlanString(t *testing.T) {
	base := Plan{TP: 1, PP: 2, CP: 1, DP: 4, EP: 1, ETP: 1, VPP: 1, ZeRO: 1, Recompute: Full, MicroBatch: 1}
	for _, tt := range []struct {
		method RecomputeMethod
		n      int
		want   string
	}{
		{Block, 5, "tp1-pp2-cp1-dp4-zero1-full[block5]-mb1"},
		{Uniform, 2, "tp1-pp2-cp1-dp4-zero1-full[uniform2]-mb1"},
		{Uniform, 0, "tp1-pp2-cp1-dp4-zero1-full-mb1"},
	} {
		p := base
		p.RecomputeMethod, p.RecomputeLayers = tt.method, tt.n
		if s := p.String(); s != tt.want {
			t.Errorf("%s %d: plan string %q, want %q", tt.method, tt.n, s, tt.want)
		}
		got, err := ParsePlan(tt.want, Plan{})
		if err != nil || got != p {
			t.Errorf("ParsePlan(%q) = %+v, %v; want %+v", tt.want, got, err, p)
		}
	}
	// Another policy clears the method and the count.
	got, err := ParsePlan("tp1-pp2-cp1-dp4-zero1-none-mb1", Plan{RecomputeMethod: Block, RecomputeLayers: 3})
	if err != nil || got.RecomputeLayers != 0 || got.RecomputeMethod != Uniform {
		t.Errorf("none over a block base: %+v, %v", got, err)
	}
	for _, s := range []string{"full[block0]", "full[blok3]", "full[block]", "full[block5", "full[uniform-1]", "full[]"} {
		if _, err := ParsePlan("tp1-pp2-cp1-dp4-zero1-"+s+"-mb1", Plan{}); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	if _, err := ParseRecomputeMethod("blok"); err == nil || !strings.Contains(err.Error(), "valid: uniform, block") {
		t.Errorf("ParseRecomputeMethod(blok): %v", err)
	}
}

func TestPartialRecomputeNormalize(t *testing.T) {
	m, _ := LookupModel("llama3-8b") // 32 layers
	base := Plan{TP: 1, PP: 2, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 2, Seq: 4096, Recompute: Full}
	for _, tt := range []struct {
		name   string
		edit   func(*Plan)
		layers int // want after Normalize; -1: an error containing want
		want   string
	}{
		{"uniform 1 is plain full", func(p *Plan) { p.RecomputeLayers = 1 }, 0, ""},
		{"block without a count is plain full", func(p *Plan) { p.RecomputeMethod = Block }, 0, ""},
		{"block 16 of 16", func(p *Plan) { p.RecomputeMethod, p.RecomputeLayers = Block, 16 }, 16, ""},
		{"block beyond the stage", func(p *Plan) { p.RecomputeMethod, p.RecomputeLayers = Block, 17 }, -1,
			"recompute layers 17 is not in [1, 16]"},
		{"beyond a virtual stage", func(p *Plan) { p.VPP, p.RecomputeMethod, p.RecomputeLayers = 2, Block, 9 }, -1,
			"recompute layers 9 is not in [1, 8]"},
		{"negative", func(p *Plan) { p.RecomputeLayers = -2 }, -1, "recompute layers -2 is not in [1, 16]"},
		{"not full", func(p *Plan) { p.Recompute, p.RecomputeMethod, p.RecomputeLayers = Selective, Block, 4 }, -1,
			"recompute method block with 4 layers needs recompute full (got selective)"},
		{"bad method", func(p *Plan) { p.RecomputeMethod, p.RecomputeLayers = 7, 4 }, -1, "recompute method 7 is not one of uniform, block"},
	} {
		p := base
		tt.edit(&p)
		q, err := p.Normalize(m, 0)
		switch {
		case tt.layers < 0 && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		case tt.layers >= 0 && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.layers >= 0 && q.RecomputeLayers != tt.layers:
			t.Errorf("%s: %d layers after Normalize, want %d", tt.name, q.RecomputeLayers, tt.layers)
		}
	}
}

// acts is a stage's activations without the fixed lines: the layers'
// saved tensors and the recompute's transient.
func acts(s StageMemory) float64 { return float64(s.LayerActivations + s.RecomputeWorkingSet) }

// TestBlockRecomputeMemory: with the block method the stage's
// activations fall by the same amount for each layer checkpointed, from
// no recompute (N 0) to full recompute at N equal to the layers of a
// chunk, on a plain 1F1B pipeline and an interleaved one. Below that
// they stay above full recompute's but for one layer input: full
// recompute counts the input of the layer it rebuilds twice, as the
// checkpoint and among the layer's tensors (rangeActs), while block
// L-1 rebuilds its last checkpointed layer only after the kept layer
// freed more than that.
func TestBlockRecomputeMemory(t *testing.T) {
	for _, tt := range []struct {
		name    string
		pp, vpp int
	}{{"pp2", 2, 1}, {"pp2 v2", 2, 2}, {"pp1", 1, 1}} {
		p := basePlan(2, tt.pp, 1)
		p.SP, p.VPP, p.GlobalBatch = true, tt.vpp, 8
		p.Recompute = NoRecompute
		e, none := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
		p.Recompute = Full
		_, full := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
		chunk := 32 / (tt.pp * tt.vpp)
		noneS, fullS := e.Stage(none, 0), e.Stage(full, 0)
		prev := acts(noneS)
		input := e.layerActs(full).dense * fullS.InFlight
		var step float64
		for n := 1; n <= chunk; n++ {
			q := full
			q.RecomputeMethod, q.RecomputeLayers = Block, n
			s := e.Stage(q, 0)
			got := acts(s)
			if n < chunk && !(got < prev) || got < acts(fullS)-input*(1+1e-12) {
				t.Fatalf("%s block %d: %v, not below %v and at least full's %v", tt.name, n, got, prev, acts(fullS))
			}
			if s.RecomputedLayers != n*tt.vpp {
				t.Errorf("%s block %d: %d layers recomputed, want %d", tt.name, n, s.RecomputedLayers, n*tt.vpp)
			}
			if n < chunk {
				if step == 0 {
					step = prev - got
				}
				if math.Abs(prev-got-step) > 1e-9*prev {
					t.Errorf("%s block %d: saves %v, block 1 saved %v", tt.name, n, prev-got, step)
				}
			}
			prev = got
		}
		if math.Abs(prev/acts(fullS)-1) > 1e-12 {
			t.Errorf("%s block %d (all): %v, full recompute %v", tt.name, chunk, prev, acts(fullS))
		}
		q := full
		q.RecomputeMethod, q.RecomputeLayers = Block, 1
		if got := e.Peak(q).Total; !(got < e.Peak(none).Total && got > e.Peak(full).Total) {
			t.Errorf("%s block 1 peak %v not between full %v and none %v", tt.name, got, e.Peak(full).Total, e.Peak(none).Total)
		}
	}
}

// TestUniformRecompute: uniform groups of one layer are full recompute
// (memory and time); groups of g layers keep one input per group and
// hold g layers' tensors while one is recomputed, and rerun the same
// forward as full recompute.
func TestUniformRecompute(t *testing.T) {
	p := basePlan(2, 2, 1)
	p.SP, p.Recompute, p.GlobalBatch = true, Full, 8
	e, full := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
	one := full
	one.RecomputeLayers = 1 // past Normalize, which writes it as 0
	fs, os := e.Stage(full, 1), e.Stage(one, 1)
	if os.RecomputedLayers != 16 {
		t.Errorf("uniform 1: %d layers recomputed, want all 16", os.RecomputedLayers)
	}
	os.RecomputedLayers = 0
	if fs != os {
		t.Errorf("uniform 1: %+v\nfull: %+v", os, fs)
	}
	if a, b := e.Performance(one), e.Performance(full); a != b {
		t.Errorf("uniform 1 performance %+v, full %+v", a, b)
	}
	four := full
	four.RecomputeLayers = 4
	s := e.Stage(four, 1)
	if got, want := float64(s.LayerActivations), float64(fs.LayerActivations)/4; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("uniform 4 saves %v, want a quarter of full's %v", got, want)
	}
	if got, want := float64(s.RecomputeWorkingSet), 4*float64(fs.RecomputeWorkingSet); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("uniform 4 transient %v, want 4 layers' %v", got, want)
	}
	if a, b := e.Performance(four).HardwareFLOPsPerToken, e.Performance(full).HardwareFLOPsPerToken; a != b {
		t.Errorf("uniform 4 hardware FLOPs %v, full %v", a, b)
	}
}

// TestBlockRecomputeTime: the recompute time, the hardware FLOPs it adds
// and the recompute's tensor-parallel traffic are the checkpointed
// layers' share of full recompute's: N of the 16 layers of each stage.
func TestBlockRecomputeTime(t *testing.T) {
	p := basePlan(2, 2, 1)
	p.SP, p.Recompute, p.GlobalBatch = true, Full, 8
	e, full := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
	f := e.Performance(full)
	recFLOPs := float64(f.HardwareFLOPsPerToken - f.ModelFLOPsPerToken)
	tpRec := func(q Plan) float64 {
		r, err := e.Estimate(q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := linesNamed(r, nameTPRec)
		return float64(b)
	}
	fullTP := tpRec(full)
	if fullTP == 0 {
		t.Fatal("no tensor-parallel recompute traffic under full recompute")
	}
	for _, n := range []int{1, 5, 16} {
		q := full
		q.RecomputeMethod, q.RecomputeLayers = Block, n
		got := e.Performance(q)
		share := float64(n) / 16
		if r := float64(got.HardwareFLOPsPerToken-got.ModelFLOPsPerToken) / recFLOPs; math.Abs(r-share) > 1e-9 {
			t.Errorf("block %d: recompute FLOPs %.4f of full's, want %.4f", n, r, share)
		}
		if r := float64(got.Breakdown.Recompute / f.Breakdown.Recompute); math.Abs(r-share) > 1e-9 {
			t.Errorf("block %d: recompute time %.4f of full's, want %.4f", n, r, share)
		}
		if r := tpRec(q) / fullTP; math.Abs(r-share) > 1e-9 {
			t.Errorf("block %d: recompute tp traffic %.4f of full's, want %.4f", n, r, share)
		}
		if got.StepTime > f.StepTime {
			t.Errorf("block %d: step %v above full recompute's %v", n, got.StepTime, f.StepTime)
		}
		if b := StepTimeLowerBound(q, e.MicroBatchWork(q)); b > got.StepTime {
			t.Errorf("block %d: lower bound %v above the step %v", n, b, got.StepTime)
		}
	}
}

// TestBlockRecomputeMoE: on an MoE model the block method stays between
// no and full recompute, and the MoE MLP tensors it keeps are those of
// the MoE layers it skips.
func TestBlockRecomputeMoE(t *testing.T) {
	p := basePlan(1, 2, 8)
	p.EP, p.Recompute, p.GlobalBatch, p.Seq = 8, NoRecompute, 16, 4096
	e, none := evalPlan(t, "mixtral-8x7b", "h100-sxm", 0, DefaultAssumptions(), p) // 32 MoE layers
	p.Recompute = Full
	_, full := evalPlan(t, "mixtral-8x7b", "h100-sxm", 0, DefaultAssumptions(), p)
	q := full
	q.RecomputeMethod, q.RecomputeLayers = Block, 6
	s, ns, fs := e.Stage(q, 0), e.Stage(none, 0), e.Stage(full, 0)
	if !(acts(s) < acts(ns) && acts(s) > acts(fs)) {
		t.Errorf("block 6: %v not between full %v and none %v", acts(s), acts(fs), acts(ns))
	}
	if got, want := float64(s.MoEActivations), float64(ns.MoEActivations)*10/16; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("block 6 of 16: MoE MLP tensors %v, want 10/16 of none's %v", got, want)
	}
	if e.Performance(q).StepTime >= e.Performance(full).StepTime {
		t.Errorf("block 6 not faster than full recompute")
	}
}

// TestBlockRecomputeTimeline: the step timeline's peak is the stage's
// total, and a backward pass takes 2 + N/layers forward times.
func TestBlockRecomputeTimeline(t *testing.T) {
	p := basePlan(1, 4, 1)
	p.Recompute, p.GlobalBatch, p.RecomputeMethod, p.RecomputeLayers = Full, 8, Block, 2
	e, q := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
	s := e.Stage(q, 0)
	tl, err := StepTimeline(q, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := tl.Points[tl.Peak].Total; math.Abs(float64(got/s.Total)-1) > 1e-12 {
		t.Errorf("timeline peak %v, stage total %v", got, s.Total)
	}
	for _, pt := range tl.Points {
		if pt.Pass.Backward {
			if d := pt.End - pt.Start; math.Abs(d-(2+2.0/8)) > 1e-12 {
				t.Errorf("backward lasts %v forward times, want 2.25", d)
			}
			break
		}
	}
}

// TestBlockRecomputeLever: a plan over its budget is offered the block
// recompute of the fewest layers that fit: N fits, N-1 does not.
func TestBlockRecomputeLever(t *testing.T) {
	p := basePlan(1, 1, 8)
	p.ZeRO, p.GlobalBatch = 1, 8
	e, q := evalPlan(t, "llama3-8b", "h100-sxm", 0, DefaultAssumptions(), p)
	r, err := e.Estimate(q)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory.Fits {
		t.Fatal("the plan fits; the test needs one over budget")
	}
	n := 0
	for _, l := range r.Levers {
		if _, err := fmt.Sscanf(l.Change, "--recompute full --recompute-method block --recompute-num-layers %d", &n); err == nil {
			if !l.Fits {
				t.Errorf("%s does not fit", l.Change)
			}
			break
		}
	}
	if n < 2 || n >= 32 {
		t.Fatalf("block lever with %d layers among %v", n, r.Levers)
	}
	fits := func(n int) bool {
		b := q
		b.Recompute, b.RecomputeMethod, b.RecomputeLayers = Full, Block, n
		return e.Peak(b).Total <= e.Budget()
	}
	if !fits(n) || fits(n-1) {
		t.Errorf("block %d fits %v, block %d fits %v; want the fewest that fit", n, fits(n), n-1, fits(n-1))
	}
}
