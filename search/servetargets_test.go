package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func loadQuery(t *testing.T) LoadQuery {
	t.Helper()
	m, err := costmodel.LookupModel("llama3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := hardware.LookupGPU("h100-sxm")
	e, _ := costmodel.LookupEngine("vllm")
	return LoadQuery{Model: m, GPU: g, Weights: costmodel.DTypeBF16, KV: costmodel.DTypeBF16, Engine: e,
		Load: costmodel.ServeLoad{InputTokens: 8192, OutputTokens: 1024, Rate: 10},
		TTFT: 2, TPOT: 0.04, Assumptions: costmodel.ServeAssumptions(costmodel.DefaultAssumptions(), g)}
}

// TestServeLoadFewestReplicas: every answer meets both targets, one
// replica fewer does not, and the answers are ranked by GPU-seconds per
// token with the fewest GPUs reported.
func TestServeLoadFewestReplicas(t *testing.T) {
	q := loadQuery(t)
	r, err := ServeLoad(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layouts) < 2 || r.GPUs == 0 {
		t.Fatalf("%d layouts, %d GPUs; missed %+v", len(r.Layouts), r.GPUs, r.Missed)
	}
	nq, _ := q.normalize()
	for i, l := range r.Layouts {
		v := l.Latency
		if v.TTFT > q.TTFT || v.TPOT > q.TPOT || v.Overloaded {
			t.Errorf("%s misses: TTFT %v TPOT %v overloaded %v", l.Layout, v.TTFT, v.TPOT, v.Overloaded)
		}
		if l.Replicas > 1 {
			fewer, err := nq.replica(shape{tp: l.TP, pp: l.PP, dp: l.DP, ep: l.EP}, l.Replicas-1)
			if err != nil {
				t.Fatal(err)
			}
			if nq.meets(fewer) {
				t.Errorf("%s: %d replicas also meet the targets", l.Layout, l.Replicas-1)
			}
		}
		if i > 0 && r.Layouts[i-1].Latency.GPUSecondsPerToken > v.GPUSecondsPerToken {
			t.Errorf("rank %d cheaper than rank %d", i+1, i)
		}
		if l.GPUs < r.GPUs {
			t.Errorf("%s on %d GPUs, fewer than the reported fewest %d", l.Layout, l.GPUs, r.GPUs)
		}
	}
}

// TestServeLoadPinned: --tp and --pp pin the one shape searched, and a
// target no replica count reaches is a miss with its reason.
func TestServeLoadPinned(t *testing.T) {
	q := loadQuery(t)
	q.TP, q.PP = 4, 1
	r, err := ServeLoad(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layouts) != 1 || r.Layouts[0].TP != 4 || r.Layouts[0].PP != 1 {
		t.Fatalf("pinned tp4-pp1: %+v", r.Layouts)
	}
	q.TPOT = 0.001
	r, err = ServeLoad(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layouts) != 0 || len(r.Missed) != 1 || r.Missed[0].Reason == "" {
		t.Errorf("a 1 ms TPOT: layouts %+v, missed %+v", r.Layouts, r.Missed)
	}
}

// TestDomainTPs: on a 72-GPU GB200 NVL72 domain tensor parallelism
// reaches 64 for DeepSeek-V3's 128 heads, though 64 does not divide 72.
func TestDomainTPs(t *testing.T) {
	m, _ := costmodel.LookupModel("deepseek-v3")
	got := domainTPs(m, 72)
	if got[len(got)-1] != 64 || len(got) != 7 {
		t.Errorf("tp choices on 72 GPUs: %v, want 1, 2, 4, ..., 64", got)
	}
}

// TestServeLoadExpertShapes: for an MoE model with nothing pinned the
// search also tries tp 1 with attention dp = ep = 2, 4, 8 inside the
// node, and on 8 H200s DeepSeek-V3 in fp8 at 256 requests in flight the
// dp8-ep8 layout costs fewer GPU-seconds per token than tp 8 (attention
// reads its weights once per rank but no rank all-reduces); a dense model
// gets no such shapes, and a pinned dp or ep is taken as given.
func TestServeLoadExpertShapes(t *testing.T) {
	m, err := costmodel.LookupModel("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := hardware.LookupGPU("h200")
	e, _ := costmodel.LookupEngine("trtllm")
	q := LoadQuery{Model: m, GPU: g, Weights: costmodel.DTypeFP8, KV: costmodel.DTypeBF16, Engine: e,
		Load: costmodel.ServeLoad{InputTokens: 1024, OutputTokens: 1024, Concurrency: 256}, Assumptions: costmodel.ServeAssumptions(costmodel.DefaultAssumptions(), g)}
	r, err := ServeLoad(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layouts) == 0 || r.Layouts[0].Layout != "tp1-pp1-dp8-ep8 x 1 replica" || r.Layouts[0].GPUs != 8 {
		t.Fatalf("layouts %+v, want tp1-pp1-dp8-ep8 on 8 GPUs first", r.Layouts)
	}
	if n, _ := q.normalize(); len(n.expertShapes()) != 3 {
		t.Errorf("expert shapes %+v, want dp = ep = 2, 4, 8", n.expertShapes())
	}
	dense := loadQuery(t)
	if got := dense.expertShapes(); got != nil {
		t.Errorf("dense model: expert shapes %+v, want none", got)
	}
	q.DP, q.EP = 4, 4
	q.TP, q.PP = 2, 1
	n, _ := q.normalize()
	if sh := n.shapes(); len(sh) != 1 || sh[0] != (shape{tp: 2, pp: 1, dp: 4, ep: 4}) {
		t.Errorf("pinned tp 2, pp 1, dp 4, ep 4: shapes %+v", sh)
	}
}
