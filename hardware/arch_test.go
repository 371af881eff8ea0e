package hardware

import (
	"strings"
	"testing"
)

func TestArchRoundTrip(t *testing.T) {
	for a := Ampere; a <= CDNA3; a++ {
		b, err := a.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Arch
		if err := back.UnmarshalText(b); err != nil || back != a {
			t.Errorf("%v: round trip gave %v, %v", a, back, err)
		}
	}
	_, err := ParseArch("volta")
	if err == nil || !strings.Contains(err.Error(), `"volta"`) || !strings.Contains(err.Error(), "hopper") {
		t.Errorf("ParseArch(volta) error %v should name the value and the valid ones", err)
	}
}

// TestCatalogArch checks the generation, SM count and block-scaled peaks
// of every catalog GPU, each with a source.
func TestCatalogArch(t *testing.T) {
	want := map[string]struct {
		arch Arch
		sms  int
		fp4  FLOPRate
	}{
		"a100-40gb": {Ampere, 108, 0}, "a100-80gb": {Ampere, 108, 0},
		"h100-sxm": {Hopper, 132, 0}, "h200": {Hopper, 132, 0},
		"b200": {Blackwell, 148, 9000e12}, "gb200": {Blackwell, 152, 10000e12},
		"b300": {BlackwellUltra, 148, 13500e12}, "gb300": {BlackwellUltra, 152, 15000e12}, "l40s": {Ada, 142, 0}, "mi300x": {CDNA3, 304, 0},
	}
	for _, g := range GPUs() {
		w, ok := want[g.Name]
		if !ok {
			t.Errorf("%s: no expected architecture in the test", g.Name)
			continue
		}
		if g.Arch != w.arch || g.SMs != w.sms || g.PeakFP4 != w.fp4 {
			t.Errorf("%s: arch %v, %d SMs, FP4 %v; want %v, %d, %v", g.Name, g.Arch, g.SMs, g.PeakFP4, w.arch, w.sms, w.fp4)
		}
		if g.Sources["arch"] == "" || g.Sources["sms"] == "" || (g.PeakFP4 > 0 && g.Sources["peak_fp4"] == "") {
			t.Errorf("%s: architecture, SM count or FP4 peak without a source", g.Name)
		}
	}
}

func TestParseGPUArch(t *testing.T) {
	in := strings.Replace(ExampleGPUFile, `"name": "my-h100",`, `"name": "my-h100", "arch": "hopper", "sms": 132,`, 1)
	g, err := ParseGPU(strings.NewReader(in))
	if err != nil || g.Arch != Hopper || g.SMs != 132 {
		t.Fatalf("got %v %d %v", g.Arch, g.SMs, err)
	}
	bad := strings.Replace(ExampleGPUFile, `"name": "my-h100",`, `"name": "my-h100", "arch": "kepler",`, 1)
	if _, err := ParseGPU(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "kepler") {
		t.Errorf("arch kepler: error %v should name the value", err)
	}
}
