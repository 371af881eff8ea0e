package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// Why says in numbers why plan a ranks above plan b: the lead in
// throughput (or the tie-break that decided), then each difference of
// the step time's parts that separates them (pipeline bubble, recompute,
// exposed communication), then memory, then the layout fields in which
// they differ. It prints only what differs.
func Why(a, b Ranked) []string {
	pa, pb := a.Performance, b.Performance
	var out []string
	switch {
	case pa.TokensPerSecond != pb.TokensPerSecond:
		out = append(out, fmt.Sprintf("%s more tokens/s: %s vs %s per GPU (step time %v vs %v, MFU %s vs %s)",
			percent(pa.TokensPerSecond/pb.TokensPerSecond-1), count(pa.TokensPerSecondPerGPU), count(pb.TokensPerSecondPerGPU),
			pa.StepTime, pb.StepTime, percent(pa.MFU), percent(pb.MFU)))
	case a.Headroom != b.Headroom:
		out = append(out, fmt.Sprintf("equal throughput; %v more headroom: %v vs %v", a.Headroom-b.Headroom, a.Headroom, b.Headroom))
	case pa.ExposedNetworkBytes != pb.ExposedNetworkBytes:
		out = append(out, fmt.Sprintf("equal throughput and headroom; fewer bytes exposed on the network: %v vs %v",
			pa.ExposedNetworkBytes, pb.ExposedNetworkBytes))
	default:
		out = append(out, "equal throughput, headroom and exposed bytes; ordered by plan string")
	}
	if ba, bb := Bubble(a.Plan), Bubble(b.Plan); ba != bb {
		out = append(out, fmt.Sprintf("pipeline bubble %s vs %s of compute ((pp-1)/(m*vpp): pp %d vs %d, %d vs %d micro-batches, vpp %d vs %d)",
			percent(ba), percent(bb), a.Plan.PP, b.Plan.PP, a.MicroBatches, b.MicroBatches, a.Plan.VPP, b.Plan.VPP))
	}
	if ea, eb := extraFLOPs(pa), extraFLOPs(pb); ea != eb {
		out = append(out, fmt.Sprintf("recompute %s vs %s: hardware FLOPs %s vs %s above the model's (HFU %s vs %s)",
			a.Plan.Recompute, b.Plan.Recompute, percent(ea), percent(eb), percent(pa.HFU), percent(pb.HFU)))
	}
	if pa.ExposedComm != pb.ExposedComm || pa.ExposedTier != pb.ExposedTier {
		out = append(out, fmt.Sprintf("exposed communication %s vs %s", exposed(pa), exposed(pb)))
	}
	if a.Headroom != b.Headroom && pa.TokensPerSecond != pb.TokensPerSecond {
		out = append(out, fmt.Sprintf("peak memory %v vs %v per GPU (headroom %v vs %v)", a.Peak, b.Peak, a.Headroom, b.Headroom))
	}
	if d := planDiff(a.Plan, b.Plan); d != "" {
		out = append(out, "layouts differ in "+d)
	}
	return out
}

// Bubble is the idle share of a pipeline's compute: (pp-1)/m for 1F1B
// and GPipe, divided by the virtual stages when interleaved (Narayanan et
// al. 2021, sec. 2.2).
func Bubble(p costmodel.Plan) float64 {
	m := p.MicroBatches()
	if p.PP == 1 || m == 0 {
		return 0
	}
	b := float64(p.PP-1) / float64(m)
	if p.Interleaved() {
		b /= float64(p.VPP)
	}
	return b
}

// extraFLOPs is the share of hardware FLOPs above the model's: the
// recomputed forward passes.
func extraFLOPs(p costmodel.Performance) float64 {
	if p.MFU == 0 {
		return 0
	}
	return p.HFU/p.MFU - 1
}

// exposed formats exposed communication with its tier, "0 s" when none.
func exposed(p costmodel.Performance) string {
	if p.ExposedComm == 0 {
		return "0 s"
	}
	return fmt.Sprintf("%v on %s", p.ExposedComm, p.ExposedTier)
}

// planDiff lists the layout fields in which a and b differ, "pp 1 vs 2,
// zero 1 vs 3".
func planDiff(a, b costmodel.Plan) string {
	var d []string
	ints := []struct {
		name string
		x, y int
	}{{"tp", a.TP, b.TP}, {"pp", a.PP, b.PP}, {"vpp", a.VPP, b.VPP}, {"first stage layers", a.FirstStageLayers, b.FirstStageLayers},
		{"last stage layers", a.LastStageLayers, b.LastStageLayers}, {"cp", a.CP, b.CP}, {"dp", a.DP, b.DP},
		{"zero", a.ZeRO, b.ZeRO}, {"mbs", a.MicroBatch, b.MicroBatch}}
	for _, f := range ints {
		if f.x != f.y {
			d = append(d, fmt.Sprintf("%s %d vs %d", f.name, f.x, f.y))
		}
	}
	if a.SP != b.SP {
		d = append(d, fmt.Sprintf("sp %v vs %v", onOff(a.SP), onOff(b.SP)))
	}
	if a.Recompute != b.Recompute {
		d = append(d, fmt.Sprintf("recompute %s vs %s", a.Recompute, b.Recompute))
	}
	return strings.Join(d, ", ")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// percent formats a fraction as a percentage with three significant
// digits (at least one decimal below 100%): "6.25%", "45.0%", "150%".
func percent(f float64) string {
	v := f * 100
	switch a := math.Abs(v); {
	case a == 0:
		return "0%"
	case a >= 99.95:
		return strconv.FormatFloat(v, 'f', 0, 64) + "%"
	case a >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "%"
}

// count formats a rate: whole units from 100 up, three significant
// digits below.
func count(v float64) string {
	switch a := math.Abs(v); {
	case a >= 99.95:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
