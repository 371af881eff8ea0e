package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/calibration"
	"github.com/gpu-planner/planner/hardware"
)

func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", stderr)
	csvPath := fs.String("csv", "", "calibration CSV to read (default: the embedded copies of costmodel/calibration/testdata/measured.csv and measured-modern.csv)")
	asJSON := fs.Bool("json", false, "print JSON")
	refit := fs.Bool("refit", false, "refit the parameters from their starting values (slow) instead of checking the defaults, and refit each leave-one-source-out fit longer")
	serving := fs.Bool("serving", false, "check the serving model against costmodel/servingcal/testdata/measured-serving.csv instead")
	loeo := fs.Bool("leave-one-engine-out", false, "with --serving: also refit without each engine and score it (about a minute)")
	top := fs.Int("top", 20, "with --serving: rows to list, largest TTFT error first (0: all)")
	wide := fs.Bool("wide", false, "text tables with every column (each row's assumed settings, memory budgets and reasons), past 100 columns")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *top < 0 {
		return badInputf("--top %d: give a positive number of rows, or 0 for all", *top)
	}
	if *serving {
		return runValidateServing(stdout, *asJSON, *loeo, *top, *wide)
	}
	rows, from, err := loadRows(*csvPath)
	if err != nil {
		return err
	}
	base := costmodel.DefaultAssumptions()
	fit, err := calibration.AtDefaults(rows, base)
	iterations := losoIterations
	if *refit {
		fit, err = calibration.Fit(rows, base)
		iterations = 60
	}
	if err != nil && !errors.Is(err, calibration.ErrNoFitRows) {
		return err
	}
	cmp := calibration.Compare(rows, base)
	feasible, _ := calibration.Feasibility(rows, base)
	memory := calibration.Memory(rows, base)
	cases, _ := calibration.Cases(rows)
	loso, err := calibration.LeaveOneSourceOut(cases, calibration.InFit, calibration.Params, base, iterations)
	if err != nil {
		return err
	}
	checks := calibration.Targets(cmp, loso)
	if *asJSON {
		return writeJSON(stdout, validationJSON(cmp, fit, feasible, memory, loso, checks))
	}
	fmt.Fprintln(stdout, wrapText(fmt.Sprintf("calibration set: %d rows, %d compared, %d not modeled; from %s", len(rows), len(cmp.Results), len(cmp.Skipped), from), textWidth, "  "))
	writeFit(stdout, fit, base)
	writeAsyncTPFit(stdout, rows, base)
	writeResults(stdout, cmp.Results, *wide)
	writeSummaries(stdout, cmp)
	writePresets(stdout, cmp.Results)
	writeGroups(stdout, cmp)
	writeLOSO(stdout, loso)
	writeTargets(stdout, checks)
	writeMemoryTable(stdout, memory, *wide)
	writeSkipped(stdout, cmp.Skipped)
	return nil
}

// losoIterations is the Nelder-Mead budget of each leave-one-source-out
// refit: coarse, since each refit starts at the full fit's optimum (the
// defaults) and only moves from there (--refit: 60).
const losoIterations = 15

func loadRows(path string) ([]calibration.Row, string, error) {
	if path == "" {
		rows, err := calibration.Load()
		return rows, "costmodel/calibration/testdata/measured.csv and measured-modern.csv (embedded)", err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", badInput(err)
	}
	defer f.Close()
	rows, err := calibration.Read(f)
	return rows, path, badInput(err)
}

func writeFit(w io.Writer, f calibration.FitResult, d costmodel.Assumptions) {
	if f.Points == 0 {
		fmt.Fprintf(w, "\nfitted parameters: the data has no %s rows to fit; the defaults are used (GEMM %.3f, HBM %.3f)\n",
			calibration.FitSubset, d.GEMMEfficiency, d.HBMEfficiency)
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(fmt.Sprintf("fitted parameters (Nelder-Mead, squared log error, on the fit set %s: %d measured times; every other row is held out):",
		calibration.FitSubset, f.Points), textWidth, "  "))
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("GEMM %.3f and attention %.3f of the measured kernel speed (costmodel/efficiency; defaults %.3f, %.3f); held, not fitted: NVLink bus bandwidth %s, HBM efficiency %.3f (fitted on %s)",
		f.Values[0].Value, f.Values[1].Value, d.GEMMEfficiency, d.AttentionEfficiency, nvlinkShare(d),
		d.HBMEfficiency, "korthikanti2022_table4"), textWidth, "    "))
	how := fmt.Sprintf("refitted in %d evaluations", f.Evaluations)
	if f.Evaluations == 0 {
		how = "at the defaults, which a test holds to the fit (--refit refits)"
	}
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("fit quality: RMS log error %.2f%%, largest error %.2f%%, %s",
		100*f.RMSLogError, 100*f.MaxAbsError, how), textWidth, "    "))
}

