package main

import (
	"github.com/gpu-planner/planner/costmodel/calibration"
	"github.com/gpu-planner/planner/hardware"
)

// The JSON form of `planner validate`: every row, compared or not, the
// summaries and the fit, in raw units (seconds, tokens per second).
type validationOut struct {
	Fit      calibration.FitResult `json:"fit"`
	FitOn    string                `json:"fit_on"`
	Rows     []resultOut           `json:"rows"`
	Memory   []feasibleOut         `json:"memory"`
	MemTable memoryTableOut        `json:"memory_table"`
	Skipped  []skipOut             `json:"not_modeled"`
	Sources  []calibration.Summary `json:"sources"`
	All      calibration.Summary   `json:"all"`
	HeldOut  calibration.Summary   `json:"held_out"`
	Original calibration.Summary   `json:"first_file"`
	MoE      calibration.Summary   `json:"mixture_of_experts"`
	Groups   []calibration.Group   `json:"groups"`
	LOSO     losoOut               `json:"leave_one_source_out"`
	Targets  []calibration.Check   `json:"targets"`
	Formulas string                `json:"note"`
}

type losoOut struct {
	Sources  []calibration.Summary `json:"sources"`
	All      calibration.Summary   `json:"all"`
	Unfitted []string              `json:"unfitted"`
	Fits     int                   `json:"fits"`
}

type resultOut struct {
	RowID     string   `json:"row_id"`
	Source    string   `json:"source_id"`
	Model     string   `json:"model"`
	Framework string   `json:"framework"`
	Plan      string   `json:"plan"`
	Metric    string   `json:"metric"`
	From      string   `json:"measured_from"`
	Predicted float64  `json:"predicted"`
	Measured  float64  `json:"measured"`
	Error     float64  `json:"relative_error"`
	Optimism  float64  `json:"optimism"`
	Precision string   `json:"precision"`
	Assumed   []string `json:"assumed,omitempty"`
}

type feasibleOut struct {
	RowID         string         `json:"row_id"`
	MeasuredFits  bool           `json:"measured_fits"`
	PredictedFits bool           `json:"predicted_fits"`
	Peak          hardware.Bytes `json:"predicted_peak_bytes"`
	Budget        hardware.Bytes `json:"budget_bytes"`
}

// memoryTableOut is the memory table: every row with a measured per-GPU
// memory or an out-of-memory outcome, in bytes, and the summary.
type memoryTableOut struct {
	Rows     []memoryRowOut `json:"rows"`
	Skipped  []skipOut      `json:"not_modeled"`
	Measured int            `json:"measured_rows"`
	Within   int            `json:"within_10pct"`
	Median   float64        `json:"median_abs_error"`
	Ran      int            `json:"ran"`
	Fit      int            `json:"ran_predicted_to_fit"`
	OOM      int            `json:"out_of_memory"`
	NotFit   int            `json:"out_of_memory_predicted_not_to_fit"`
	// Unreported: the compared runs that report no memory, at the whole
	// HBM.
	Unreported    int            `json:"unreported_ran"`
	UnreportedFit int            `json:"unreported_predicted_to_fit"`
	NotFitting    []memoryRowOut `json:"unreported_not_predicted_to_fit"`
	// SingleLayers: runs that timed single layers of a plan predicted not
	// to fit as a whole model, not counted in Unreported.
	SingleLayers []memoryRowOut `json:"unreported_single_layer_runs"`
}

type memoryRowOut struct {
	RowID     string         `json:"row_id"`
	Source    string         `json:"source_id"`
	Model     string         `json:"model"`
	Ran       bool           `json:"ran"`
	Metric    string         `json:"measure"`
	Unit      string         `json:"unit,omitempty"`
	Measured  hardware.Bytes `json:"measured_bytes,omitempty"`
	Peak      hardware.Bytes `json:"predicted_peak_bytes"`
	PeakStage int            `json:"peak_stage"`
	Budget    hardware.Bytes `json:"budget_bytes"`
	WholeHBM  bool           `json:"whole_hbm"`
	Fits      bool           `json:"predicted_fits"`
	Error     *float64       `json:"relative_error,omitempty"`
	Reason    string         `json:"reason,omitempty"`
}

