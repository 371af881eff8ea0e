package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Why says in numbers why plan a ranks above plan b: the lead in
// throughput (or the tie-break that decided), then the parts of the step
// time in which they differ, read from the calibrated breakdown that set
// the ranking (compute, recompute, pipeline bubble, exposed communication
// by kind, optimizer), largest difference first, then memory, then the
// layout fields in which they differ. It prints only what differs.
func Why(a, b Ranked) []string {
	pa, pb := a.Performance, b.Performance
	var out []string
	switch {
	case pa.TokensPerSecond != pb.TokensPerSecond:
		out = append(out, fmt.Sprintf("%s more tokens/s: %s vs %s per GPU (step time %v vs %v, MFU %s vs %s)",
			percent(pa.TokensPerSecond/pb.TokensPerSecond-1), units(pa.TokensPerSecondPerGPU), units(pb.TokensPerSecondPerGPU),
			pa.StepTime, pb.StepTime, percent(pa.MFU), percent(pb.MFU)))
	case a.Headroom != b.Headroom:
		out = append(out, fmt.Sprintf("equal throughput; %v more headroom: %v vs %v", a.Headroom-b.Headroom, a.Headroom, b.Headroom))
	case pa.ExposedNetworkBytes != pb.ExposedNetworkBytes:
		out = append(out, fmt.Sprintf("equal throughput and headroom; fewer bytes exposed on the network: %v vs %v",
			pa.ExposedNetworkBytes, pb.ExposedNetworkBytes))
	default:
		out = append(out, "equal throughput, headroom and exposed bytes; ordered by plan string")
	}
	out = append(out, stepDifferences(a, b)...)
	if a.Headroom != b.Headroom && pa.TokensPerSecond != pb.TokensPerSecond {
		out = append(out, fmt.Sprintf("peak memory %v vs %v per GPU (headroom %v vs %v)", a.Peak, b.Peak, a.Headroom, b.Headroom))
	}
	if d := planDiff(a.Plan, b.Plan); d != "" {
		out = append(out, "layouts differ in "+d)
	}
	return out
}

// stepParts are the parts of costmodel.StepTime that add up to the step.
var stepParts = []struct {
	name string
	of   func(*costmodel.StepTime) hardware.Seconds
}{
	{"compute", func(s *costmodel.StepTime) hardware.Seconds { return s.Compute }},
	{"recompute", func(s *costmodel.StepTime) hardware.Seconds { return s.Recompute }},
	{"pipeline bubble", func(s *costmodel.StepTime) hardware.Seconds { return s.Bubble }},
	{"exposed tp communication", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedTP }},
	{"exposed cp communication", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedCP }},
	{"exposed pp communication", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedPP }},
	{"exposed dp gradient reduction", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedDPGrads }},
	{"exposed dp weight gathers", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedDPParams }},
	{"exposed ep all-to-all", func(s *costmodel.StepTime) hardware.Seconds { return s.ExposedEP }},
	{"optimizer step", func(s *costmodel.StepTime) hardware.Seconds { return s.Optimizer }},
}

// minGapShare and minStepShare bound the differences of step parts that
// stepDifferences names: at least a tenth of the difference of the two
// steps, and at least 0.01% of the longer step. Smaller ones explain
// little of the ranking and would crowd the explanation.
const (
	minGapShare  = 0.1
	minStepShare = 1e-4
)

// stepDifferences lists the parts of the two breakdowns whose difference
// is large enough to explain the ranking (minGapShare, minStepShare; the
// one that differs most in any case), largest difference first, each with
// its share of its own step and what drives it.
func stepDifferences(a, b Ranked) []string {
	sa, sb := &a.Performance.Breakdown, &b.Performance.Breakdown
	type diff struct {
		i    int
		d    hardware.Seconds
		x, y hardware.Seconds
	}
	var ds []diff
	for i, p := range stepParts {
		x, y := p.of(sa), p.of(sb)
		if x != y {
			ds = append(ds, diff{i, abs(x - y), x, y})
		}
	}
	slices.SortStableFunc(ds, func(p, q diff) int { return cmp.Compare(q.d, p.d) })
	least := max(minGapShare*float64(abs(sa.Total-sb.Total)), minStepShare*float64(max(sa.Total, sb.Total)))
	var out []string
	for k, d := range ds {
		if k > 0 && float64(d.d) < least {
			break
		}
		line := fmt.Sprintf("%s %v vs %v (%s vs %s of the step)", stepParts[d.i].name, d.x, d.y,
			percent(share(d.x, sa.Total)), percent(share(d.y, sb.Total)))
		out = append(out, line+partContext(stepParts[d.i].name, a, b))
	}
	return out
}

// partContext says what drives a step part in the two plans.
func partContext(name string, a, b Ranked) string {
	switch name {
	case "pipeline bubble":
		return fmt.Sprintf(": pp %d vs %d, %d vs %d micro-batches, vpp %d vs %d", a.Plan.PP, b.Plan.PP,
			a.MicroBatches, b.MicroBatches, a.Plan.VPP, b.Plan.VPP)
	case "recompute":
		return fmt.Sprintf(": %s vs %s, hardware FLOPs %s vs %s above the model's", a.Plan.Recompute, b.Plan.Recompute,
			percent(extraFLOPs(a.Performance)), percent(extraFLOPs(b.Performance)))
	case "compute":
		return fmt.Sprintf(": the slowest stage, %d vs %d micro-batches", a.MicroBatches, b.MicroBatches)
	}
	return ""
}

func share(x, total hardware.Seconds) float64 {
	if total == 0 {
		return 0
	}
	return float64(x / total)
}

func abs(s hardware.Seconds) hardware.Seconds {
	if s < 0 {
		return -s
	}
	return s
}

// extraFLOPs is the share of hardware FLOPs above the model's: the
// recomputed forward passes.
func extraFLOPs(p costmodel.Performance) float64 {
	if p.MFU == 0 {
		return 0
	}
	return p.HFU/p.MFU - 1
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
		{"ep", a.EP, b.EP}, {"etp", a.ETP, b.ETP}, {"zero", a.ZeRO, b.ZeRO}, {"mbs", a.MicroBatch, b.MicroBatch}}
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

// units prints a rate in whole units, so that two close rates stay
// distinguishable ("10043 vs 10021"); below 100, one decimal.
func units(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
