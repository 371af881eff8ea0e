package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// evalPlan builds an evaluator for model on gpus of gpu (gpusPerNode 0:
// the GPU's domain) and normalizes p.
func evalPlan(t testing.TB, model, gpu string, gpusPerNode int, a Assumptions, p Plan) (*Evaluator, Plan) {
	t.Helper()
	m, err := LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	g, err := hardware.LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	c, err := hardware.ClusterForGPUs(g, p.GPUs(), gpusPerNode)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(m, c, a)
	if err != nil {
		t.Fatal(err)
	}
	p, err = p.Normalize(m, c.GPUs())
	if err != nil {
		t.Fatal(err)
	}
	return e, p
}

func basePlan(tp, pp, dp int) Plan {
	return Plan{TP: tp, PP: pp, CP: 1, DP: dp, MicroBatch: 1, GlobalBatch: dp * max(pp, 1), Seq: 8192}
}

// linesNamed sums the traffic lines whose name starts with prefix.
func linesNamed(r *Report, prefix string) (bytes hardware.Bytes, tiers map[hardware.Tier]bool) {
	tiers = map[hardware.Tier]bool{}
	for _, l := range r.Traffic {
		if strings.HasPrefix(l.Name, prefix) {
			bytes += l.Bytes
			tiers[l.Tier] = true
		}
	}
	return bytes, tiers
}

