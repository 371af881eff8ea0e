package servingcal

import (
	"cmp"
	"math"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
)

// Result is one modeled point: measured and predicted TTFT and TPOT in
// seconds, and the signed errors predicted/measured - 1.
type Result struct {
	ID            string               `json:"id"`
	Model         string               `json:"model"`
	GPU           string               `json:"gpu"`
	Engine        string               `json:"engine"`
	Generation    costmodel.Generation `json:"generation"`
	Layout        string               `json:"layout"`
	Weights       string               `json:"weights_dtype"`
	Concurrency   float64              `json:"concurrency"`
	Input         int                  `json:"isl"`
	Output        int                  `json:"osl"`
	MeasuredTTFT  float64              `json:"measured_ttft_s"`
	MeasuredTPOT  float64              `json:"measured_tpot_s"`
	PredictedTTFT float64              `json:"predicted_ttft_s"`
	PredictedTPOT float64              `json:"predicted_tpot_s"`
	TTFTError     float64              `json:"ttft_error"`
	TPOTError     float64              `json:"tpot_error"`
	Assumed       []string             `json:"assumed,omitempty"`
}

// Evaluate predicts every case with p; a case the model cannot price
// becomes a skip with the reason.
func Evaluate(cases []Case, p Params) ([]Result, []Skip) {
	var out []Result
	var skips []Skip
	for _, c := range cases {
		pr, err := Predict(c, p)
		if err != nil {
			skips = append(skips, Skip{Point: c.Point, Reason: err.Error()})
			continue
		}
		q := c.Point
		out = append(out, Result{ID: q.ID, Model: q.Model, GPU: q.GPU, Engine: q.Engine, Generation: c.Generation,
			Layout: c.Layout.String(), Weights: c.Plan.Weights.String(), Concurrency: q.Concurrency, Input: q.Input, Output: q.Output,
			MeasuredTTFT: q.TTFT, MeasuredTPOT: q.TPOT, PredictedTTFT: pr.TTFT, PredictedTPOT: pr.TPOT,
			TTFTError: pr.TTFT/q.TTFT - 1, TPOTError: pr.TPOT/q.TPOT - 1, Assumed: c.Assumed})
	}
	return out, skips
}

// String is "tp8-pp1", with -dpN and -epN when above 1.
func (l Layout) String() string {
	s := "tp" + itoa(l.TP) + "-pp" + itoa(l.PP)
	if l.DP > 1 {
		s += "-dp" + itoa(l.DP)
	}
	if l.EP > 1 {
		s += "-ep" + itoa(l.EP)
	}
	return s
}

func itoa(n int) string { return costmodel.FormatCount(float64(n)) }

// Summary is the accuracy of a group of results: the median of |error|
// and the signed median, for TTFT and for TPOT.
type Summary struct {
	Group      string  `json:"group"`
	Rows       int     `json:"rows"`
	TTFTMedian float64 `json:"ttft_median_abs_error"`
	TTFTSigned float64 `json:"ttft_median_signed_error"`
	TPOTMedian float64 `json:"tpot_median_abs_error"`
	TPOTSigned float64 `json:"tpot_median_signed_error"`
}

// Summarize groups results by key (sorted by group) and summarizes each.
func Summarize(results []Result, key func(Result) string) []Summary {
	groups := map[string][]Result{}
	for _, r := range results {
		groups[key(r)] = append(groups[key(r)], r)
	}
	var out []Summary
	for g, rs := range groups {
		out = append(out, summarize(g, rs))
	}
	slices.SortFunc(out, func(a, b Summary) int { return cmp.Compare(a.Group, b.Group) })
	return out
}

// summarize is one group's summary.
func summarize(group string, rs []Result) Summary {
	pick := func(f func(Result) float64) []float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return v
	}
	ttft := pick(func(r Result) float64 { return r.TTFTError })
	tpot := pick(func(r Result) float64 { return r.TPOTError })
	return Summary{Group: group, Rows: len(rs), TTFTMedian: median(absAll(ttft)), TTFTSigned: median(ttft),
		TPOTMedian: median(absAll(tpot)), TPOTSigned: median(tpot)}
}

// median is the middle value (the mean of the two middle ones for an
// even count); NaN for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// Overall is the key of one group holding every result.
func Overall(Result) string { return "all" }

// ByEngineGeneration keys results by engine and GPU generation.
func ByEngineGeneration(r Result) string { return r.Engine + " x " + string(r.Generation) }
