package kernel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/calibration"
	"github.com/gpu-planner/planner/hardware"
)

// CommKinds lists the kinds of communication in the order chapter 8's
// tables show them.
var CommKinds = []costmodel.CommKind{costmodel.CommTP, costmodel.CommCP, costmodel.CommPP, costmodel.CommDPGrads, costmodel.CommDPParams}

// KindTotal is one kind of communication over a step as one GPU sees it:
// the bytes it sends, the time and the part of it exposed on the
// critical path, and the link tiers it crosses.
type KindTotal struct {
	Bytes         hardware.Bytes
	Time, Exposed hardware.Seconds
	Tiers         map[hardware.Tier]bool
}

// ByKind sums a step's collectives (costmodel.Report.Traffic) by kind;
// every kind of CommKinds has an entry.
func ByKind(lines []costmodel.TrafficLine) map[costmodel.CommKind]*KindTotal {
	out := map[costmodel.CommKind]*KindTotal{}
	for _, k := range CommKinds {
		out[k] = &KindTotal{Tiers: map[hardware.Tier]bool{}}
	}
	for _, l := range lines {
		t := out[l.Kind]
		t.Bytes, t.Time, t.Exposed = t.Bytes+l.Bytes, t.Time+l.Time, t.Exposed+l.Exposed
		t.Tiers[l.Tier] = true
	}
	return out
}

// TierNames names the link tiers a kind crosses, NVLink first.
func (t *KindTotal) TierNames() string {
	var s []string
	for _, tier := range []hardware.Tier{hardware.ScaleUp, hardware.ScaleOut} {
		if t.Tiers[tier] {
			s = append(s, tier.String())
		}
	}
	return strings.Join(s, ", ")
}

// MetaRow is one row of Meta's Table 4 as the calibration set models it
// (costmodel/calibration, what `planner validate` prints): the case holds
// Meta's layout and framework settings, and its target the measured
// tokens/s per GPU, converted from the published TFLOP/s with PaLM's
// FLOP count, by which Meta reports MFU. TFLOPs and MFU are as published.
type MetaRow struct {
	calibration.Case
	TFLOPs, MFU float64
}

// FLOPsPerToken is the FLOPs Meta counts per token: the published TFLOP/s
// over the tokens/s they stand for.
func (r MetaRow) FLOPsPerToken() float64 { return r.TFLOPs * 1e12 / r.Target.Value }

// Llama3Row reads Meta's row for a GPU count and sequence length from the
// calibration set, and panics when there is none.
func Llama3Row(gpus, seq int) MetaRow {
	cases, _ := calibration.Cases(Must(calibration.Load()))
	for _, c := range cases {
		n, _, _ := c.Row.Int("num_gpus")
		s, _, _ := c.Row.Int("seq_len")
		if c.Row.Source() == "llama3_paper_table4" && n == gpus && s == seq && c.Target.Metric == calibration.TokensPerGPU {
			tflops, _, _ := c.Row.Float("tflops_per_gpu")
			mfu, _, _ := c.Row.Float("mfu_pct")
			return MetaRow{c, tflops, mfu / 100}
		}
	}
	panic(fmt.Sprintf("no Llama 3 row for %d GPUs at seq %d in the calibration set", gpus, seq))
}
