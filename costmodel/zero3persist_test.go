package costmodel

import (
	"math"
	"testing"
)

// TestPersistentTensors: a GPT-175B layer (h 12288, LayerNorm, biases)
// keeps its two norms' weights and biases and its four linear biases
// (36,864 for the fused query-key-value, 49,152 for the MLP input)
// whole, all under 1e5 elements; with 1,536 ranks each 12,288-element
// tensor is padded to 8 elements a rank and all 1,536 slices start
// inside it, while with 2,240 ranks a 20,480-element one (10 a rank)
// has 2,048.
func TestPersistentTensors(t *testing.T) {
	m, err := LookupModel("gpt3-175b")
	if err != nil {
		t.Fatal(err)
	}
	got := m.persistentTensors(1)
	want := []float64{12288, 12288, 12288, 12288, 36864, 12288, 49152, 12288}
	if len(got) != len(want) {
		t.Fatalf("persistent tensors %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tensor %d: %v elements, want %v", i, got[i], want[i])
		}
	}
	if r := persistRanks(12288, 1536); r != 1536 {
		t.Errorf("12288 elements over 1536 ranks: %v slices, want 1536", r)
	}
	if r := persistRanks(20480, 2240); r != 2048 {
		t.Errorf("20480 elements over 2240 ranks: %v slices, want 2048", r)
	}
}

// TestZeRO3PersistTime: GPT-175B on 1,536 GPUs rebuilds 96 x 8 tensors
// over 1,536 ranks after the step, 4 host operations each: 15.6 s at
// 3.3 µs an operation, exposed once a step.
func TestZeRO3PersistTime(t *testing.T) {
	a := DefaultAssumptions()
	a.ZeRO3PerMatrix = true
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1536, MicroBatch: 1, GlobalBatch: 1536, Seq: 2048, ZeRO: 3, Recompute: Full, Precision: FP16}
	e, p := evalPlan(t, "gpt3-175b", "a100-80gb", 8, a, p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	host := 96 * 8 * 1536 * 4 * dsHostOp
	for _, l := range r.Traffic {
		if l.Name == nameZ3SmallRS && l.Calls != 96*8 {
			t.Errorf("%v reduce-scatters of norms and biases, want 96 x 8", l.Calls)
		}
		if l.Name != nameZ3Persist {
			continue
		}
		if got := float64(l.Time); got < host || got > host+0.1 {
			t.Errorf("persistent gather %.3f s, want the %.3f s host loop and a small all-gather", got, host)
		}
		if math.Abs(float64(l.Exposed)-float64(l.Time)) > 1e-9 {
			t.Errorf("exposed %v of %v: want all of it", l.Exposed, l.Time)
		}
		return
	}
	t.Errorf("no %q line", nameZ3Persist)
}
