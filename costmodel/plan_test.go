package costmodel

import (
	"strings"
	"testing"
)

func TestPlanStringRoundTrip(t *testing.T) {
	plans := []Plan{
		{TP: 8, PP: 16, CP: 1, DP: 128, EP: 1, ETP: 1, VPP: 1, ZeRO: 1, SP: true, Recompute: Selective, MicroBatch: 1},
		{TP: 1, PP: 4, CP: 2, DP: 8, EP: 1, ETP: 1, VPP: 3, ZeRO: 3, Recompute: Full, MicroBatch: 2, Schedule: GPipe},
		{TP: 8, PP: 16, CP: 16, DP: 8, EP: 1, ETP: 1, VPP: 1, FirstStageLayers: 7, LastStageLayers: 7, MicroBatch: 1},
		{TP: 2, PP: 8, CP: 1, DP: 16, EP: 8, ETP: 2, VPP: 1, ZeRO: 1, SP: true, MicroBatch: 1},
		{TP: 1, PP: 1, CP: 1, DP: 128, EP: 1, ETP: 1, VPP: 1, ZeRO: 3, Recompute: OpSAC, MicroBatch: 2},
	}
	for _, p := range plans {
		got, err := ParsePlan(p.String(), Plan{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got != p {
			t.Errorf("round trip of %s gave %+v", p, got)
		}
	}
	if s := plans[0].String(); s != "tp8-pp16-cp1-dp128-zero1-sp-selective-mb1" {
		t.Errorf("plan string %q", s)
	}
	if s := plans[3].String(); s != "tp2-pp8-cp1-dp16-ep8-etp2-zero1-sp-none-mb1" {
		t.Errorf("expert-parallel plan string %q", s)
	}
	if s := plans[4].String(); s != "tp1-pp1-cp1-dp128-zero3-opsac-mb2" {
		t.Errorf("op-level SAC plan string %q", s)
	}
}

func TestParsePlanErrors(t *testing.T) {
	for _, s := range []string{"", "tp8", "tp8-pp2-cp1-dp1-zero1-none", "tp8-tp8-pp2-cp1-dp1-zero1-none-mb1",
		"tpx-pp2-cp1-dp1-zero1-none-mb1", "tp8-pp2[3-cp1-dp1-zero1-none-mb1", "tp8-pp2-cp1-dp1-zero1-none-mb1-wat"} {
		if _, err := ParsePlan(s, Plan{}); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func FuzzParsePlan(f *testing.F) {
	f.Add("tp8-pp16v2[7,7]-cp2-dp4-zero3-sp-full-mb2-gpipe")
	f.Add("tp1-pp1-cp1-dp1-zero0-none-mb1")
	f.Add("tp1-pp4-cp1-dp8-zero1-full[block5]-mb1")
	f.Add("tp2-pp2v2-cp1-dp2-zero1-sp-full[uniform2]-mb1")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePlan(s, Plan{})
		if err != nil {
			return
		}
		q, err := ParsePlan(p.String(), Plan{})
		if err != nil || q != p {
			t.Fatalf("%q parsed to %s, which reparses to %+v, %v", s, p, q, err)
		}
	})
}

func TestNormalizeErrors(t *testing.T) {
	m, _ := LookupModel("llama3-70b") // 64 heads, 8 KV heads, 80 layers
	base := Plan{TP: 8, PP: 1, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 4096}
	tests := []struct {
		name string
		edit func(*Plan)
		gpus int
		want string
	}{
		{"tp not dividing heads", func(p *Plan) { p.TP = 3 }, 0, "tp=3 does not divide 64 attention heads (valid tp: 1, 2, 4, 8, 16, 32, 64)"},
		{"gpu count", func(p *Plan) {}, 16, "tp*pp*cp*dp = 8*1*1*1 = 8, but the cluster has 16 GPUs"},
		{"zero stage", func(p *Plan) { p.ZeRO = 4 }, 0, "zero=4 is not a ZeRO stage"},
		{"negative seq", func(p *Plan) { p.Seq = -1 }, 0, "seq=-1 is not in"},
		{"absurd mbs", func(p *Plan) { p.MicroBatch = 1 << 40 }, 0, "mbs=1099511627776 is not in"},
		{"batch", func(p *Plan) { p.DP = 2; p.GlobalBatch = 3 }, 0, "gbs=3 is not a multiple of mbs*dp"},
		{"cp eager", func(p *Plan) { p.CP = 2; p.Attention = Eager }, 0, "needs FlashAttention"},
		{"cp seq", func(p *Plan) { p.CP = 3; p.Seq = 4096 }, 0, "cp=3 does not split seq=4096 into 2*cp equal chunks (valid cp: 1, 2, 4, 8, 16, 32, 64, ...)"},
		{"vpp without pp", func(p *Plan) { p.VPP = 2 }, 0, "vpp=2 needs pp > 1"},
		{"pp beyond layers", func(p *Plan) { p.PP = 81 }, 0, "pp=81 exceeds the 80 layers"},
		{"sp split", func(p *Plan) { p.SP = true; p.Seq = 4100 }, 0, "sequence parallelism splits"},
	}
	for _, tt := range tests {
		p := base
		tt.edit(&p)
		_, err := p.Normalize(m, tt.gpus)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestCheckTPListsValidDegrees: the degrees an error offers are ones
// CheckTP accepts. With 40 heads in 8 KV groups (Qwen2.5-14B's shape) 5,
// 10 and 20 divide the heads but neither divide the KV heads nor are
// multiples of them.
func TestCheckTPListsValidDegrees(t *testing.T) {
	m, err := LookupModel("llama3-8b")
	if err != nil {
		t.Fatal(err)
	}
	m.Heads, m.KVHeads = 40, 8
	for _, tp := range []int{3, 5} {
		err := m.CheckTP(tp)
		if err == nil || !strings.HasSuffix(err.Error(), "(valid tp: 1, 2, 4, 8, 40)") {
			t.Errorf("tp=%d: error %v, want the valid tp 1, 2, 4, 8, 40", tp, err)
		}
	}
	for _, tp := range []int{1, 2, 4, 8, 40} {
		if err := m.CheckTP(tp); err != nil || !m.SplitsHeads(tp) {
			t.Errorf("tp=%d: %v, SplitsHeads %v; want accepted", tp, err, m.SplitsHeads(tp))
		}
	}
}
