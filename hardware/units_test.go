package hardware

import (
	"encoding/json"
	"math"
	"testing"
)

func TestDisplayRule(t *testing.T) {
	tests := []struct {
		got  string
		want string
	}{
		{(16.06 * GB).String(), "16.1 GB"},
		{(537 * MB).String(), "537 MB"},
		{(1.1289 * TB).String(), "1.13 TB"},
		{(320 * KiB).String(), "328 kB"},
		{(999.6 * MB).String(), "1.00 GB"},
		{Bytes(0).String(), "0 B"},
		{Bytes(-5.99e9).String(), "-5.99 GB"},
		{(989 * TFLOPPerSecond).String(), "989 TFLOP/s"},
		{(450 * GBPerSecond).String(), "450 GB/s"},
		{(400 * GbitPerSecond).String(), "50.0 GB/s"},
		{Seconds(1.42).String(), "1.42 s"},
		{Seconds(0.0352).String(), "35.2 ms"},
		{Seconds(12e-6).String(), "12.0 µs"},
		{FLOPs(3.15e18).String(), "3.15 EFLOP"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestBytesJSONIsInteger(t *testing.T) {
	b, err := json.Marshal(struct{ B Bytes }{81559 * MiB})
	if err != nil || string(b) != `{"B":85520809984}` {
		t.Errorf("got %s, %v", b, err)
	}
	if _, err := json.Marshal(Bytes(math.Inf(1))); err == nil {
		t.Error("marshalling +Inf bytes should fail")
	}
}

// TestGBvsGiB: the H100's 81559 MiB is 79.65 GiB or 85.52 GB
// (../shared/hardware-specs.md, note 1).
func TestGBvsGiB(t *testing.T) {
	g, _ := LookupGPU("h100-sxm")
	if gib := float64(g.HBM / GiB); gib < 79.64 || gib > 79.66 {
		t.Errorf("H100 %g GiB, want 79.65", gib)
	}
	if gb := g.HBM.GB(); gb < 85.51 || gb > 85.53 {
		t.Errorf("H100 %g GB, want 85.52", gb)
	}
}

func TestNumber(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{164, "164"}, {31357, "31.4 k"}, {2.05e6, "2.05 M"}, {9.99, "9.99"}, {0, "0"}} {
		if got := Number(tt.v); got != tt.want {
			t.Errorf("Number(%g) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 64512: "64,512",
		math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[float64]string{91.04: "91.0", 99.96: "100", 141.4: "141", 2304866.4: "2,304,866", -1234.5: "-1,235"} {
		if got := Grouped(v); got != want {
			t.Errorf("Grouped(%g) = %q, want %q", v, got, want)
		}
	}
}
