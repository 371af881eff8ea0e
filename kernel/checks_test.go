package kernel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

func TestChecks(t *testing.T) {
	var out strings.Builder
	c := Checks{Out: &out}
	if !c.Near("weights GB", 16.06, 16, 0.01) || c.Near("total GB", 19.1, 18, 0.01) {
		t.Error("Near misjudged")
	}
	if !c.Between("ratio", 0.75, 0.65, 0.85) || c.Between("nan", math.NaN(), 0, 1) || c.Near("nan", math.NaN(), 1, 1) {
		t.Error("Between or NaN misjudged")
	}
	if !c.True("fits", true) || c.True("fits", false) {
		t.Error("True misjudged")
	}
	if out.Len() != 0 {
		t.Errorf("checks printed before Done: %q", out.String())
	}
	err := c.Err()
	if err == nil || !strings.Contains(err.Error(), "4 of 7 checks failed") {
		t.Fatalf("Err = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Done did not panic with failed checks")
		}
		want := "ok   weights GB: 16.06, want 16 ± 1%\nFAIL total GB: 19.1, want 18 ± 1%\n"
		if !strings.HasPrefix(out.String(), want) {
			t.Errorf("output on failure:\n%s\nwant prefix:\n%s", out.String(), want)
		}
	}()
	c.Done()
}

func TestChecksPass(t *testing.T) {
	var out strings.Builder
	c := Checks{Out: &out}
	c.Near("exact", 2, 2, 0)
	c.True("true", true)
	c.Done() // must not panic
	if c.Err() != nil || out.String() != "✓ 2 checks passed\n" {
		t.Errorf("%v, printed %q", c.Err(), out.String())
	}
}

func TestPerToken(t *testing.T) {
	for b, want := range map[hardware.Bytes]string{128 * hardware.KiB: "128 KiB", 70272: "68.6 KiB", 2.5 * hardware.MiB: "2.5 MiB"} {
		if got := PerToken(b); got != want {
			t.Errorf("PerToken(%v) = %q, want %q", float64(b), got, want)
		}
	}
}