// writeAsyncTPFit prints the async TP contention share and its fit on
// torchtitan's AsyncTP pairs (calibration.FitAsyncTPContention), when
// the rows hold them.
func writeAsyncTPFit(w io.Writer, rows []calibration.Row, d costmodel.Assumptions) {
	s, at, ok := calibration.FitAsyncTPContention(rows, d)
	if !ok {
		return
	}
	var pairs []string
	for _, p := range at {
		pairs = append(pairs, fmt.Sprintf("%s/%s %.3fx (measured %.3fx)", p.Async, p.Vanilla, p.Predicted, p.Measured))
	}
	fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("async TP contention %.2f (GEMM seconds per second of transfer async TP hides; default %.2f), fitted apart, golden section on the async over vanilla TP speed-ups of torchtitan's AsyncTP pairs: %s; Transformer Engine's TP overlap share held at %.2f",
		s, d.AsyncTPContention, strings.Join(pairs, ", "), d.TPOverlapShare), textWidth, "    "))
}

// value formats a measurement in its metric.
func value(m calibration.Metric, v float64) string {
	switch m {
	case calibration.TokensPerGPU:
		return hardware.Number(v) + " tok/s"
	case calibration.LayerTime:
		return hardware.Seconds(v).String() + " layer"
	}
	return hardware.Seconds(v).String()
}

// writeResults prints each compared row; the settings the planner
// assumed for it only with wide, so the table keeps to textWidth columns.
func writeResults(w io.Writer, results []calibration.Result, wide bool) {
	assumed := func(s string) string {
		if wide {
			return s
		}
		return ""
	}
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("\n%-6s %-30s %-24s %13s %13s %8s  %s", "row", "source", "model", "predicted", "measured", "error",
		assumed("assumed (not stated by the source)")), " "))
	for _, r := range results {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-6s %-30s %-24s %13s %13s %+7.1f%%  %s", r.Row.ID(), r.Row.Source(), clip(r.Model.Name, 24),
			value(r.Target.Metric, r.Predicted), value(r.Target.Metric, r.Measured), 100*r.Err, assumed(strings.Join(r.Assumed, ", "))), " "))
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

func writeSummaries(w io.Writer, cmp calibration.Comparison) {
	fmt.Fprintf(w, "\nabsolute error |predicted/measured - 1| of step time, tokens/s per GPU or layer time, per source:\n")
	fmt.Fprintf(w, "  %-32s %5s %12s %8s %8s %8s\n", "source", "rows", "not modeled", "mean", "median", "max")
	row := func(name string, s calibration.Summary, skipped string) {
		if s.Rows == 0 {
			fmt.Fprintf(w, "  %-32s %5d %12s %8s %8s %8s\n", name, 0, skipped, "-", "-", "-")
			return
		}
		fmt.Fprintf(w, "  %-32s %5d %12s %7.1f%% %7.1f%% %7.1f%%\n", name, s.Rows, skipped, 100*s.Mean, 100*s.Median, 100*s.Max)
	}
	for _, s := range cmp.Sources {
		row(s.Source, s, fmt.Sprint(s.Skipped))
	}
	row("all compared rows", cmp.All, fmt.Sprint(cmp.All.Skipped))
	row("held out of the fit", cmp.HeldOut, "")
	row("dense rows", cmp.Dense, "")
	row("mixture-of-experts rows", cmp.MoE, fmt.Sprint(cmp.MoE.Skipped))
	if cmp.MoE.Rows > 0 {
		fmt.Fprintf(w, "  mixture-of-experts rows: signed median %+.1f%% (positive: predicted faster than measured)\n", 100*cmp.MoE.Signed)
	}
}

func writeSkipped(w io.Writer, skipped []calibration.Skip) {
	fmt.Fprintln(w, "\nnot modeled:")
	for _, s := range skipped {
		fmt.Fprintf(w, "  %-6s %-30s %s\n", s.Row.ID(), s.Row.Source(), wrapText(s.Reason, textWidth, strings.Repeat(" ", 2+6+1+30+1)))
	}
}
