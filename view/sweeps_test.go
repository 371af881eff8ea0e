package view

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func lookup(t *testing.T, model, gpu string) (*costmodel.Model, hardware.GPU) {
	t.Helper()
	m, err := costmodel.LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	g, err := hardware.LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	return m, g
}

// TestZeROChart: ZeRO-0 does not shrink with more GPUs, every higher stage
// holds at most what the lower one holds, and ZeRO-3 keeps shrinking.
func TestZeROChart(t *testing.T) {
	m, g := lookup(t, "llama3-70b", "h100-sxm")
	base := costmodel.Plan{TP: 1, PP: 1, CP: 1, DP: 1, Recompute: costmodel.Full, MicroBatch: 1, GlobalBatch: 1, Seq: 4096}
	gpus := []int{1, 8, 64, 512}
	c, err := ZeROChart(m, g, base, costmodel.DefaultAssumptions(), gpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 4 || len(c.Limits) != 1 {
		t.Fatalf("%d series, %d limits", len(c.Series), len(c.Limits))
	}
	z0 := c.Series[0].Y
	for i := range gpus {
		if math.Abs(float64(z0[i]/z0[0])-1) > 0.01 {
			t.Errorf("ZeRO-0 at %d GPUs: %v, at 1 GPU %v: data parallelism must not add capacity", gpus[i], z0[i], z0[0])
		}
		for z := 1; z < 4; z++ {
			if c.Series[z].Y[i] > c.Series[z-1].Y[i] {
				t.Errorf("%d GPUs: ZeRO-%d %v above ZeRO-%d %v", gpus[i], z, c.Series[z].Y[i], z-1, c.Series[z-1].Y[i])
			}
		}
		if i > 0 && c.Series[3].Y[i] >= c.Series[3].Y[i-1] {
			t.Errorf("ZeRO-3 does not shrink from %d to %d GPUs", gpus[i-1], gpus[i])
		}
	}
	if _, err := ZeROChart(m, g, costmodel.Plan{TP: 8, PP: 1, CP: 1, DP: 1, GlobalBatch: 1, MicroBatch: 1, Seq: 4096}, costmodel.DefaultAssumptions(), []int{4}); err == nil {
		t.Error("4 GPUs under tp=8: no error")
	}
}

// TestKVChart: the KV cache grows linearly with context and users for
// full attention, and stops growing past the window for sliding windows.
func TestKVChart(t *testing.T) {
	a := costmodel.DefaultAssumptions()
	m, g := lookup(t, "llama3.1-8b", "h100-sxm")
	c, _ := hardware.ClusterForGPUs(g, 1, 0)
	base := costmodel.ServePlan{TP: 1, PP: 1, Replicas: 1}
	ch, err := KVChart(m, c, base, a, []int{1024, 2048, 8192}, []int{1, 4})
	if err != nil {
		t.Fatal(err)
	}
	one, four := ch.Series[0].Y, ch.Series[1].Y
	if r := float64(one[1] / one[0]); math.Abs(r-2) > 1e-9 {
		t.Errorf("doubling the context multiplies KV by %g", r)
	}
	if r := float64(four[2] / one[2]); math.Abs(r-4) > 1e-9 {
		t.Errorf("4 users hold %gx the KV of one", r)
	}
	if want := float64(m.KVPerToken(costmodel.DTypeBF16)) * 1024; math.Abs(float64(one[0])-want) > 1e-6*want {
		t.Errorf("1 user x 1024 tokens: %v, want %v", one[0], hardware.Bytes(want))
	}
	if len(ch.Limits) != 1 || ch.Limits[0].Bytes <= 0 || ch.Limits[0].Bytes >= c.GPU.HBM {
		t.Errorf("room for KV: %+v", ch.Limits)
	}
	mis, _ := lookup(t, "mistral-7b", "h100-sxm")
	sw, err := KVChart(mis, c, base, a, []int{4096, 32768}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if y := sw.Series[0].Y; y[0] != y[1] {
		t.Errorf("sliding window 4096: KV %v at 4k, %v at 32k; want equal", y[0], y[1])
	}
}
