package efficiency

import (
	"math"
	"slices"
	"testing"
)

// TestExpHeadDimsReproduce recomputes expHeadDims from
// testdata/attention_headdim.csv: 64 over the median, across each
// generation's fitted GPUs, of rate(head dim 64) / rate(head dim 128) =
// (latency at 128 / 2) / latency at 64.
func TestExpHeadDimsReproduce(t *testing.T) {
	ratios := map[gemmKey][]float64{}
	for _, r := range readCSV(t, "attention_headdim.csv") {
		f, err := ParseFormat(r["attn_dtype"])
		if err != nil {
			t.Fatal(err)
		}
		k := gemmKey{datasetGPU[r["gpu"]], f}
		ratios[k] = append(ratios[k], num(t, r["latency_ms_d128"])/2/num(t, r["latency_ms_d64"]))
	}
	for _, e := range expHeadDims {
		var rs []float64
		for _, g := range fitGPUs[e.arch] {
			rs = append(rs, ratios[gemmKey{g, e.format}]...)
		}
		if len(rs) == 0 {
			t.Fatalf("%v %v: no head-dim pairs", e.arch, e.format)
		}
		got := 64 / median(rs)
		if math.Abs(got-e.dim) > 0.05 {
			t.Errorf("%v %v: refit exp head dim %.2f, table %.1f", e.arch, e.format, got, e.dim)
		}
		if e.dim >= 128 {
			t.Errorf("%v %v: floor %.1f would change the head-dim-128 curve", e.arch, e.format, e.dim)
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// TestExpHeadDimFloor: on B200 a head-dim-64 forward takes as long as one
// of the floor's head dim, head dim 128 is untouched, and the backward's
// floor, 0.84 of it, binds at head dim 64 but not at 96.
func TestExpHeadDimFloor(t *testing.T) {
	a, _, err := AttentionFor(lookup(t, "b200"), BF16)
	if err != nil {
		t.Fatal(err)
	}
	if a.ExpHeadDim != 99.9 {
		t.Fatalf("b200 bf16 exp head dim %g, want 99.9", a.ExpHeadDim)
	}
	t64 := a.Forward(64, 4096, 4096, 64, 64, true)
	tFloor := a.Forward(64, 4096, 4096, 99.9, 99.9, true)
	if math.Abs(t64/tFloor-1) > 1e-12 {
		t.Errorf("head dim 64 %.4g s, floor %.4g s", t64, tFloor)
	}
	none := a
	none.ExpHeadDim = 0
	if a.Forward(64, 4096, 4096, 128, 128, true) != none.Forward(64, 4096, 4096, 128, 128, true) {
		t.Error("the floor changed head dim 128")
	}
	// The backward's floor is 0.84 of the forward's, 83.9 here: head dim
	// 64 is below it, 96 above.
	if a.Backward(64, 4096, 4096, 64, 64, true) <= none.Backward(64, 4096, 4096, 64, 64, true) {
		t.Error("the backward floor does not bind at head dim 64")
	}
	if a.Backward(64, 4096, 4096, 96, 96, true) != none.Backward(64, 4096, 4096, 96, 96, true) {
		t.Error("the backward floor binds at head dim 96")
	}
}
