package costmodel

import (
	"math"
	"strings"
	"testing"
)

// TestAllToAllCost checks NCCL all-to-all against the nccl-tests model
// (doc/PERFORMANCE.md: each rank sends (n-1)/n of its buffer) by hand on
// H100 (NVLink 450 GB/s, 400 Gb/s = 50 GB/s per GPU), default
// efficiencies 0.613 and 0.8:
//
//   - 8 ranks in one node, 1 GB: 7/8 GB over NVLink at 275.85 GB/s =
//     3.172 ms, plus 8.4 + 3.4 µs latency.
//   - 64 ranks over 8 nodes, 1 GB: 56/64 GB leaves through the NIC at
//     40 GB/s = 21.875 ms (the 7/64 GB over NVLink takes less), plus
//     8.4 + 9.6 µs.
func TestAllToAllCost(t *testing.T) {
	m, _ := LookupModel("deepseek-v3")
	e, err := NewEvaluator(m, cluster(t, "h100-sxm", 64), DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	const gb = 1e9
	cases := []struct {
		g                    group
		bytes, network, time float64
	}{
		{group{8, 8}, 0.875 * gb, 0, 8.4e-6 + 3.4e-6 + 0.875*gb/(450e9*0.613)},
		{group{64, 8}, 63.0 / 64 * gb, 56.0 / 64 * gb, 8.4e-6 + 9.6e-6 + 56.0/64*gb/(50e9*0.8)},
	}
	for _, c := range cases {
		got := e.cost(AllToAll, gb, c.g)
		if !within(got.bytes, c.bytes, 1e-12) || math.Abs(got.network-c.network) > 1 || !within(got.time, c.time, 1e-9) {
			t.Errorf("%s: bytes %.4g network %.4g time %.6g; want %.4g %.4g %.6g", describeGroup(c.g),
				got.bytes, got.network, got.time, c.bytes, c.network, c.time)
		}
	}
}

// TestGroupedMatmulIsMatmulPerGroup: one group is matmul; g groups of m
// rows execute g times the FLOPs in one kernel, which takes no longer
// than g separate GEMMs (their tiles share the waves and one launch)
// and no less than the FLOPs at the curve's ceiling.
func TestGroupedMatmulIsMatmulPerGroup(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	e, err := NewEvaluator(m, cluster(t, "h100-sxm", 8), DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	r := e.rates(Plan{Precision: BF16})
	var a, b kernelCost
	r.matmul(&a, 512, 7168, 4096)
	r.groupedMatmul(&b, 1, 512, 7168, 4096)
	if a != b {
		t.Errorf("one group %+v, matmul %+v", b, a)
	}
	var g kernelCost
	r.groupedMatmul(&g, 32, 512, 7168, 4096)
	floor := g.flops / (r.gemm.Ceiling * r.gemm.Peak)
	if !within(g.flops, 32*a.flops, 1e-12) || g.gemm > 32*a.gemm || g.gemm < floor {
		t.Errorf("32 groups: %+v against 32 x %+v (floor %.3g s)", g, a, floor)
	}
}

// TestEPTrafficLines: DeepSeek-V3's layout lists the dispatch and combine
// all-to-alls of its MoE layers with the bytes each GPU sends: per call
// (63/64) x 4,096 tokens x top-8 x 7,168 x 2 B, two calls per MoE layer
// and micro-batch in each of forward, backward and the full recompute.
func TestEPTrafficLines(t *testing.T) {
	m, _ := LookupModel("deepseek-v3")
	r, err := Estimate(m, cluster(t, "h100-sxm", 2048), deepSeekV3Plan(), DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	st := r.Stages[r.Performance.Breakdown.Stage]
	perCall := 63.0 / 64 * 4096 * 8 * 7168 * 2
	calls := 2 * float64(st.MoELayers) * float64(r.MicroBatches)
	found := 0
	for _, l := range r.Traffic {
		if !strings.HasPrefix(l.Name, "ep: ") {
			continue
		}
		found++
		if l.Collective != AllToAll || l.Calls != calls || !within(float64(l.Bytes), calls*perCall, 1e-9) || l.Group != "64 ranks over 8 nodes (8 per node)" {
			t.Errorf("%s: %v x %.0f calls, %v in %s; want all-to-all x %.0f, %.4g B over 64 ranks in 8 nodes",
				l.Name, l.Collective, l.Calls, l.Bytes, l.Group, calls, calls*perCall)
		}
	}
	if found != 3 {
		t.Errorf("%d ep lines, want forward, backward and recompute", found)
	}
	if r.Performance.Breakdown.ExposedEP <= 0 {
		t.Error("no exposed all-to-all time")
	}
	dense, _ := LookupModel("llama3.1-8b")
	d, _ := Estimate(dense, cluster(t, "h100-sxm", 8), Plan{TP: 1, PP: 1, CP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 8, Seq: 4096}, DefaultAssumptions())
	for _, l := range d.Traffic {
		if l.Kind == CommEP {
			t.Errorf("dense model lists %s", l.Name)
		}
	}
}

// TestExpertTensorParallel: etp 2 halves each expert on a GPU, shards
// the expert states over tp*cp*dp/(ep*etp), and adds the etp gathers of
// the dispatched tokens to the traffic.
func TestExpertTensorParallel(t *testing.T) {
	m, _ := LookupModel("qwen3-235b-a22b")
	base := Plan{TP: 2, PP: 8, CP: 1, DP: 16, EP: 8, ETP: 1, ZeRO: 1, SP: true, Recompute: Full, MicroBatch: 1, GlobalBatch: 512, Seq: 4096}
	two := base
	two.ETP = 2
	c := cluster(t, "h100-sxm", 256)
	r1, err1 := Estimate(m, c, base, DefaultAssumptions())
	r2, err2 := Estimate(m, c, two, DefaultAssumptions())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	s1, s2 := r1.Stages[1], r2.Stages[1]
	if !within(s2.ExpertParams, s1.ExpertParams/2, 1e-12) {
		t.Errorf("etp 2 holds %.4g expert params, etp 1 %.4g: want half", s2.ExpertParams, s1.ExpertParams)
	}
	if two.ExpertDP() != 2 || base.ExpertDP() != 4 {
		t.Errorf("expert dp %d and %d, want 32/16 = 2 and 32/8 = 4", two.ExpertDP(), base.ExpertDP())
	}
	var gathers int
	for _, l := range r2.Traffic {
		if strings.HasPrefix(l.Name, "etp: ") {
			gathers++
		}
	}
	if gathers != 2 {
		t.Errorf("%d etp lines, want the all-gather and the reduce-scatter", gathers)
	}
}
