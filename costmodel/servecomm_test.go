package costmodel

import (
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestServeAllReduceNCCLPastCustomMax: on 8 B200s an all-reduce up to
// customAllReduceMax costs the custom kernel's latency and ring traffic
// at ServeLinkEfficiency; a larger one costs NCCL's measured all-reduce
// (scaleUpFits), which for a 134 MB prefill message (8,192 tokens of a
// 8,192-wide model) is slower than the custom formula would have it.
// The load model's tensor-parallel link carries NCCL, the isolated
// step's does not, and a GPU generation without measurements keeps the
// custom formula.
func TestServeAllReduceNCCLPastCustomMax(t *testing.T) {
	c := cluster(t, "b200", 8)
	a := DefaultAssumptions()
	l := scaleUpLink(c, a)
	l.nccl, l.hasNCCL = ncclAllReduce(c.GPU)
	if !l.hasNCCL {
		t.Fatal("B200: no measured NCCL all-reduce")
	}
	custom := func(bytes float64) hardware.Seconds {
		return a.ServeAllReduceLatency + hardware.Seconds(2*7.0/8*bytes/(float64(c.GPU.ScaleUp)*a.ServeLinkEfficiency))
	}
	small := float64(customAllReduceMax)
	if got := serveAllReduce(8, small, l); !within(float64(got), float64(custom(small)), 1e-12) {
		t.Errorf("8 MiB: %v, want the custom kernel's %v", got, custom(small))
	}
	big := 8192.0 * 8192 * 2
	want := l.nccl.time(AllReduce, 8, big, float64(c.GPU.ScaleUp))
	if got := serveAllReduce(8, big, l); !within(float64(got), want, 1e-12) || !(want > float64(custom(big))) {
		t.Errorf("134 MB: %v, want NCCL's %v (above the custom formula's %v)", got, want, custom(big))
	}
	m, _ := LookupModel("llama3.1-70b")
	s := ServePlan{TP: 8, PP: 1, Replicas: 1, Context: 2048, Users: 1, Weights: DTypeBF16, KV: DTypeBF16}
	b, err := newBatchModel(m, c, s, Engines["vllm"], a)
	if err != nil {
		t.Fatal(err)
	}
	if !b.tpLink().hasNCCL {
		t.Error("the load model's tensor-parallel link has no NCCL all-reduce")
	}
	iso := speedModel{m: m, c: c, s: s, a: a}
	if iso.tpLink().hasNCCL {
		t.Error("the isolated step's link carries NCCL")
	}
	if _, ok := ncclAllReduce(hardware.GPU{Arch: hardware.ArchUnknown}); ok {
		t.Error("an unmeasured generation has an NCCL fit")
	}
}
