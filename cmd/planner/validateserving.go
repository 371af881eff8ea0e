package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/servingcal"
)

// servingValidation is the JSON of `planner validate --serving`.
type servingValidation struct {
	Params            servingcal.Params    `json:"params"`
	Overall           servingcal.Summary   `json:"overall"`
	ByEngineGen       []servingcal.Summary `json:"by_engine_generation"`
	LeaveOneEngineOut []servingcal.HeldOut `json:"leave_one_engine_out,omitempty"`
	Results           []servingcal.Result  `json:"results"`
	Skipped           []servingcal.Skip    `json:"skipped"`
}

// runValidateServing scores the serving model on measured-serving.csv.
func runValidateServing(w io.Writer, asJSON, loeo bool, top int, wide bool) error {
	pts, err := servingcal.Load()
	if err != nil {
		return err
	}
	cases, skipped := servingcal.Cases(pts)
	p := servingcal.Defaults()
	res, unpriced := servingcal.Evaluate(cases, p)
	v := servingValidation{Params: p, Overall: servingcal.Summarize(res, servingcal.Overall)[0],
		ByEngineGen: servingcal.Summarize(res, servingcal.ByEngineGeneration), Results: res, Skipped: append(skipped, unpriced...)}
	if loeo {
		if v.LeaveOneEngineOut, err = servingcal.LeaveOneEngineOut(cases, p, 300); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(w, v)
	}
	writeServingValidation(w, v, len(pts), top, wide)
	return nil
}

func writeServingValidation(w io.Writer, v servingValidation, points, top int, wide bool) {
	var unmodeled, cold []servingcal.Skip
	for _, s := range v.Skipped {
		if s.NotComparable {
			cold = append(cold, s)
		} else {
			unmodeled = append(unmodeled, s)
		}
	}
	fmt.Fprintln(w, wrapText(fmt.Sprintf("serving calibration set: %d points of costmodel/servingcal/testdata/measured-serving.csv (embedded); %d priced, %d not modeled, %d not comparable",
		points, len(v.Results), len(unmodeled), len(cold)), textWidth, "  "))
	fmt.Fprintln(w, "\nfitted parameters (Nelder-Mead on every priced row, mean |ln(predicted/measured)| of TTFT and TPOT):")
	for _, e := range sortedKeys(v.Params.Overhead) {
		fmt.Fprintf(w, "  %-7s step overhead %v, request overhead %v\n", e, v.Params.Overhead[e], v.Params.RequestOverhead[e])
	}
	for _, f := range sortedKeys(v.Params.FrontendOverhead) {
		if o := v.Params.FrontendOverhead[f]; o > 0 {
			fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("%-7s front end: request overhead %v more (the sweeps' deployment; the InferenceMAX points reach the engines' own servers)", f, o), textWidth-2, "    "))
		}
	}
	for _, g := range []string{"hopper", "blackwell", "ampere"} {
		for k, s := range v.Params.Shares {
			if string(k) == g {
				fmt.Fprintf(w, "  %s\n", wrapText(fmt.Sprintf("%-9s HBM share %.3f, %s", g, s.HBM, flopShares(k, s)), textWidth-2, "    "))
			}
		}
	}
	fmt.Fprintf(w, "  %s\n", wrapText("measured kernels: "+costmodel.SrcKernelShares, textWidth-2, "    "))
	for _, h := range sortedKeys(v.Params.Rounds) {
		fmt.Fprintf(w, "  %-12s harness: %.3g requests per client\n", h, v.Params.Rounds[h])
	}
	fmt.Fprintln(w, "\naccuracy (median |error| and signed median; targets 15% and +-8%):")
	t := table{header: []string{"group", "rows", "TTFT |err|", "TTFT signed", "TPOT |err|", "TPOT signed"},
		right: []bool{false, true, true, true, true, true}}
	add := func(s servingcal.Summary) {
		t.add(s.Group, strconv.Itoa(s.Rows), pctErr(s.TTFTMedian), signed(s.TTFTSigned), pctErr(s.TPOTMedian), signed(s.TPOTSigned))
	}
	for _, s := range v.ByEngineGen {
		add(s)
	}
	add(v.Overall)
	for _, h := range v.LeaveOneEngineOut {
		h.Summary.Group = "without " + h.Engine + " (refit)"
		add(h.Summary)
	}
	t.write(w, textStyle)
	writeServingRows(w, v.Results, top, wide)
	writeServingSkips(w, "not modeled", unmodeled)
	writeServingSkips(w, "not comparable (measured with a cost or a setting the model does not price; neither fitted nor scored)", cold)
}

