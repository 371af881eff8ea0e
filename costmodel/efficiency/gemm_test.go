package efficiency

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

func TestFormatRoundTrip(t *testing.T) {
	for f := BF16; f <= NVFP4; f++ {
		b, err := f.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Format
		if err := back.UnmarshalText(b); err != nil || back != f {
			t.Errorf("%v: round trip gave %v, %v", f, back, err)
		}
	}
	if f, err := ParseFormat("FP16"); err != nil || f != BF16 {
		t.Errorf("fp16 should read as bf16: %v %v", f, err)
	}
	_, err := ParseFormat("int8")
	if err == nil || !strings.Contains(err.Error(), `"int8"`) || !strings.Contains(err.Error(), "nvfp4") {
		t.Errorf("ParseFormat(int8) error %v should name the value and the valid ones", err)
	}
	if _, err := Format(0).MarshalText(); err == nil {
		t.Error("the zero Format must not marshal")
	}
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"bf16", "fp8-block", "FP8_BLOCK", "mxfp8", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFormat(s)
		if err != nil {
			return
		}
		back, err := ParseFormat(v.String())
		if err != nil || back != v {
			t.Errorf("%q -> %v -> %v, %v", s, v, back, err)
		}
	})
}

func TestGEMMForErrors(t *testing.T) {
	h100 := lookup(t, "h100-sxm")
	_, _, err := GEMMFor(h100, NVFP4)
	if err == nil || !strings.Contains(err.Error(), "h100-sxm") || !strings.Contains(err.Error(), "nvfp4") || !strings.Contains(err.Error(), "fp8-block") {
		t.Errorf("NVFP4 on H100: error %v should name the GPU, the format and the valid formats", err)
	}
	if _, _, err := GEMMFor(lookup(t, "a100-80gb"), FP8); err == nil || !strings.Contains(err.Error(), "valid: bf16") {
		t.Errorf("FP8 on A100: error %v", err)
	}
	custom := h100
	custom.Arch = hardware.ArchUnknown
	if _, _, err := GEMMFor(custom, BF16); err == nil || !strings.Contains(err.Error(), "architecture") {
		t.Errorf("no arch: error %v", err)
	}
}

func TestGEMMForEvidence(t *testing.T) {
	cases := []struct {
		gpu          string
		f            Format
		extrapolated bool
		fitted       string
	}{
		{"h200", BF16, false, "h100_sxm+h200_sxm"},
		{"b300", NVFP4, false, "b300_sxm"},
		{"b200", MXFP8, true, "b200_sxm+gb200"},
		{"h100-sxm", FP8Row, true, "h100_sxm+h200_sxm"},
		{"mi300x", BF16, true, "h100_sxm+h200_sxm"},
		{"a100-40gb", BF16, true, "a100_sxm"},
	}
	for _, c := range cases {
		g, ev, err := GEMMFor(lookup(t, c.gpu), c.f)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Extrapolated != c.extrapolated || ev.Fitted != c.fitted || (c.extrapolated && ev.Reason == "") {
			t.Errorf("%s %v: evidence %+v", c.gpu, c.f, ev)
		}
		if e := g.Efficiency(8192, 8192, 8192); !(e > 0.3 && e < 1) {
			t.Errorf("%s %v: efficiency at 8192^3 is %.3f, want in (0.3, 1)", c.gpu, c.f, e)
		}
	}
}

// TestWaveQuantization checks the step a wave boundary makes: on H100
// (132 SMs, 128x128 tiles), a 1536 x 1408 output is 12 x 11 = 132 tiles,
// one full wave; 128 more rows make 143 tiles, a second wave that runs
// nearly empty, so the time nearly doubles although the work grows by 8%.
func TestWaveQuantization(t *testing.T) {
	c, _, err := GEMMFor(lookup(t, "h100-sxm"), BF16)
	if err != nil {
		t.Fatal(err)
	}
	full, over := c.Time(1536, 1408, 16384), c.Time(1536+128, 1408, 16384)
	if r := over / full; r < 1.8 {
		t.Errorf("one tile row past a full wave: time ratio %.2f, want about 2", r)
	}
}

// TestGroupedSharesWaves: 8 experts of 512 x 2048 x 7168 in one grouped
// kernel fill the waves that one expert alone leaves empty, so the group
// is faster than 8 separate launches but never faster than one product
// of the same total rows.
func TestGroupedSharesWaves(t *testing.T) {
	c, _, err := GEMMFor(lookup(t, "h100-sxm"), FP8Block)
	if err != nil {
		t.Fatal(err)
	}
	grouped, separate := c.Grouped(8, 512, 2048, 7168), 8*c.Time(512, 2048, 7168)
	stacked := c.Time(8*512, 2048, 7168) - c.Launch
	if !(grouped < separate && grouped >= stacked) {
		t.Errorf("grouped %.3g s, separate %.3g s, stacked %.3g s", grouped, separate, stacked)
	}
	if c.Grouped(0, 1, 1, 1) != 0 || c.Time(0, 10, 10) != 0 {
		t.Error("an empty product takes no time")
	}
}
