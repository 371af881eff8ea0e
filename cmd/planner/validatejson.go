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

type skipOut struct {
	RowID  string `json:"row_id"`
	Source string `json:"source_id"`
	Reason string `json:"reason"`
}

func validationJSON(cmp calibration.Comparison, fit calibration.FitResult, fs []calibration.Feasible, l calibration.LOSO,
	checks []calibration.Check) validationOut {
	out := validationOut{Fit: fit, FitOn: calibration.FitSubset, Sources: cmp.Sources, All: cmp.All, HeldOut: cmp.HeldOut,
		Original: cmp.Original, MoE: cmp.MoE, Groups: cmp.Groups, Targets: checks,
		LOSO:     losoOut{Sources: l.Sources, All: l.All, Unfitted: append([]string{}, l.Unfitted...), Fits: l.Fits},
		Formulas: "step time and layer time in seconds, tokens/s per GPU; relative_error = predicted/measured - 1",
		Rows:     []resultOut{}, Memory: []feasibleOut{}, Skipped: []skipOut{}}
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
