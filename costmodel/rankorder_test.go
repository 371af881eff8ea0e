package costmodel

import (
	"slices"
	"testing"
)

// TestPlace: ranks per node of each group under Megatron's order, for
// 8-GPU nodes and a 72-GPU NVL72 domain.
func TestPlace(t *testing.T) {
	order, err := DefaultRankOrder.dims()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tp, cp, dp, pp, perNode int
		want                    placement
	}{
		// tp fills the node; dp and pp cross nodes one rank per node.
		{8, 1, 4, 2, 8, placement{tp: group{8, 8}, cp: group{1, 1}, dp: group{4, 1}, pp: group{2, 1}, shard: group{4, 1}}},
		// tp=2 leaves room for 4 dp ranks per node.
		{2, 1, 16, 1, 8, placement{tp: group{2, 2}, cp: group{1, 1}, dp: group{16, 4}, pp: group{1, 1}, shard: group{16, 4}}},
		// cp inside the node next to tp; the dp x cp shard group has 2 per node.
		{4, 2, 4, 1, 8, placement{tp: group{4, 4}, cp: group{2, 2}, dp: group{4, 1}, pp: group{1, 1}, shard: group{8, 2}}},
		// NVL72: tp=8 x dp=9 fits one domain.
		{8, 1, 9, 2, 72, placement{tp: group{8, 8}, cp: group{1, 1}, dp: group{9, 9}, pp: group{2, 1}, shard: group{9, 9}}},
	}
	for _, tt := range tests {
		p := Plan{TP: tt.tp, CP: tt.cp, DP: tt.dp, PP: tt.pp}
		got := place(p, order, tt.perNode)
		got.etp, got.ep, got.edp = group{}, group{}, group{}
		if got != tt.want {
			t.Errorf("%+v on %d-GPU nodes: %+v, want %+v", p, tt.perNode, got, tt.want)
		}
	}
}

// TestPlaceExperts: the expert groups in Megatron-Core's expert order
// etp-ep-edp. DeepSeek-V3's ep 64 on 8-GPU nodes spans 8 nodes
// (arXiv:2412.19437, sec. 3.2.1: "64-way Expert Parallelism spanning 8
// nodes"); ep 8 stays in one node; etp 2 halves the ep ranks per node.
func TestPlaceExperts(t *testing.T) {
	order, _ := DefaultRankOrder.dims()
	tests := []struct {
		p            Plan
		etp, ep, edp group
	}{
		{Plan{TP: 1, CP: 1, DP: 128, PP: 16, EP: 64, ETP: 1}, group{1, 1}, group{64, 8}, group{2, 1}},
		{Plan{TP: 1, CP: 1, DP: 64, PP: 1, EP: 8, ETP: 1}, group{1, 1}, group{8, 8}, group{8, 1}},
		{Plan{TP: 2, CP: 1, DP: 32, PP: 1, EP: 8, ETP: 2}, group{2, 2}, group{8, 4}, group{4, 1}},
	}
	for _, tt := range tests {
		got := place(tt.p, order, 8)
		if got.etp != tt.etp || got.ep != tt.ep || got.edp != tt.edp {
			t.Errorf("%s: etp %+v ep %+v edp %+v, want %+v %+v %+v", tt.p, got.etp, got.ep, got.edp, tt.etp, tt.ep, tt.edp)
		}
	}
}

func TestRankOrderParse(t *testing.T) {
	for _, ok := range []RankOrder{"", "tp-cp-dp-pp", "TP-DP-CP-PP", " pp-dp-cp-tp "} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []RankOrder{"tp-cp-dp", "tp-cp-dp-pp-ep", "tp-tp-dp-pp", "tp-cp-dp-", "x"} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzRankOrder: an order either fails or names each dimension once.
func FuzzRankOrder(f *testing.F) {
	f.Add("tp-cp-dp-pp")
	f.Add("pp-dp-cp-tp")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := RankOrder(s).dims()
		if err != nil {
			return
		}
		got := slices.Clone(d[:])
		slices.Sort(got)
		if !slices.Equal(got, []parDim{dimTP, dimCP, dimDP, dimPP}) {
			t.Fatalf("%q parsed to %v", s, d)
		}
	})
}
