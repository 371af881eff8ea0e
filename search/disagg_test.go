package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// TestServeDisaggregatedFewest: every deployment meets both targets, one
// decode worker fewer misses TPOT (or runs out of slots), one prefill
// worker fewer misses TTFT (or overloads), the ranking is by GPUs, and
// the saving is the aggregated search's fewest GPUs less ours.
func TestServeDisaggregatedFewest(t *testing.T) {
	q := DisaggQuery{LoadQuery: loadQuery(t)}
	r, err := ServeDisaggregated(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Deployments) < 2 || r.Aggregated == nil || r.Aggregated.GPUs == 0 || r.Saved != r.Aggregated.GPUs-r.GPUs {
		t.Fatalf("%d deployments, %d GPUs, saved %d; missed %+v", len(r.Deployments), r.GPUs, r.Saved, r.Missed)
	}
	nq, _ := q.normalize()
	q.LoadQuery = nq
	for i, d := range r.Deployments {
		v := d.Latency
		if v.TTFT > q.TTFT || v.TPOT > q.TPOT || v.Overloaded {
			t.Errorf("%s + %s misses: TTFT %v TPOT %v overloaded %v", d.Prefill, d.Decode, v.TTFT, v.TPOT, v.Overloaded)
		}
		ps, ds := toShape(d.Plan.Prefill), toShape(d.Plan.Decode)
		if d.DecodeWorkers > 1 {
			l, err := q.disagg(ps, d.PrefillWorkers, ds, d.DecodeWorkers-1)
			if err != nil {
				t.Fatal(err)
			}
			if q.meetsDecode(l) {
				t.Errorf("%s + %s: %d decode workers also meet TPOT", d.Prefill, d.Decode, d.DecodeWorkers-1)
			}
		}
		if d.PrefillWorkers > 1 {
			l, err := q.disagg(ps, d.PrefillWorkers-1, ds, d.DecodeWorkers)
			if err != nil {
				t.Fatal(err)
			}
			if q.meetsPrefill(l) {
				t.Errorf("%s + %s: %d prefill workers also meet TTFT", d.Prefill, d.Decode, d.PrefillWorkers-1)
			}
		}
		if i > 0 && r.Deployments[i-1].GPUs > d.GPUs {
			t.Errorf("rank %d on fewer GPUs than rank %d", i+1, i)
		}
		if d.GPUs != d.Plan.GPUs() || d.GPUs != v.GPUs {
			t.Errorf("%s + %s: GPUs %d, plan %d, latency %d", d.Prefill, d.Decode, d.GPUs, d.Plan.GPUs(), v.GPUs)
		}
	}
}

func toShape(s costmodel.ServePlan) shape { return shape{tp: s.TP, pp: s.PP, dp: s.DP, ep: s.EP} }

// TestServeDisaggregatedPins: each pool's pin holds, --tp pins both, and
// a bad pin is an error naming it.
func TestServeDisaggregatedPins(t *testing.T) {
	q := DisaggQuery{LoadQuery: loadQuery(t), PrefillTP: 4, DecodeTP: 8}
	r, err := ServeDisaggregated(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Deployments {
		if d.Plan.Prefill.TP != 4 || d.Plan.Decode.TP != 8 {
			t.Errorf("pinned tp4 / tp8, got %s + %s", d.Prefill, d.Decode)
		}
	}
	q = DisaggQuery{LoadQuery: loadQuery(t)}
	q.TP, q.PP = 8, 1
	if r, err = ServeDisaggregated(q); err != nil || len(r.Deployments) != 1 || r.Deployments[0].Plan.Prefill.TP != 8 || r.Deployments[0].Plan.Decode.TP != 8 {
		t.Errorf("--tp 8 pins both pools: %v %+v", err, r)
	}
	q = DisaggQuery{LoadQuery: loadQuery(t), DecodeTP: 3}
	if _, err := ServeDisaggregated(q); err == nil {
		t.Error("decode tp 3 of 64 heads: no error")
	}
	q = DisaggQuery{LoadQuery: loadQuery(t), PrefillPP: -1}
	if _, err := ServeDisaggregated(q); err == nil {
		t.Error("prefill pp -1: no error")
	}
}

// TestServeDisaggregatedNVL72: on GB200 the example's pools fit one NVL72
// rack and the KV cache moves over NVLink.
func TestServeDisaggregatedNVL72(t *testing.T) {
	q := DisaggQuery{LoadQuery: loadQuery(t)}
	q.GPU, _ = hardware.LookupGPU("gb200")
	q.Assumptions = costmodel.ServeAssumptions(costmodel.DefaultAssumptions(), q.GPU)
	r, err := ServeDisaggregated(q)
	if err != nil || r.Best() == nil {
		t.Fatalf("%v %+v", err, r)
	}
	if b := r.Best(); b.Latency.Transfer.ScaleUp != (b.GPUs <= 72) || b.GPUs > 72 {
		t.Errorf("%d GPUs: KV over NVLink %v", b.GPUs, b.Latency.Transfer.ScaleUp)
	}
}

// TestServeDisaggregatedConcurrency: a closed loop settles both pools,
// within 0.1% of its concurrency: the prefill worker's batch is a whole
// number of prompts, so the concurrency jumps where it changes and the
// bisection stops at the rate below the jump.
func TestServeDisaggregatedConcurrency(t *testing.T) {
	q := DisaggQuery{LoadQuery: loadQuery(t)}
	q.Load = costmodel.ServeLoad{InputTokens: 1024, OutputTokens: 512, Concurrency: 2000}
	r, err := ServeDisaggregated(q)
	if err != nil || r.Best() == nil {
		t.Fatalf("%v %+v", err, r)
	}
	v := r.Best().Latency
	if v.TTFT > q.TTFT || v.TPOT > q.TPOT || v.SlotWait > 0 || v.Concurrency < 1998 || v.Concurrency > 2000.01 {
		t.Errorf("TTFT %v, TPOT %v, slot wait %v, concurrency %g", v.TTFT, v.TPOT, v.SlotWait, v.Concurrency)
	}
}

// BenchmarkServeDisaggregated is the README's disaggregated example: one
// op is the whole search, the aggregated search beside it included.
func BenchmarkServeDisaggregated(b *testing.B) {
	m, _ := costmodel.LookupModel("llama3.1-70b")
	g, _ := hardware.LookupGPU("h100-sxm")
	e, _ := costmodel.LookupEngine("vllm")
	q := DisaggQuery{LoadQuery: LoadQuery{Model: m, GPU: g, Weights: costmodel.DTypeBF16, KV: costmodel.DTypeBF16, Engine: e,
		Load: costmodel.ServeLoad{InputTokens: 8192, OutputTokens: 1024, Rate: 10},
		TTFT: 2, TPOT: 0.04, Assumptions: costmodel.ServeAssumptions(costmodel.DefaultAssumptions(), g)}}
	for b.Loop() {
		if _, err := ServeDisaggregated(q); err != nil {
			b.Fatal(err)
		}
	}
}
