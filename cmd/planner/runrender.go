package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/trainrun"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// runRow is one plan's whole run.
type runRow struct {
	Rank          int          `json:"rank"`
	Plan          string       `json:"plan"`
	Run           trainrun.Run `json:"run"`
	MeetsDeadline bool         `json:"meets_deadline"`
}

// runSummary is the whole-run section of a search: the runs of the
// ranked plans and of the frontier, in --rank-by order (those that meet
// the deadline first), and the pick: the first that meets it.
type runSummary struct {
	Tokens    float64  `json:"tokens"`
	RankBy    string   `json:"rank_by"`
	DeadlineS float64  `json:"deadline_s,omitempty"`
	Plans     []runRow `json:"plans"`
	Frontier  []runRow `json:"frontier,omitempty"`
	Pick      *runRow  `json:"pick,omitempty"`
	GPU       string   `json:"gpu"`
	TDPSource string   `json:"tdp_source,omitempty"`
}

// searchRuns builds the whole-run section of a search result.
func searchRuns(spec runSpec, r *search.Result) runSummary {
	g := r.Cluster.GPU
	s := runSummary{Tokens: spec.s.Tokens, RankBy: cmp.Or(spec.rankBy, rankThroughput), DeadlineS: float64(spec.deadline),
		Plans: spec.rows(r.Plans, g), Frontier: spec.rows(r.Frontier, g), GPU: g.Name, TDPSource: g.Sources["tdp"]}
	pool := s.Plans
	if len(s.Frontier) > 0 {
		pool = s.Frontier
	}
	if len(pool) > 0 && pool[0].MeetsDeadline {
		s.Pick = &pool[0]
	}
	return s
}

