package view

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

func TestPlaygroundRender(t *testing.T) {
	pg := DefaultPlayground()
	out := pg.Render()
	if out != pg.Render() {
		t.Error("two renderings differ")
	}
	for _, want := range []string{"llama3.1-70b", "tp8-pp1-cp1-dp8-zero1-sp-selective-mb1", "<svg", "Stage 0 over one step", `class="planner"`, "fits"} {
		if !strings.Contains(out, want) {
			t.Errorf("default playground lacks %q", want)
		}
	}
	r, err := pg.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan.DP != 8 || r.MicroBatches != 4 {
		t.Errorf("dp %d, %d micro-batches; want 8 and 4", r.Plan.DP, r.MicroBatches)
	}

	pp := pg
	pp.PP, pp.TP, pp.Recompute = 4, 8, costmodel.Full
	if r, err := pp.Estimate(); err != nil || r.MicroBatches != 16 || !strings.Contains(pp.Render(), "Stage 0 over one step") {
		t.Errorf("pp=4: %v, %d micro-batches", err, r.MicroBatches)
	}
	big := pg
	big.GPUs, big.ZeRO, big.Recompute = 8, 0, costmodel.NoRecompute
	if !strings.Contains(big.Render(), "does not fit") {
		t.Error("70B with ZeRO-0 on 8 GPUs renders as fitting")
	}
}

// TestPlaygroundErrors: settings the model rejects render as a message
// that names the problem.
func TestPlaygroundErrors(t *testing.T) {
	for name, tt := range map[string]struct {
		change func(*Playground)
		want   string
	}{
		"layout":  {func(p *Playground) { p.GPUs = 12 }, "12 GPUs are not a multiple of tp*pp*cp"},
		"model":   {func(p *Playground) { p.Model = "llama9" }, "unknown model"},
		"gpu":     {func(p *Playground) { p.GPU = "h900" }, "h900"},
		"heads":   {func(p *Playground) { p.TP, p.Model = 2, "gpt2-xl" }, "tp=2 does not divide 25 attention heads"},
		"nodes":   {func(p *Playground) { p.GPUs, p.TP = 12, 4 }, "--gpus 12 is not a whole number of 8-GPU nodes"},
		"context": {func(p *Playground) { p.CP, p.Seq = 8, 1000 }, "seq=1000"},
	} {
		pg := DefaultPlayground()
		tt.change(&pg)
		out := pg.Render()
		if !strings.Contains(out, tt.want) || strings.Contains(out, "<svg") {
			t.Errorf("%s: %.300q", name, out)
		}
	}
}

// TestPlaygroundQuery: a setting survives its URL query, every control's
// value is one of its options, and a query naming a bad value or an
// unknown key is refused.
func TestPlaygroundQuery(t *testing.T) {
	pg := DefaultPlayground()
	pg.ZeRO, pg.TP, pg.PP, pg.Recompute, pg.Precision = 3, 4, 2, costmodel.Full, costmodel.FP8
	back, err := ParsePlayground(pg.Query())
	if err != nil || back != pg {
		t.Fatalf("round trip: %+v, %v; want %+v", back, err, pg)
	}
	for _, c := range PlaygroundControls() {
		if v := c.Value(DefaultPlayground()); !slices.Contains(c.Options, v) {
			t.Errorf("control %s: default %q is not an option", c.Key, v)
		}
	}
	for _, q := range []string{"zero=5", "tp=3", "model=llama9", "recompute=some", "color=red"} {
		v, _ := url.ParseQuery(q)
		if _, err := ParsePlayground(v); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
	if fp8 := pg.Render(); !strings.Contains(fp8, "fp8") || fp8 == DefaultPlayground().Render() {
		t.Error("the fp8 setting renders like the default")
	}
}