// TestZeRO3Traffic: ZeRO-3 moves three times the weight bytes per GPU and
// step (all-gather forward, all-gather backward, reduce-scatter), 1.5x
// DDP's all-reduce (Rajbhandari et al. 2020, sec. 7.2.2). For Llama 3
// 70B in bf16 that is 3 x 141.1 GB = 423 GB as the group grows;
// (n-1)/n = 63/64 of it on 64 GPUs.
func TestZeRO3Traffic(t *testing.T) {
	p := basePlan(1, 1, 64)
	p.ZeRO, p.Recompute = 3, Full
	e, p := evalPlan(t, "llama3-70b", "h100", 0, DefaultAssumptions(), p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	z3, tiers := linesNamed(r, "zero-3")
	weights := 2 * e.m.Params().Total
	if want := 3 * weights * 63 / 64; math.Abs(float64(z3)/want-1) > 1e-9 {
		t.Errorf("ZeRO-3 traffic %v, want 3 x weights x 63/64 = %v", z3, hardware.Bytes(want))
	}
	if math.Abs(float64(z3)*64/63/423e9-1) > 0.005 {
		t.Errorf("ZeRO-3 traffic %v x 64/63 should be about 423 GB", z3)
	}
	if !tiers[hardware.ScaleOut] || len(tiers) != 1 {
		t.Errorf("64-GPU ZeRO-3 groups span 8 nodes: tiers %v, want network", tiers)
	}
	p.ZeRO = 0
	r0, _ := e.Estimate(p)
	ddp, _ := linesNamed(r0, "dp: gradient all-reduce")
	if ratio := float64(z3 / ddp); math.Abs(ratio-1.5) > 1e-9 {
		t.Errorf("ZeRO-3 / DDP traffic = %.4f, want 1.5", ratio)
	}
}

// TestDPCallsPayLatency: ZeRO-3 gathers and reduces layer by layer, so
// Llama 3 70B on 64 GPUs (80 layers) makes 80 calls of each, every one
// paying a 64-rank ring's latency over 8 nodes: 8.4 µs + 56 NVLink steps
// of 3.4 µs + 7 network steps of 9.6 µs = 266 µs, on top of the bytes at
// the 8 NICs' bandwidth, 320 GB/s (NVLink's measured bus bandwidth for
// a 64-rank all-gather or reduce-scatter, 336-338 GB/s, is higher). Below ZeRO-3 the buckets hold
// max(40 M, 1 M x dp) parameters: Llama 3 405B's stage of 8 layers on
// tp 8 (3.19 B parameters per GPU) reduces in 25 buckets of 128 M over dp
// 128; in one without overlap.
func TestDPCallsPayLatency(t *testing.T) {
	p := basePlan(1, 1, 64)
	p.ZeRO, p.Recompute = 3, Full
	a := DefaultAssumptions()
	e, p := evalPlan(t, "llama3-70b", "h100", 0, a, p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	g := e.c.GPU
	bw := 8 * float64(g.ScaleOut) * a.ScaleOutEfficiency
	if up := min(e.scaleUpBusBandwidth(AllGather, 64), e.scaleUpBusBandwidth(ReduceScatter, 64)); up < bw {
		t.Fatalf("NVLink bus bandwidth %g below the NICs' %g", up, bw)
	}
	lat := 8.4e-6 + 56*3.4e-6 + 7*9.6e-6
	n := 0
	for _, l := range r.Traffic {
		if !strings.HasPrefix(l.Name, "zero-3") {
			continue
		}
		n++
		if want := 80*lat + float64(l.Bytes)/bw; l.Calls != 80 || math.Abs(float64(l.Time)/want-1) > 1e-9 {
			t.Errorf("%s: %g calls in %v, want 80 in %v", l.Name, l.Calls, l.Time, hardware.Seconds(want))
		}
	}
	if n != 3 {
		t.Fatalf("%d ZeRO-3 lines", n)
	}
	q := basePlan(8, 16, 128)
	q.ZeRO, q.SP, q.GlobalBatch = 1, true, 2048
	e, q = evalPlan(t, "llama3-405b", "h100", 0, a, q)
	r, err = e.Estimate(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r.Traffic {
		if l.Name == nameDPRS && l.Calls != 25 {
			t.Errorf("%s: %g calls, want 25 buckets", l.Name, l.Calls)
		}
	}
	// Without overlap Megatron-Core keeps the gradients in one bucket.
	a.OverlapGradReduce = false
	e, q = evalPlan(t, "llama3-405b", "h100", 0, a, q)
	if r, err = e.Estimate(q); err != nil {
		t.Fatal(err)
	}
	for _, l := range r.Traffic {
		if l.Name == nameDPRS && l.Calls != 1 {
			t.Errorf("%s without overlap: %g calls, want 1", l.Name, l.Calls)
		}
	}
}

// TestTierFromRankOrder: with Megatron's order tp is innermost, so tp=8
// fills a node (NVLink) and the data-parallel group has one GPU per node
// (network); putting dp innermost swaps them.
func TestTierFromRankOrder(t *testing.T) {
	p := basePlan(8, 1, 4)
	p.SP = true
	a := DefaultAssumptions()
	e, p := evalPlan(t, "llama3-70b", "h100", 0, a, p)
	r, _ := e.Estimate(p)
	if _, tiers := linesNamed(r, "tp:"); !tiers[hardware.ScaleUp] || tiers[hardware.ScaleOut] {
		t.Errorf("tp=8 with tp innermost: tiers %v, want nvlink only", tiers)
	}
	if _, tiers := linesNamed(r, "dp:"); !tiers[hardware.ScaleOut] {
		t.Errorf("dp across 4 nodes: tiers %v, want network", tiers)
	}
	a.RankOrder = "dp-tp-cp-pp"
	e2, _ := evalPlan(t, "llama3-70b", "h100", 0, a, p)
	r2, _ := e2.Estimate(p)
	if _, tiers := linesNamed(r2, "tp:"); !tiers[hardware.ScaleOut] {
		t.Errorf("tp outside dp=4: tiers %v, want network", tiers)
	}
	if r2.Performance.StepTime <= r.Performance.StepTime {
		t.Errorf("tp over the network (%v) should be slower than over NVLink (%v)", r2.Performance.StepTime, r.Performance.StepTime)
	}
}

// TestNVL72: a GB200 NVL72 rack keeps a 16-way tensor-parallel group on
// NVLink; the same GPUs in 8-GPU domains send it over the network, and
// the step is slower.
func TestNVL72(t *testing.T) {
	p := basePlan(16, 1, 9)
	p.SP = true
	a := DefaultAssumptions()
	rack, p := evalPlan(t, "llama3-405b", "gb200", 0, a, p)
	hgx, _ := evalPlan(t, "llama3-405b", "gb200", 8, a, p)
	r72, _ := rack.Estimate(p)
	r8, _ := hgx.Estimate(p)
	if _, tiers := linesNamed(r72, "tp:"); !tiers[hardware.ScaleUp] || tiers[hardware.ScaleOut] {
		t.Errorf("NVL72 tp=16: tiers %v, want nvlink only", tiers)
	}
	if _, tiers := linesNamed(r8, "tp:"); !tiers[hardware.ScaleOut] {
		t.Errorf("8-GPU domains, tp=16: tiers %v, want network", tiers)
	}
	if !(r72.Performance.StepTime < r8.Performance.StepTime*0.9) {
		t.Errorf("NVL72 step %v should be well below the 8-GPU-domain step %v", r72.Performance.StepTime, r8.Performance.StepTime)
	}
	if r72.Performance.ExposedTier != hardware.ScaleOut && r72.Performance.ExposedNetworkBytes != 0 {
		t.Errorf("exposed tier %v with %v network bytes", r72.Performance.ExposedTier, r72.Performance.ExposedNetworkBytes)
	}
}

// TestBubble: the 1F1B bubble is (pp-1)/m of the busy time, and the
// interleaved schedule divides it by the virtual stages (Narayanan et al.
// 2021, sec. 2.2).
func TestBubble(t *testing.T) {
	p := basePlan(8, 4, 1)
	p.GlobalBatch, p.SP = 8, true
	e, p := evalPlan(t, "megatron-175b", "a100", 0, DefaultAssumptions(), p)
	b := e.Performance(p).Breakdown
	busy := float64(b.Compute + b.Recompute + b.ExposedTP + b.ExposedPP)
	// The first and last stages carry the embedding and the output
	// layer, so the bound is approximate.
	if got := float64(b.Bubble) / busy; math.Abs(got/(3.0/8)-1) > 0.05 {
		t.Errorf("bubble/busy = %.3f, want about 3/8", got)
	}
	p.VPP = 2
	bi := e.Performance(p).Breakdown
	if got := float64(bi.Bubble / b.Bubble); math.Abs(got-0.5) > 0.05 {
		t.Errorf("interleaved v=2 bubble ratio %.3f, want 0.5", got)
	}
}

// TestBubbleShortOfMicroBatches: with fewer micro-batches than stages the
// interleaved schedule idles (pp-m) chunk times in each of its v-1 later
// rounds, so its bubble is ((pp-1) + (v-1)(pp-m))/v micro-batch times: for
// pp 4, v 2 and m 2 that is (3 + 2)/2 = 2.5, not (pp-1)/v = 1.5; a single
// micro-batch runs its chunks one after another, and interleaving leaves
// its bubble as it was.
func TestBubbleShortOfMicroBatches(t *testing.T) {
	a := DefaultAssumptions()
	a.OverlapP2P = true // the chunks' extra sends aside
	p := basePlan(8, 4, 1)
	p.GlobalBatch, p.SP, p.VPP = 2, true, 2
	e, p := evalPlan(t, "megatron-175b", "a100", 0, a, p)
	b := e.Performance(p).Breakdown
	perMB := float64(b.Compute+b.Recompute+b.ExposedTP) / 2
	if got := float64(b.Bubble) / perMB; math.Abs(got/2.5-1) > 0.05 {
		t.Errorf("m 2, pp 4, v 2: bubble %.3f micro-batch times, want about 2.5", got)
	}
	p.GlobalBatch = 1
	one := e.Performance(p).Breakdown
	p.VPP = 1
	flat := e.Performance(p).Breakdown
	if math.Abs(float64(one.Bubble/flat.Bubble)-1) > 1e-12 {
		t.Errorf("one micro-batch: interleaved bubble %v, not interleaved %v", one.Bubble, flat.Bubble)
	}
}

// TestOverlapOptions: overlapping can only shorten the step, and the
// exposed part of a collective is never more than its time.
func TestOverlapOptions(t *testing.T) {
	p := basePlan(8, 2, 8)
	p.SP, p.ZeRO, p.GlobalBatch = true, 1, 64
	a := DefaultAssumptions()
	a.OverlapGradReduce, a.OverlapParamGather = false, false
	e, p := evalPlan(t, "llama3-70b", "h100", 0, a, p)
	slow := e.Performance(p)
	a.OverlapGradReduce, a.OverlapParamGather, a.TPCommOverlap, a.OverlapP2P = true, true, true, true
	e2, _ := evalPlan(t, "llama3-70b", "h100", 0, a, p)
	fast := e2.Performance(p)
	if !(fast.StepTime < slow.StepTime) || !(fast.ExposedComm < slow.ExposedComm) {
		t.Errorf("overlap: step %v -> %v, exposed %v -> %v", slow.StepTime, fast.StepTime, slow.ExposedComm, fast.ExposedComm)
	}
	r, _ := e.Estimate(p)
	for _, l := range r.Traffic {
		if l.Exposed > l.Time*(1+1e-12) || l.Exposed < 0 {
			t.Errorf("%s: exposed %v of %v", l.Name, l.Exposed, l.Time)
		}
	}
}

// TestCollectiveCost: an all-reduce of S bytes over one 8-GPU NVLink node
// costs Hopper's measured all-reduce (scaleUpFits: latency 25.0 µs,
// share 0.890, chunk 0.550): 25 µs + 2 x 7/8 x S / (NVLink x 0.890 x
// 1.75/(1.75 + 0.550/8)); across 8 nodes with all 8 GPUs of each node
// the network share runs at 8 NICs.
func TestCollectiveCost(t *testing.T) {
	p := basePlan(1, 1, 64)
	e, _ := evalPlan(t, "llama3-8b", "h100", 0, DefaultAssumptions(), p)
	a, g := e.a, e.c.GPU
	const s = 1e9
	c := e.cost(AllReduce, s, group{size: 8, local: 8})
	bw := float64(g.ScaleUp) * 0.890 * 1.75 / (1.75 + 0.550/8)
	want := 25.0e-6 + 2*7.0/8*s/bw
	if math.Abs(c.time/want-1) > 1e-9 || c.bytes != 2*7.0/8*s || c.network != 0 {
		t.Errorf("8-GPU all-reduce %+v, want time %g", c, want)
	}
	wide := e.cost(AllGather, s, group{size: 64, local: 8})
	narrow := e.cost(AllGather, s, group{size: 8, local: 1})
	netBW := float64(g.ScaleOut) * a.ScaleOutEfficiency
	if want := 7.0 / 8 * s / netBW; math.Abs(narrow.time/want-1) > 0.01 {
		t.Errorf("one GPU per node: %g s, want about %g s at the NIC bandwidth", narrow.time, want)
	}
	if wide.time > narrow.time/4 {
		t.Errorf("8 GPUs per node (%g s) should be several times faster than 1 (%g s)", wide.time, narrow.time)
	}
}

// TestMFU: MFU counts 3x the forward FLOPs; HFU adds the recompute.
func TestMFU(t *testing.T) {
	p := basePlan(8, 1, 8)
	p.Recompute = Full
	e, p := evalPlan(t, "llama3-70b", "h100", 0, DefaultAssumptions(), p)
	perf := e.Performance(p)
	fwd := float64(e.m.ForwardFLOPsPerToken(p.Seq))
	logits := 2 * float64(e.m.Vocab*e.m.Hidden)
	if got := perf.HFU / perf.MFU; math.Abs(got-(4*fwd-logits)/(3*fwd)) > 1e-9 {
		t.Errorf("HFU/MFU = %.4f with full recompute", got)
	}
	tokens := float64(p.GlobalBatch * p.Seq)
	if math.Abs(perf.TokensPerSecond-tokens/float64(perf.StepTime)) > 1e-6 || perf.MFU <= 0.2 || perf.MFU >= 0.8 {
		t.Errorf("%+v", perf)
	}
	b := perf.Breakdown
	if sum := b.Compute + b.Recompute + b.Bubble + b.exposed() + b.Optimizer; math.Abs(float64(sum-perf.StepTime)) > 1e-12 {
		t.Errorf("breakdown sums to %v, step %v", sum, perf.StepTime)
	}
}

func TestPerformanceDoesNotAllocate(t *testing.T) {
	p := basePlan(8, 4, 16)
	p.SP, p.ZeRO, p.VPP, p.Recompute, p.GlobalBatch, p.CP = true, 1, 2, Selective, 256, 2
	p.DP = 8
	e, p := evalPlan(t, "llama3-70b", "h100", 0, DefaultAssumptions(), p)
	if n := testing.AllocsPerRun(100, func() { e.Performance(p) }); n != 0 {
		t.Errorf("Performance allocates %v times per call", n)
	}
}

// BenchmarkPerformance is the search's hot call: a 4-stage interleaved
// plan with tp, cp, sp and ZeRO-1 on 256 GPUs.
func BenchmarkPerformance(b *testing.B) {
	p := basePlan(8, 4, 4)
	p.SP, p.ZeRO, p.VPP, p.Recompute, p.GlobalBatch, p.CP = true, 1, 2, Selective, 256, 2
	e, p := evalPlan(b, "llama3-70b", "h100", 0, DefaultAssumptions(), p)
	b.ReportAllocs()
	for b.Loop() {
		e.Performance(p)
	}
}

// TestStepTimeLowerBound: the bound never exceeds the step, over dense and
// MoE models, every schedule, interleaving, uneven splits, recompute
// policies, ZeRO stages and pipelines short of micro-batches; and it is
// not idle: over these plans, many of them pipelines starved of
// micro-batches on 64 GPUs of 2 data-parallel ranks, it holds 56% of the
// step on average (it leaves out the pipeline and data-parallel
// collectives, imbalance, the optimizer and a short pipeline's rounds);
// the test fails below 45%.
func TestStepTimeLowerBound(t *testing.T) {
	c := cluster(t, "h100-sxm", 64)
	n, sum, least := 0, 0.0, 1.0
	for _, name := range []string{"llama3-405b", "deepseek-v3", "mixtral-8x7b", "gpt3-175b"} {
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
			step, bound := e.Performance(q).StepTime, StepTimeLowerBound(q, e.MicroBatchWork(q))
			if bound > step || bound <= 0 {
				t.Fatalf("%s %s: bound %v, step %v", name, q, bound, step)
			}
			r := float64(bound / step)
			n, sum, least = n+1, sum+r, min(least, r)
		}
	}
	if n < 3000 || sum/float64(n) < 0.45 {
		t.Errorf("%d plans; bound/step %.2f on average, least %.2f", n, sum/float64(n), least)
	}
	t.Logf("%d plans: bound/step %.2f on average, least %.2f", n, sum/float64(n), least)
}