// rows are the runs of plans, sorted by the spec's order with the
// plans that meet the deadline first; ties keep the search's order.
func (spec runSpec) rows(plans []search.Ranked, g hardware.GPU) []runRow {
	if len(plans) == 0 {
		return nil
	}
	out := make([]runRow, len(plans))
	for i, p := range plans {
		run := spec.of(p.GPUs, p.Performance.TokensPerSecond, g)
		out[i] = runRow{Plan: p.PlanString, Run: run, MeetsDeadline: spec.meets(run.Time)}
	}
	slices.SortStableFunc(out, func(a, b runRow) int {
		if a.MeetsDeadline != b.MeetsDeadline {
			return map[bool]int{true: -1, false: 1}[a.MeetsDeadline]
		}
		switch spec.rankBy {
		case rankTime:
			return cmp.Compare(a.Run.Time, b.Run.Time)
		case rankCost:
			return cmp.Compare(a.Run.GPUHours, b.Run.GPUHours)
		}
		return 0
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// writeRunsText prints the whole-run section.
func writeRunsText(w io.Writer, s runSummary, spec runSpec) {
	fmt.Fprintf(w, "\nwhole run: %s tokens at the step times above, ranked by %s%s\n", hardware.Number(s.Tokens), s.RankBy, deadlineNote(spec))
	fmt.Fprintln(w, "(time to train = tokens / tokens per second, steady state: no restarts, checkpoints or failures):")
	writeRunTable(w, "plan", s.Plans, spec)
	if n := len(s.Frontier); n > 0 {
		shown := s.Frontier
		if spec.top > 0 && n > spec.top {
			shown = shown[:spec.top]
		}
		writeRunTable(w, "frontier", shown, spec)
		if len(shown) < n {
			fmt.Fprintf(w, "  (%d more frontier counts: --json lists all)\n", n-len(shown))
		}
	}
	writePick(w, s, spec)
	writeRunAssumptions(w, s, spec)
}

func deadlineNote(spec runSpec) string {
	if spec.deadline == 0 {
		return ""
	}
	return fmt.Sprintf(", those within the %s deadline first", days(spec.deadline))
}

func writeRunTable(w io.Writer, what string, rows []runRow, spec runSpec) {
	pw := len("plan")
	for _, r := range rows {
		pw = max(pw, len(r.Plan))
	}
	fmt.Fprintf(w, "  %3s  %-*s %6s %14s %11s %12s %10s%s\n", "#", pw, what, "GPUs", "time to train", "GPU-hours", "cost (USD)", "energy", deadlineHead(spec))
	for _, r := range rows {
		fmt.Fprintf(w, "  %3d  %-*s %6d %14s %11s %12s %10s%s\n", r.Rank, pw, r.Plan, r.Run.GPUs, days(r.Run.Time),
			hardware.Number(r.Run.GPUHours), costText(r.Run), energyText(r.Run), deadlineCell(spec, r))
	}
}

func deadlineHead(spec runSpec) string {
	if spec.deadline == 0 {
		return ""
	}
	return "  deadline"
}

func deadlineCell(spec runSpec, r runRow) string {
	switch {
	case spec.deadline == 0:
		return ""
	case r.MeetsDeadline:
		return "  meets"
	}
	return "  misses"
}

func costText(r trainrun.Run) string {
	if r.GPUHourPrice == 0 {
		return "-"
	}
	return "$" + hardware.Number(r.Cost)
}

func energyText(r trainrun.Run) string {
	if r.TDP == 0 {
		return "-"
	}
	return r.Energy.String()
}

// writePick says which plan the order and the deadline choose.
func writePick(w io.Writer, s runSummary, spec runSpec) {
	switch {
	case s.Pick != nil && spec.deadline > 0:
		fmt.Fprintf(w, "pick: %s on %d GPUs, %s within the %s deadline, %s GPU-hours%s\n", s.Pick.Plan, s.Pick.Run.GPUs,
			days(s.Pick.Run.Time), days(spec.deadline), hardware.Number(s.Pick.Run.GPUHours), costSuffix(s.Pick.Run))
	case spec.deadline > 0:
		fmt.Fprintf(w, "no plan searched meets the %s deadline; give more GPUs (--max-gpus, --gpus) or fewer tokens\n", days(spec.deadline))
	}
}

func costSuffix(r trainrun.Run) string {
	if r.GPUHourPrice == 0 {
		return ""
	}
	return ", $" + hardware.Number(r.Cost)
}

// writeRunAssumptions states the price and power behind the figures.
func writeRunAssumptions(w io.Writer, s runSummary, spec runSpec) {
	st := spec.s.WithDefaults()
	if st.GPUHourPrice > 0 {
		fmt.Fprintf(w, "cost = GPU-hours x $%g per GPU-hour\n", st.GPUHourPrice)
	}
	if len(s.Plans) == 0 || s.Plans[0].Run.TDP == 0 {
		fmt.Fprintf(w, "energy: not given, %s has no TDP in the catalog\n", s.GPU)
		return
	}
	fmt.Fprintf(w, "energy = GPUs x %v TDP x %g%% power utilization x PUE %g x time, GPU boards only (no hosts, NICs or switches)\n",
		s.Plans[0].Run.TDP, 100*st.PowerUtilization, st.PUE)
	fmt.Fprintf(w, "  TDP: %s\n", s.TDPSource)
	fmt.Fprintln(w, "  utilization: peak power, as Llama 2 accounted its training (Touvron et al. 2023, sec. 2.2.1); measured draw is lower")
	fmt.Fprintln(w, "  PUE 1.2 default: between Google's 2023 fleet (1.10) and the Uptime Institute 2023 survey average (1.58)")
}

// writeRunsMarkdown prints the whole-run section as Markdown tables.
func writeRunsMarkdown(w io.Writer, spec runSpec, r *search.Result) {
	if !spec.on {
		return
	}
	s := searchRuns(spec, r)
	fmt.Fprintf(w, "\n## Whole run: %s tokens\n\nRanked by %s%s. Time to train = tokens / tokens per second, steady state (no restarts, checkpoints or failures).\n",
		hardware.Number(s.Tokens), s.RankBy, deadlineNote(spec))
	for _, t := range []struct {
		name string
		rows []runRow
	}{{"plan", s.Plans}, {"frontier plan", s.Frontier}} {
		if len(t.rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n| # | %s | GPUs | time to train | GPU-hours | cost (USD) | energy | deadline |\n|---:|---|---:|---:|---:|---:|---:|---|\n", t.name)
		for _, row := range t.rows {
			fmt.Fprintf(w, "| %d | `%s` | %d | %s | %s | %s | %s | %s |\n", row.Rank, row.Plan, row.Run.GPUs, days(row.Run.Time),
				hardware.Number(row.Run.GPUHours), costText(row.Run), energyText(row.Run), cmp.Or(deadlineCell(spec, row), "-"))
		}
	}
	fmt.Fprintln(w)
	writePick(w, s, spec)
	writeRunAssumptions(w, s, spec)
}

// estimateWithRun is a training estimate in JSON with its whole run.
type estimateWithRun struct {
	*costmodel.Report
	Run trainrun.Run `json:"run"`
}

func writeEstimateJSON(w io.Writer, r *costmodel.Report, spec runSpec) error {
	if !spec.on {
		return writeJSON(w, r)
	}
	return writeJSON(w, estimateWithRun{r, spec.of(r.Plan.GPUs(), r.Performance.TokensPerSecond, r.Cluster.GPU)})
}

// writeEstimateRun prints the whole run of one estimated plan.
func writeEstimateRun(w io.Writer, r *costmodel.Report, spec runSpec) {
	if !spec.on {
		return
	}
	run := spec.of(r.Plan.GPUs(), r.Performance.TokensPerSecond, r.Cluster.GPU)
	row := runRow{Rank: 1, Plan: r.PlanString, Run: run, MeetsDeadline: true}
	s := runSummary{Tokens: run.Tokens, RankBy: rankThroughput, Plans: []runRow{row}, GPU: r.Cluster.GPU.Name, TDPSource: r.Cluster.GPU.Sources["tdp"]}
	fmt.Fprintf(w, "\nwhole run: %s tokens at this step time (time to train = tokens / tokens per second, steady state):\n", hardware.Number(run.Tokens))
	writeRunTable(w, "plan", s.Plans, spec)
	writeRunAssumptions(w, s, spec)
}