// writeServingSkips lists skipped points under title, with the reasons.
func writeServingSkips(w io.Writer, title string, skips []servingcal.Skip) {
	if len(skips) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrapText(title+":", textWidth, ""))
	for _, s := range skips {
		fmt.Fprintf(w, "  %s\n", wrapText(s.Point.ID+": "+s.Reason, textWidth-2, "    "))
	}
}

// writeServingRows prints the rows with the largest TTFT errors first
// (all with top 0). Within textWidth columns it leaves out each row's id,
// weights and predicted TPOT; wide prints them.
func writeServingRows(w io.Writer, res []servingcal.Result, top int, wide bool) {
	rows := append([]servingcal.Result(nil), res...)
	sort.SliceStable(rows, func(i, j int) bool { return abs(rows[i].TTFTError) > abs(rows[j].TTFTError) })
	if top > 0 && top < len(rows) {
		rows = rows[:top]
		fmt.Fprintf(w, "\nthe %d rows with the largest TTFT error (--top 0 for all):\n", top)
	} else {
		fmt.Fprintln(w, "\nevery row:")
	}
	t := table{header: []string{"id", "engine", "gpu", "model", "layout", "weights", "conc", "isl/osl", "TTFT meas", "pred", "err", "TPOT meas", "pred", "err"},
		right: []bool{false, false, false, false, false, false, true, true, true, true, true, true, true, true}}
	if !wide {
		writeNarrowServingRows(w, rows)
		return
	}
	for _, r := range rows {
		t.add(r.ID, r.Engine, r.GPU, r.Model, r.Layout, r.Weights, fmt.Sprintf("%g", r.Concurrency), fmt.Sprintf("%d/%d", r.Input, r.Output),
			ms(r.MeasuredTTFT), ms(r.PredictedTTFT), signed(r.TTFTError), ms(r.MeasuredTPOT), ms(r.PredictedTPOT), signed(r.TPOTError))
	}
	t.write(w, textStyle)
}

// writeNarrowServingRows is writeServingRows's table within textWidth.
func writeNarrowServingRows(w io.Writer, rows []servingcal.Result) {
	t := table{header: []string{"engine", "gpu", "model", "layout", "conc", "isl/osl", "TTFT", "pred", "err", "TPOT", "err"},
		right: []bool{false, false, false, false, true, true, true, true, true, true, true}}
	for _, r := range rows {
		t.add(r.Engine, r.GPU, r.Model, r.Layout, fmt.Sprintf("%g", r.Concurrency), fmt.Sprintf("%d/%d", r.Input, r.Output),
			short(r.MeasuredTTFT), short(r.PredictedTTFT), signed0(r.TTFTError), short(r.MeasuredTPOT), signed0(r.TPOTError))
	}
	t.write(w, textStyle)
	fmt.Fprintln(w, "  (TTFT and TPOT measured, pred the model; --wide adds each row's id, weights and predicted TPOT)")
}

func pctErr(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
func signed(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

// signed0 is signed to the percent, for the narrow tables.
func signed0(x float64) string { return fmt.Sprintf("%+.0f%%", 100*x) }
func ms(s float64) string      { return fmt.Sprintf("%.1f ms", 1e3*s) }

// short is a duration in three significant digits, in ms below a second.
func short(s float64) string {
	if s >= 1 {
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	}
	return strconv.FormatFloat(1e3*s, 'g', 3, 64) + " ms"
}
func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// flopShares describes the FLOP shares of generation g: its fitted one,
// or the measured kernels' (costmodel.MeasuredKernelShares).
func flopShares(g costmodel.Generation, s costmodel.Shares) string {
	k, ok := costmodel.MeasuredKernelShares[g]
	if s.FLOP > 0 || !ok {
		return fmt.Sprintf("FLOP share %.3f", s.FLOP)
	}
	out := fmt.Sprintf("measured kernels: GEMM bf16 %.3f, fp8 %.3f", k.BF16, k.FP8)
	if k.FP4 > 0 {
		out += fmt.Sprintf(", fp4 %.3f", k.FP4)
	}
	out += fmt.Sprintf(", attention %.3f; MoE GEMM bf16 %.3f, fp8 %.3f", k.Attention, k.MoE[0], k.MoE[1])
	if k.MoE[2] > 0 {
		out += fmt.Sprintf(", fp4 %.3f", k.MoE[2])
	}
	return out
}
