package costmodel

import (
	"math"
	"strings"
	"testing"
)

// TestAllToAllCost checks NCCL all-to-all against the nccl-tests model
// (doc/PERFORMANCE.md: each rank sends (n-1)/n of its buffer) by hand on
// H100 (NVLink 450 GB/s, 400 Gb/s = 50 GB/s per GPU), default
// assumptions (Hopper's measured all-to-all: latency 15.3 µs, share
// 0.692, chunk 0.116; network 0.8):
//
//   - 8 ranks in one node, 1 GB: 7/8 GB over NVLink at 450 x 0.692 x
//     0.875/(0.875 + 0.116/8) = 306.3 GB/s = 2.857 ms, plus 15.3 µs.
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
		{group{8, 8}, 0.875 * gb, 0, 15.3e-6 + 0.875*gb/(450e9*0.692*0.875/(0.875+0.116/8))},
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

// TestGroupedMatmulIsMatmulPerGroup: one group is matmul at
// groupedGEMMShare of its speed; g groups of m rows execute g times the
// FLOPs in one kernel, which takes no longer than g separate grouped
// GEMMs of one group (their tiles share the waves and one launch) and no
// less than the FLOPs at the curve's ceiling.
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
	if a.flops != b.flops || !within(b.gemm*groupedGEMMShare, a.gemm, 1e-12) {
		t.Errorf("one group %+v, matmul %+v at %g of its speed", b, a, groupedGEMMShare)
	}
	var g kernelCost
	r.groupedMatmul(&g, 32, 512, 7168, 4096)
	floor := g.flops / (r.gemm.Ceiling * r.gemm.Peak)
	if !within(g.flops, 32*a.flops, 1e-12) || g.gemm > 32*b.gemm || g.gemm < floor {
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

// TestRemoteNodeShare: a token of DeepSeek-V3 (top-8 of 256 experts)
// over 4 nodes of 64 experts reaches a node with probability
// 1 - C(192, 8)/C(256, 8) = 0.9036, so a deduplicating dispatcher sends
// 4 x 0.9036 / 8 = 0.4518 of the copies an all-to-all sends over the
// network; Qwen3-30B-A3B (top-8 of 128) over 2 nodes 0.2492 (by hand
// with Python's math.comb). One node, or top-1, deduplicates nothing.
func TestRemoteNodeShare(t *testing.T) {
	for _, c := range []struct {
		experts, k, nodes int
		want              float64
	}{{256, 8, 4, 0.45178}, {128, 8, 2, 0.24923}, {256, 8, 32, 0.90835}, {256, 8, 1, 1}, {128, 1, 4, 1}} {
		if got := remoteNodeShare(c.experts, c.k, c.nodes); !within(got, c.want, 1e-4) {
			t.Errorf("remoteNodeShare(%d, %d, %d) = %.5f, want %.5f", c.experts, c.k, c.nodes, got, c.want)
		}
	}
}

// TestEPNodeDedup: with EPNodeDedup DeepSeek-V3's all-to-alls over 8
// nodes send the same bytes, remoteNodeShare(256, 8, 8) of their network
// bytes, and take less time; inside one node nothing changes.
func TestEPNodeDedup(t *testing.T) {
	m, _ := LookupModel("deepseek-v3")
	c := cluster(t, "h100-sxm", 2048)
	dedup := DefaultAssumptions()
	dedup.EPNodeDedup = true
	r0, err0 := Estimate(m, c, deepSeekV3Plan(), DefaultAssumptions())
	r1, err1 := Estimate(m, c, deepSeekV3Plan(), dedup)
	if err0 != nil || err1 != nil {
		t.Fatal(err0, err1)
	}
	share := remoteNodeShare(256, 8, 8)
	lines := func(r *Report) map[string]TrafficLine {
		out := map[string]TrafficLine{}
		for _, l := range r.Traffic {
			if strings.HasPrefix(l.Name, "ep: ") {
				out[l.Name] = l
			}
		}
		return out
	}
	l0, l1 := lines(r0), lines(r1)
	if len(l0) == 0 || len(l0) != len(l1) {
		t.Fatalf("%d and %d ep lines", len(l0), len(l1))
	}
	for name, a := range l0 {
		b := l1[name]
		if b.Bytes != a.Bytes || !within(float64(b.NetworkBytes), share*float64(a.NetworkBytes), 1e-6) || b.Time >= a.Time {
			t.Errorf("%s: dedup %v (%v network) in %v, all-to-all %v (%v network) in %v; want the network bytes x %.3f",
				name, b.Bytes, b.NetworkBytes, b.Time, a.Bytes, a.NetworkBytes, a.Time, share)
		}
	}
	if r1.Performance.StepTime >= r0.Performance.StepTime {
		t.Errorf("step %v with dedup, %v without", r1.Performance.StepTime, r0.Performance.StepTime)
	}
}
