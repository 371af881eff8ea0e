package view

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/internal/goldenfile"
)

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// inventory is a hand-built inventory, so the golden files do not move
// when the cost model's numbers do.
func inventory(extraActs hardware.Bytes) costmodel.Inventory {
	lines := []costmodel.Line{
		{Name: "weights (bf16)", Group: costmodel.GroupStates, Bytes: 16 * hardware.GB, Formula: "2 B/param x 8 B params", Source: "parameters"},
		{Name: "optimizer <fp32> & moments", Group: costmodel.GroupStates, Bytes: 24 * hardware.GB, Formula: "12 B/param x 8 B / 4", Source: "ZeRO"},
		{Name: "activations", Group: costmodel.GroupActivations, Bytes: 20*hardware.GB + extraActs, Formula: "32 layers x 0.6 GB", Source: "Korthikanti"},
		{Name: "KV cache (bf16)", Group: costmodel.GroupKV, Bytes: 0.5 * hardware.GB, Formula: "4096 tokens x 131 kB", Source: "Pope"},
		{Name: "CUDA context", Group: costmodel.GroupOverheads, Bytes: 1 * hardware.GB, Formula: "fixed", Source: "assumption"},
	}
	inv := costmodel.Inventory{Lines: lines, Capacity: 80 * hardware.GB, Budget: 72 * hardware.GB}
	for _, l := range lines {
		inv.Total += l.Bytes
	}
	inv.Headroom = inv.Budget - inv.Total
	inv.Fits = inv.Headroom >= 0
	return inv
}

func TestTablesGolden(t *testing.T) {
	golden(t, "inventory_fits.html", InventoryTable(inventory(0)))
	golden(t, "inventory_over.html", InventoryTable(inventory(40*hardware.GB)))
	ts := []costmodel.ActivationTensor{
		{Name: "attention norm input", Block: "attention", Bytes: 100e6, Formula: "2·s·b·h"},
		{Name: "softmax output", Block: "attention", Bytes: 268e6, Formula: "2·a·s²·b/t", Quadratic: true, Recomputed: true},
		{Name: "MLP GeLU input", Block: "mlp", Bytes: 50e6, Formula: "2·s·b·f/t"},
	}
	golden(t, "activations.html", ActivationsTable(ts))
	golden(t, "table.html", Table("bytes per parameter", []string{"dtype", "bytes", "note"},
		[]string{"bf16", "2", "<b>not bold</b>"}, []string{"int4", "0.5", "≈ a quarter"}))
}

// TestTableEscapes: text never becomes markup.
func TestTableEscapes(t *testing.T) {
	out := Table("<i>", []string{"<th>"}, []string{"<script>alert(1)</script>"})
	if strings.Contains(out, "<script>") || strings.Contains(out, "<i>") || !strings.Contains(out, "&lt;script&gt;") {
		t.Errorf("unescaped markup in %q", out)
	}
	if !strings.Contains(InventoryTable(inventory(0)), "optimizer &lt;fp32&gt; &amp; moments") {
		t.Error("inventory line name is not escaped")
	}
}

func charts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var err error
	out["inventory.svg"], err = InventoryChart("two plans", InventoryBar{"fits", inventory(0)}, InventoryBar{"too big", inventory(40 * hardware.GB)})
	if err != nil {
		t.Fatal(err)
	}
	mc := MemoryChart{Title: "lines", XLabel: "GPUs", LogX: true, LogY: true,
		Series: []Series{
			{Name: "a", X: []float64{1, 8, 64, 1024}, Y: []hardware.Bytes{1e12, 1.25e11, 1.6e10, 1e9}},
			{Name: "b", X: []float64{1, 8, 64, 1024}, Y: []hardware.Bytes{1e12, 1e12, 1e12, 1e12}},
		},
		Limits: []Limit{{Name: "budget", Bytes: 72e9}, {Name: "HBM", Bytes: 80e9}}}
	if out["lines.svg"], err = mc.SVG(); err != nil {
		t.Fatal(err)
	}
	mc.LogX, mc.LogY = false, false
	if out["lines_linear.svg"], err = mc.SVG(); err != nil {
		t.Fatal(err)
	}
	p := costmodel.Plan{PP: 2, VPP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 4}
	s := costmodel.StageMemory{InFlight: 2, LayerActivations: 20e9, Weights: 10e9, CUDAContext: 1e9, Total: 31e9}
	tl, err := costmodel.StepTimeline(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if out["timeline.svg"], err = TimelineChart("stage 0", tl, 72e9); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkCharts: two renderings of the same charts are byte-identical,
// each an inline SVG document matching its golden file.
func checkCharts(t *testing.T, first, second map[string]string) {
	t.Helper()
	for name, svg := range first {
		if svg != second[name] {
			t.Errorf("%s: two renderings differ", name)
		}
		if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>\n") {
			t.Errorf("%s: not an inline SVG document", name)
		}
		golden(t, name, svg)
	}
}

// TestChartsGolden: the charts are byte-identical from run to run and
// match their golden files.
func TestChartsGolden(t *testing.T) {
	checkCharts(t, charts(t), charts(t))
}

func TestChartErrors(t *testing.T) {
	nan := inventory(0)
	nan.Total = hardware.Bytes(math.NaN())
	if _, err := InventoryChart("none"); err == nil {
		t.Error("no bars: no error")
	}
	if _, err := InventoryChart("nan", InventoryBar{"x", nan}); err == nil {
		t.Error("NaN total: no error")
	}
	for name, c := range map[string]MemoryChart{
		"no series":  {},
		"ragged":     {Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []hardware.Bytes{1}}}},
		"log zero x": {LogX: true, Series: []Series{{Name: "a", X: []float64{0, 2}, Y: []hardware.Bytes{1, 2}}}},
		"log zero y": {LogY: true, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []hardware.Bytes{0, 2}}}},
		"inf limit":  {Series: []Series{{Name: "a", X: []float64{1}, Y: []hardware.Bytes{1}}}, Limits: []Limit{{"x", hardware.Bytes(math.Inf(1))}}},
	} {
		if _, err := c.SVG(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := TimelineChart("empty", costmodel.Timeline{}, 1); err == nil {
		t.Error("empty timeline: no error")
	}
}

func TestBarLabels(t *testing.T) {
	got := barLabels([]string{"bf16 on 8 H100 (the problem)", "1. fp8 on 8 H100", "2. bf16 on 8 H200", "3. bf16 on 16 H100 (tp8 x pp2)"})
	want := []string{"bf16 on 8 H100\n(the problem)", "1. fp8 on 8 H100", "2. bf16 on 8 H200", "3. bf16 on 16\nH100 (tp8 x pp2)"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d: %q, want %q", i, got[i], want[i])
		}
	}
	if got := barLabels([]string{"a-single-word-longer-than-any-slot-of-four-bars-is-kept-whole"}); got[0] != "a-single-word-longer-than-any-slot-of-four-bars-is-kept-whole" {
		t.Errorf("one word: %q", got[0])
	}
}

func TestNumeric(t *testing.T) {
	for s, want := range map[string]bool{"16.1 GB": true, "8x": true, "-0.5": true, "≈ 3": true, "4.50 s (62.3%)": true,
		"1. fp8 on 8 H100": false, "3. bf16 on 16 H100 (tp8 x pp2)": false, "ZeRO-3": false, "": false, "≈ a quarter": false} {
		if got := numeric(s); got != want {
			t.Errorf("numeric(%q) = %v, want %v", s, got, want)
		}
	}
}
