package trainrun

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestLlama3Scale reproduces the order of Llama 3 405B's run: 15.6 T
// tokens on 16,384 H100s at 38-43% MFU took about 54 days (Dubey et
// al. 2024, sec. 3.3 and 3.3.4; 30.84 M GPU-hours for the 405B model,
// Table in the model card). At 400 tokens/s per GPU (16,384 x 400 =
// 6.55 M tokens/s) the formula gives 27.6 days of steady training, the
// model card's 30.84 M GPU-hours including the rest.
func TestLlama3Scale(t *testing.T) {
	s := Settings{Tokens: 15.6e12, GPUHourPrice: 2}
	r := Of(s, 16384, 16384*400, 700)
	if d := Days(r.Time); math.Abs(d-27.55) > 0.05 {
		t.Errorf("time to train %.2f days, want 27.55", d)
	}
	if want := 16384 * float64(r.Time) / 3600; math.Abs(r.GPUHours-want) > 1e-6*want {
		t.Errorf("GPU-hours %g, want %g", r.GPUHours, want)
	}
	if math.Abs(r.Cost-2*r.GPUHours) > 1e-6 {
		t.Errorf("cost %g, want 2 x %g", r.Cost, r.GPUHours)
	}
	// 16,384 x 700 W x 1.2 x 27.55 days = 9.10 GWh at the facility.
	if mwh := r.Energy.MWh(); math.Abs(mwh-9100) > 10 {
		t.Errorf("energy %g MWh, want about 9,100", mwh)
	}
	if r.PUE != DefaultPUE || r.PowerUtilization != DefaultPowerUtilization {
		t.Errorf("defaults not applied: PUE %g, utilization %g", r.PUE, r.PowerUtilization)
	}
}

func TestParseTokens(t *testing.T) {
	for in, want := range map[string]float64{"15e12": 15e12, "15T": 15e12, "15.6t": 15.6e12, "300B": 300e9, "2M": 2e6, "1000": 1000} {
		got, err := ParseTokens(in)
		if err != nil || math.Abs(got-want) > 1e-9*want {
			t.Errorf("ParseTokens(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for _, in := range []string{"", "T", "-1", "0", "abc", "1e30"} {
		if _, err := ParseTokens(in); err == nil {
			t.Errorf("ParseTokens(%q): no error", in)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]hardware.Seconds{"90d": 90 * 86400, "2w": 14 * 86400, "36h": 36 * 3600, "1.5d": 1.5 * 86400} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-3d", "xd", "soon"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q): no error", in)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, s := range []Settings{{}, {Tokens: 1, GPUHourPrice: -1}, {Tokens: 1, PUE: 0.9}, {Tokens: 1, PowerUtilization: 1.5}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (Settings{Tokens: 1e12}).Validate(); err != nil {
		t.Error(err)
	}
}