func memoryTableJSON(t calibration.MemoryTable) memoryTableOut {
	out := memoryTableOut{Rows: []memoryRowOut{}, Skipped: []skipOut{}, Measured: t.Measured, Within: t.Within,
		Median: t.Median, Ran: t.Ran, Fit: t.Fit, OOM: t.OOM, NotFit: t.NotFit}
	out.Unreported, out.UnreportedFit, out.NotFitting = t.Unreported.Rows, t.Unreported.Fit, []memoryRowOut{}
	for _, m := range t.Unreported.NotFit {
		out.NotFitting = append(out.NotFitting, memoryRowJSON(m))
	}
	out.SingleLayers = []memoryRowOut{}
	for _, m := range t.Unreported.Layers {
		out.SingleLayers = append(out.SingleLayers, memoryRowJSON(m))
	}
	for _, m := range t.Rows {
		out.Rows = append(out.Rows, memoryRowJSON(m))
	}
	for _, s := range t.Skipped {
		out.Skipped = append(out.Skipped, skipOut{RowID: s.Row.ID(), Source: s.Row.Source(), Reason: s.Reason})
	}
	return out
}

func memoryRowJSON(m calibration.MemoryRow) memoryRowOut {
	r := memoryRowOut{RowID: m.Row.ID(), Source: m.Row.Source(), Model: m.Row.Get("model"), Ran: m.Ran, Metric: m.Metric,
		Unit: m.Unit, Measured: m.Measured, Peak: m.Peak, PeakStage: m.PeakStage, Budget: m.Budget, WholeHBM: m.WholeHBM,
		Fits: m.Fits, Reason: m.Reason}
	if m.HasMeasured() {
		e := m.Err
		r.Error = &e
	}
	return r
}

type skipOut struct {
	RowID  string `json:"row_id"`
	Source string `json:"source_id"`
	Reason string `json:"reason"`
}

func validationJSON(cmp calibration.Comparison, fit calibration.FitResult, fs []calibration.Feasible, mt calibration.MemoryTable, l calibration.LOSO,
	checks []calibration.Check) validationOut {
	out := validationOut{Fit: fit, FitOn: calibration.FitSubset, Sources: cmp.Sources, All: cmp.All, HeldOut: cmp.HeldOut,
		Original: cmp.Original, MoE: cmp.MoE, Groups: cmp.Groups, Targets: checks,
		LOSO:     losoOut{Sources: l.Sources, All: l.All, Unfitted: append([]string{}, l.Unfitted...), Fits: l.Fits},
		Formulas: "step time and layer time in seconds, tokens/s per GPU; relative_error = predicted/measured - 1",
		Rows:     []resultOut{}, Memory: []feasibleOut{}, MemTable: memoryTableJSON(mt), Skipped: []skipOut{}}
	for _, r := range cmp.Results {
		out.Rows = append(out.Rows, resultOut{RowID: r.Row.ID(), Source: r.Row.Source(), Model: r.Model.Name,
			Framework: r.Framework(), Plan: r.Plan.String(), Metric: r.Target.Metric.String(), From: r.Target.From,
			Predicted: r.Predicted, Measured: r.Measured, Error: r.Err, Optimism: r.Optimism,
			Precision: r.Plan.Precision.String(), Assumed: r.Assumed})
	}
	for _, f := range fs {
		out.Memory = append(out.Memory, feasibleOut{RowID: f.Row.ID(), MeasuredFits: f.MeasuredFits,
			PredictedFits: f.PredictedFits, Peak: f.Peak, Budget: f.Budget})
	}
	for _, s := range cmp.Skipped {
		out.Skipped = append(out.Skipped, skipOut{RowID: s.Row.ID(), Source: s.Row.Source(), Reason: s.Reason})
	}
	return out
}
