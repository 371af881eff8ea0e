package costmodel

import (
	"strings"
	"testing"
)

// TestMoEWeightedActivation: with the router's probabilities applied in
// the expert activation (Megatron-Core), an MoE layer keeps the fp32
// permuted probabilities instead of the expert outputs and the 16-bit
// probabilities a weighted combine saves: 2·s·b·k·h + 2·s·b·k bytes less
// and 4·s·b·k more per MoE layer. Qwen3-30B-A3B at s 4096, mbs 8, ep 8
// on eight B300 (Megatron-Bridge's recipe, which ran): 48 layers x
// (1.07 GB - 0.52 MB) less.
func TestMoEWeightedActivation(t *testing.T) {
	m, err := LookupModel("qwen3-30b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	names := func(weighted bool) string {
		var b strings.Builder
		for _, s := range layerTensors(m, Flash, true, weighted) {
			b.WriteString(s.name + ";")
		}
		return b.String()
	}
	if w, u := names(true), names(false); strings.Contains(w, "expert outputs") || !strings.Contains(w, "routing probabilities (fp32") ||
		!strings.Contains(u, "expert outputs") || !strings.Contains(u, "routing probabilities (for the combine)") || strings.Contains(u, "(fp32, for the weighted") {
		t.Errorf("weighted %s\nunweighted %s", w, u)
	}
	p := Plan{TP: 1, PP: 1, VPP: 1, CP: 1, DP: 8, EP: 8, ETP: 1, ZeRO: 1, Recompute: NoRecompute, MicroBatch: 8,
		GlobalBatch: 512, Seq: 4096, Precision: MXFP8}
	a := DefaultAssumptions()
	a.Fragmentation = 0
	total := func(weighted bool) float64 {
		a.MoEWeightedActivation = weighted
		r, err := Estimate(m, cluster(t, "b300", 8), p, a)
		if err != nil {
			t.Fatal(err)
		}
		return float64(r.Memory.Total)
	}
	s, b, k, h := 4096.0, 8.0, 8.0, 2048.0
	want := 48 * (2*s*b*k*h + 2*s*b*k - 4*s*b*k)
	if got := total(false) - total(true); got < 0.999*want || got > 1.001*want {
		t.Errorf("weighted activation saves %.4g B, want %.4g", got, want)
	}
}
