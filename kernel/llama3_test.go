package kernel

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{7: "7", 1000: "1,000", 193536: "193,536", 16384: "16,384"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestByKind(t *testing.T) {
	lines := []costmodel.TrafficLine{
		{Kind: costmodel.CommTP, Bytes: 2, Time: 1, Exposed: 0.5, Tier: hardware.ScaleUp},
		{Kind: costmodel.CommTP, Bytes: 3, Time: 2, Exposed: 0, Tier: hardware.ScaleOut},
	}
	k := ByKind(lines)
	tp := k[costmodel.CommTP]
	if tp.Bytes != 5 || tp.Time != 3 || tp.Exposed != 0.5 || tp.TierNames() != hardware.ScaleUp.String()+", "+hardware.ScaleOut.String() {
		t.Errorf("tp = %+v, tiers %q", tp, tp.TierNames())
	}
	if len(k) != len(CommKinds) || k[costmodel.CommPP].Bytes != 0 {
		t.Errorf("want an empty entry for every kind, got %d", len(k))
	}
}

// TestLlama3Row: Meta's Table 4 rows that chapter 8 reads are in the
// calibration set.
func TestLlama3Row(t *testing.T) {
	for _, q := range [][2]int{{8192, 8192}, {16384, 8192}, {16384, 131072}} {
		r := Llama3Row(q[0], q[1])
		if r.TFLOPs <= 0 || r.MFU <= 0 || r.MFU >= 1 || r.FLOPsPerToken() <= 0 {
			t.Errorf("row %v: %+v", q, r)
		}
	}
}
