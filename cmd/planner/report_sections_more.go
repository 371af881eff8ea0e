package main

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/view"
)

// frontierSection is the Pareto frontier of GPUs against throughput,
// with the time to train of each count when --tokens is given.
func (rv *review) frontierSection() section {
	s := section{id: "frontier", title: "Pareto frontier: GPUs against throughput"}
	if len(rv.frontier) == 0 {
		s.paras = []string{"No frontier: nothing fits at any count searched."}
		return s
	}
	s.paras = []string{fmt.Sprintf("The best plan of each GPU count from %d to %d that is faster than every smaller count's.",
		rv.frontier[0].GPUs, rv.frontier[len(rv.frontier)-1].GPUs)}
	svg, err := view.FrontierChart("Tokens per second against GPUs", rv.frontier)
	s.charts = []chart{{svg, err}}
	t := tableData{header: []string{"GPUs", "plan", "tokens/s", "tokens/s/GPU", "MFU", "step time", "peak/GPU"}}
	if rv.spec.on {
		t.header = append(t.header, "time to train", "GPU-hours", "cost (USD)")
	}
	for _, p := range rv.frontier {
		pf := p.Performance
		row := []string{fmt.Sprint(p.GPUs), p.PlanString, hardware.Grouped(pf.TokensPerSecond), hardware.Grouped(pf.TokensPerSecondPerGPU),
			pct(pf.MFU), pf.StepTime.String(), p.Peak.String()}
		if rv.spec.on {
			run := rv.spec.of(p.GPUs, pf.TokensPerSecond, rv.r.Cluster.GPU)
			row = append(row, days(run.Time), hardware.Number(run.GPUHours), costText(run))
		}
		t.rows = append(t.rows, row)
	}
	s.tables = []tableData{t}
	return s
}

// missesSection shows the plans nearest to fitting on fewer GPUs (or on
// the count asked, when nothing fits there) and the levers of the
// nearest.
func (rv *review) missesSection() section {
	s := section{id: "misses", title: "Nearest misses and their levers"}
	n := rv.near
	switch {
	case n == nil:
		s.paras = []string{"No smaller whole-node cluster to compare with."}
		return s
	case len(n.Plans) > 0:
		s.paras = []string{fmt.Sprintf("On %d GPUs plans still fit; the best is %s at %v per step, so nothing is missed there.",
			n.GPUs, n.Plans[0].PlanString, n.Plans[0].Performance.StepTime)}
		return s
	case len(n.Misses) == 0:
		s.paras = []string{"Nothing came near to fitting."}
		return s
	}
	s.paras = []string{fmt.Sprintf("On %d GPUs nothing fits the %v budget; the nearest plans and what would shrink the first:", n.Misses[0].GPUs, n.Budget)}
	t := tableData{header: []string{"plan", "peak/GPU", "over budget"}}
	for _, m := range n.Misses {
		t.rows = append(t.rows, []string{m.PlanString, m.Peak.String(), m.Over.String()})
	}
	l := tableData{caption: "Levers of " + n.Misses[0].PlanString, header: []string{"change", "peak/GPU", "fits", "why"}}
	for _, lv := range n.Levers {
		l.rows = append(l.rows, []string{lv.Change, lv.Peak.String(), yesNo(lv.Fits), lv.Why})
	}
	s.tables = []tableData{t, l}
	return s
}

func (rv *review) sensitivitySection() section {
	s := section{id: "sensitivity", title: "Sensitivity"}
	if len(rv.shifts) == 0 {
		s.paras = []string{"No winner to perturb."}
		return s
	}
	win := rv.r.Plans[0]
	s.paras = []string{fmt.Sprintf("The search re-run under each change; the winner %s takes %v per step.", win.PlanString, win.Performance.StepTime),
		capitalize(verdict(rv.shifts)) + "."}
	t := tableData{header: []string{"change", "winner stays", "winner's step time", "winner under the change"}}
	for _, sh := range rv.shifts {
		t.rows = append(t.rows, []string{sh.Change, yesNo(sh.Stays), stepMove(win.Performance.StepTime, sh), newWinner(sh)})
	}
	s.tables = []tableData{t}
	return s
}

// calibrationSection shows the measured rows behind the numbers on this
// GPU and format, or says the numbers are extrapolated.
func (rv *review) calibrationSection() section {
	c := rv.calib
	s := section{id: "calibration", title: "Calibration behind the numbers"}
	if len(c.results) == 0 {
		s.paras = []string{fmt.Sprintf("Extrapolated: none of the %d measured rows planner validate compares ran on %s in %s; the step times rest on the fitted efficiencies alone.",
			c.total, c.gpu, c.precision)}
		return s
	}
	s.paras = []string{fmt.Sprintf("%d of the %d measured rows of planner validate ran on %s in %s: mean error %.1f%%, largest %.1f%%.",
		len(c.results), c.total, c.gpu, c.precision, 100*c.meanAbs, 100*c.maxAbs)}
	t := tableData{header: []string{"row", "source", "model", "GPUs", "plan", "measured", "predicted", "error"}}
	for _, r := range c.results {
		t.rows = append(t.rows, []string{r.Row.ID(), r.Row.Source(), r.Model.Name, fmt.Sprint(r.Plan.GPUs()), r.Plan.String(),
			value(r.Target.Metric, r.Measured), value(r.Target.Metric, r.Predicted), fmt.Sprintf("%+.1f%%", 100*r.Err)})
	}
	s.tables = []tableData{t}
	return s
}

func (rv *review) runSection() section {
	s := section{id: "run", title: fmt.Sprintf("The whole run: %s tokens", hardware.Number(rv.spec.s.Tokens))}
	sum := searchRuns(rv.spec, rv.r)
	t := tableData{header: []string{"#", "plan", "GPUs", "time to train", "GPU-hours", "cost (USD)", "energy"}}
	for _, row := range sum.Plans {
		t.rows = append(t.rows, []string{fmt.Sprint(row.Rank), row.Plan, fmt.Sprint(row.Run.GPUs), days(row.Run.Time),
			hardware.Number(row.Run.GPUHours), costText(row.Run), energyText(row.Run)})
	}
	s.tables = []tableData{t}
	st := rv.spec.s.WithDefaults()
	s.paras = []string{"Time to train = tokens / tokens per second, steady state: no restarts, checkpoints or failures.",
		fmt.Sprintf("Energy = GPUs x TDP x %g%% power utilization x PUE %g x time, GPU boards only; TDP: %s.", 100*st.PowerUtilization, st.PUE, sum.TDPSource)}
	return s
}

func (rv *review) launchSection() section {
	s := section{id: "launch", title: "Launch configs"}
	if len(rv.exports) == 0 {
		s.paras = []string{"No winner to launch."}
		return s
	}
	s.paras = []string{"The winner, " + rv.r.Plans[0].PlanString + ", as each framework's launch configuration (names checked against the frameworks' sources at pinned commits)."}
	for _, e := range rv.exports {
		text := e.text
		if e.err != nil {
			text = e.err.Error() + "\n"
		}
		s.blocks = append(s.blocks, block{title: string(e.fw), text: text})
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
