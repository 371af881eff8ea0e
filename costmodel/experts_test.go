package costmodel

import (
	"strings"
	"testing"
)

// deepSeekV3Plan is DeepSeek-V3's pre-training layout (arXiv:2412.19437,
// sec. 3.2.1: "16-way Pipeline Parallelism, 64-way Expert Parallelism
// spanning 8 nodes, and ZeRO-1 Data Parallelism" on 2,048 H800s; no
// tensor parallelism). Batch 15,360 sequences of 4,096 (sec. 4.2).
func deepSeekV3Plan() Plan {
	return Plan{TP: 1, PP: 16, CP: 1, DP: 128, EP: 64, ETP: 1, ZeRO: 1, MicroBatch: 1,
		GlobalBatch: 15360, Seq: 4096, Recompute: Full}
}

// TestDeepSeekV3ExpertStates checks the per-GPU routed-expert states of a
// middle pipeline stage against a hand calculation.
//
// One routed expert is a SwiGLU MLP of h = 7,168 and expert FFN 2,048:
// 3 x 7168 x 2048 = 44,040,192 parameters. ep 64 leaves 256/64 = 4
// experts per GPU and layer: 176,160,768 parameters; a middle stage of 4
// MoE layers holds 704,643,072. The expert data parallel group is
// tp*cp*dp/(ep*etp) = 128/64 = 2 ranks. Mixed-precision Adam, ZeRO-1 over
// those 2 ranks, bf16 gradients:
//
//	weights  2 B x 704,643,072      = 1,409,286,144 B
//	grads    2 B x 704,643,072      = 1,409,286,144 B
//	master   4 B x 704,643,072 / 2  = 1,409,286,144 B
//	moments  8 B x 704,643,072 / 2  = 2,818,572,288 B
//	total                            = 7,046,430,720 B (6.56 GiB)
//
// (The report keeps the moments in bf16, sec. 3.3.1, which the planner's
// fp32 Adam does not model.) Without expert parallelism the same experts
// (all 256 per layer) would need 64 x 4 B + 12 B / 128 per param: about
// 15 times more.
func TestDeepSeekV3ExpertStates(t *testing.T) {
	m, err := LookupModel("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	a := DefaultAssumptions()
	a.GradAccumFP32 = false
	e, err := NewEvaluator(m, cluster(t, "h100-sxm", 2048), a)
	if err != nil {
		t.Fatal(err)
	}
	p, err := deepSeekV3Plan().Normalize(m, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if p.ExpertDP() != 2 {
		t.Fatalf("expert dp %d, want 128/64 = 2", p.ExpertDP())
	}
	s := e.Stage(p, 2)
	if s.Layers != 4 || s.MoELayers != 4 {
		t.Fatalf("stage 2 holds %d layers (%d MoE), want 4 MoE layers", s.Layers, s.MoELayers)
	}
	want := []struct {
		name string
		got  float64
		want float64
	}{
		{"expert params", s.ExpertParams, 704_643_072},
		{"expert weights", float64(s.ExpertWeights), 1_409_286_144},
		{"expert gradients", float64(s.ExpertGradients), 1_409_286_144},
		{"expert master weights", float64(s.ExpertMaster), 1_409_286_144},
		{"expert moments", float64(s.ExpertMoments), 2_818_572_288},
		{"expert states", float64(s.ExpertWeights + s.ExpertGradients + s.ExpertMaster + s.ExpertMoments), 7_046_430_720},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s: %.0f, hand calculation %.0f", w.name, w.got, w.want)
		}
	}
}

func TestExpertLayoutErrors(t *testing.T) {
	ds, _ := LookupModel("deepseek-v3")
	dense, _ := LookupModel("llama3.1-8b")
	base := deepSeekV3Plan()
	cases := []struct {
		m    *Model
		p    func(*Plan)
		want string
	}{
		{ds, func(p *Plan) { p.EP = 3 }, "ep=3 does not divide the 256 routed experts"},
		{ds, func(p *Plan) { p.EP, p.ETP = 64, 4 }, "ep*etp = 64*4 = 256 does not divide tp*cp*dp = 128"},
		{ds, func(p *Plan) { p.TP, p.DP = 8, 16 }, "needs sequence parallelism"},
		{dense, func(p *Plan) { p.PP, p.DP, p.GlobalBatch = 1, 2048, 2048 }, "has no experts (valid: ep=1, etp=1)"},
	}
	for _, c := range cases {
		p := base
		c.p(&p)
		_, err := p.Normalize(c.m, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want %q", c.m.Name, p, err, c.want)
		}
	}
}

// TestMoEFLOPsCountActiveExperts: MFU's model FLOPs pass through the
// top-k routed experts only. DeepSeek-V3's forward at s = 4,096 is
// 2 x (37.55B active - 2 x 0.93B embedding and output) + 2 x h x V +
// the attention, about 2 x 37B, far from 2 x its 671B.
func TestMoEFLOPsCountActiveExperts(t *testing.T) {
	m, _ := LookupModel("deepseek-v3")
	p := m.Params()
	f := float64(m.ForwardFLOPsPerToken(4096))
	weights := p.Active - p.Embedding - p.OutputLayer - m.finalNormParams()
	attn := float64(m.Layers) * m.attentionFLOPsPerKey() * (4096 + 1) / 2
	if want := 2*weights + 2*float64(m.Vocab)*float64(m.Hidden) + attn; !within(f, want, 1e-12) {
		t.Errorf("forward FLOPs/token %.4g, want %.4g", f, want)
	}
	if f > 0.1*2*p.Total {
		t.Errorf("forward FLOPs/token %.4g count inactive experts (2 x total = %.4g)", f, 2*p.Total)
	}
}
