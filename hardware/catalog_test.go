package hardware

import (
	"strconv"
	"strings"
	"testing"
)

func TestCatalogComplete(t *testing.T) {
	for _, name := range []string{"a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "gb200", "mi300x", "l40s"} {
		g, err := LookupGPU(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Error(err)
		}
		for _, k := range []string{"hbm_bytes", "hbm_quoted", "peak", "mem_bandwidth", "scale_up", "scale_out"} {
			if g.Sources[k] == "" {
				t.Errorf("%s: no source for %s", name, k)
			}
		}
	}
}

// TestCatalogFigures spot-checks figures against ../shared/hardware-specs.md.
func TestCatalogFigures(t *testing.T) {
	tests := []struct {
		name   string
		hbmMiB float64
		bf16   FLOPRate
		fp8    FLOPRate
		domain int
	}{
		{"h100-sxm", 81559, 989e12, 1979e12, 8},
		{"h200", 143771, 989e12, 1979e12, 8},
		{"b200", 183359, 2250e12, 4500e12, 8},
		{"gb200", 189471, 2500e12, 5000e12, 72},
		// GB300: the full-GPU MIG profile 7g.278gb (no driver total found).
		{"gb300", 278 * 1024, 2500e12, 5000e12, 72},
		{"a100-80gb", 81920, 312e12, 0, 8},
		{"mi300x", 206141652992.0 / (1 << 20), 1307.4e12, 2614.9e12, 8},
	}
	for _, tt := range tests {
		g, _ := LookupGPU(tt.name)
		if g.HBM != Bytes(tt.hbmMiB)*MiB || g.PeakBF16 != tt.bf16 || g.PeakFP8 != tt.fp8 || g.ScaleUpDomain != tt.domain {
			t.Errorf("%s: %+v", tt.name, g)
		}
	}
}

func TestLookupGPU(t *testing.T) {
	for _, name := range []string{"H100", "h100-sxm", "H100_SXM", "gb200-nvl72", " A100 "} {
		if _, err := LookupGPU(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	_, err := LookupGPU("h10")
	if err == nil || !strings.Contains(err.Error(), "closest: h100") {
		t.Errorf("unknown GPU error %v should suggest h100", err)
	}
}

func TestPeakByPrecision(t *testing.T) {
	if b, _ := LookupGPU("b300"); true {
		if p, err := b.Peak("fp4"); err != nil || p != b.PeakFP4 || p < 10e15 {
			t.Errorf("b300 fp4 peak: %v, %v; want the catalog's dense FP4 peak", p, err)
		}
	}
	if h, _ := LookupGPU("h100-sxm"); true {
		if _, err := h.Peak("fp4"); err == nil || !strings.Contains(err.Error(), "no FP4") {
			t.Errorf("h100 fp4 peak: %v, want an error naming the missing FP4 tensor cores", err)
		}
	}
	a100, _ := LookupGPU("a100-80gb")
	if _, err := a100.Peak("fp8"); err == nil {
		t.Error("A100 has no FP8; want an error")
	}
	if p, _ := a100.Peak("fp32"); p != 156e12 {
		t.Errorf("A100 TF32 %v, want 156 TFLOP/s", p)
	}
	if _, err := a100.Peak("int3"); err == nil {
		t.Error("unknown precision should fail")
	}
}

func TestCatalogCopies(t *testing.T) {
	gs := GPUs()
	gs[0].Sources["hbm_bytes"] = "changed"
	if g, _ := LookupGPU(gs[0].Name); g.Sources["hbm_bytes"] == "changed" {
		t.Error("GPUs() shares its maps with the catalog")
	}
}

// TestCatalogTDP checks the board powers against shared/hardware-specs.md,
// note 9, and that each one is cited.
func TestCatalogTDP(t *testing.T) {
	for name, w := range map[string]Watts{"a100-80gb": 400, "h100-sxm": 700, "h200": 700, "b200": 1000,
		"b300": 1100, "gb200": 1200, "gb300": 1400, "mi300x": 750, "l40s": 350} {
		g, err := LookupGPU(name)
		if err != nil {
			t.Fatal(err)
		}
		if g.TDP != w {
			t.Errorf("%s: TDP %v, want %v", name, g.TDP, w)
		}
		if !strings.Contains(g.Sources["tdp"], strconv.Itoa(int(w))+" W") {
			t.Errorf("%s: TDP source %q does not quote %v", name, g.Sources["tdp"], w)
		}
	}
	if s := Watts(1200).String(); s != "1.20 kW" {
		t.Errorf("Watts(1200) = %q, want 1.20 kW", s)
	}
}

// TestClockSourced: every catalog part says what share of its peak it is
// priced at under load and why (a measurement, or the reason none is
// applied), and a part with a share has a source that quotes the clock
// it holds.
func TestClockSourced(t *testing.T) {
	for _, g := range GPUs() {
		src := g.Sources["sustained_clock"]
		if src == "" {
			t.Errorf("%s: no source for the sustained clock", g.Name)
		}
		if g.SustainedClock > 0 && !strings.Contains(src, "MHz") {
			t.Errorf("%s: sustained clock %.2f with a source that quotes no clock: %q", g.Name, g.SustainedClock, src)
		}
	}
}
