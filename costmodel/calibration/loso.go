package calibration

import (
	"errors"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// LOSO is the leave-one-source-out error: each source's rows predicted
// with parameters fitted on the fit set without that source.
type LOSO struct {
	// Results are every compared row, predicted by the fit that did not
	// see its source.
	Results []Result
	// Sources summarizes each source, sorted; All every row.
	Sources []Summary
	All     Summary
	// Unfitted lists the sources whose removal empties the fit set: they
	// are predicted with the base values, unfitted.
	Unfitted []string
	// Fits is the number of distinct fits run.
	Fits int
}

// LeaveOneSourceOut refits params without each source in turn (fits with
// the same training rows are shared) and predicts that source's cases.
// iterations bounds each Nelder-Mead run; 60 keeps it inside a test.
func LeaveOneSourceOut(cases []Case, in func(Case) bool, params []Param, base costmodel.Assumptions, iterations int) (LOSO, error) {
	bySource := map[string][]Case{}
	for _, c := range cases {
		bySource[c.Row.Source()] = append(bySource[c.Row.Source()], c)
	}
	var ids []string
	for id := range bySource {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fits := map[string]costmodel.Assumptions{}
	var out LOSO
	for _, id := range ids {
		train := func(c Case) bool { return in(c) && c.Row.Source() != id }
		a, fresh, err := cachedFit(fits, cases, train, params, base, iterations)
		if errors.Is(err, ErrNoFitRows) {
			out.Unfitted = append(out.Unfitted, id)
			a, err = base, nil
		}
		if err != nil {
			return LOSO{}, err
		}
		if fresh {
			out.Fits++
		}
		var rs []Result
		for _, c := range bySource[id] {
			if r, err := Predict(c, a); err == nil {
				rs = append(rs, r)
			}
		}
		out.Results = append(out.Results, rs...)
		out.Sources = append(out.Sources, summarize(id, rs))
	}
	out.All = summarize("leave one source out", out.Results)
	return out, nil
}

// cachedFit fits on the rows train selects, reusing an earlier fit of the
// same rows.
func cachedFit(fits map[string]costmodel.Assumptions, cases []Case, train func(Case) bool, params []Param,
	base costmodel.Assumptions, iterations int) (costmodel.Assumptions, bool, error) {
	var key []string
	for _, c := range cases {
		if train(c) {
			key = append(key, c.Row.ID())
		}
	}
	k := strings.Join(key, ",")
	if a, ok := fits[k]; ok {
		return a, false, nil
	}
	f, err := FitOn(cases, train, params, base, iterations)
	if err != nil {
		return base, false, err
	}
	fits[k] = f.Apply(base)
	return fits[k], true, nil
}
