package calibration

import (
	"fmt"
	"maps"
	"math"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
)

// srcAsyncTPBF16 is where the bf16 twins of the Llama 3 8B AsyncTP rows
// come from.
const srcAsyncTPBF16 = "pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md, Llama3 8b table, None (bfloat16)"

// asyncTPTwins are the bf16 throughputs (tokens/s/GPU) of the rowwise
// FP8 rows r0133 (vanilla TP) and r0134 (async TP) in the same source
// (srcAsyncTPBF16), which the calibration set does not keep as rows.
var asyncTPTwins = map[string]float64{"r0133": 4378, "r0134": 4809.4}

// AsyncTPPairs are torchtitan's vanilla and async TP runs of one
// configuration each (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md):
// Llama 3 70B bf16 and rowwise FP8, Llama 3 8B rowwise FP8 and bf16,
// the last pair the bf16 twins (asyncTPTwins) of r0133 and r0134.
var AsyncTPPairs = [][2]string{{"r0123", "r0124"}, {"r0127", "r0128"}, {"r0133", "r0134"}, {"r0133-bf16", "r0134-bf16"}}

// AsyncTPSpeedUp is one pair's async over vanilla TP speed-up.
type AsyncTPSpeedUp struct {
	Vanilla, Async      string
	Predicted, Measured float64
}

// bf16Twin is row r at precision prec with the measured throughput tps
// (row id r's id + "-bf16").
func bf16Twin(r Row, prec string, tps float64) (Case, error) {
	twin := Row{cols: maps.Clone(r.cols), file: r.file}
	for _, col := range []string{"step_time_s", "tflops_per_gpu", "mfu_pct", "hfu_pct", "derived_step_time_s", "derived_tokens_per_s_per_gpu", "other_metrics"} {
		twin.cols[col] = ""
	}
	twin.cols["row_id"], twin.cols["precision"] = r.ID()+"-bf16", prec
	twin.cols["tokens_per_s_per_gpu"] = strconv.FormatFloat(tps, 'f', -1, 64)
	cases, skipped := Cases([]Row{twin})
	if len(cases) != 1 {
		return Case{}, fmt.Errorf("calibration: bf16 twin of %s not modeled: %v", r.ID(), skipped)
	}
	if cases[0].Plan.Precision != costmodel.BF16 {
		return Case{}, fmt.Errorf("calibration: bf16 twin of %s maps to %v", r.ID(), cases[0].Plan.Precision)
	}
	return cases[0], nil
}

// asyncTPCases are the cases of AsyncTPPairs by id, or nil when rows
// lack one of them.
func asyncTPCases(rows []Row) map[string]Case {
	cases, _ := Cases(rows)
	by := map[string]Case{}
	for _, c := range cases {
		by[c.Row.ID()] = c
	}
	for id, tps := range asyncTPTwins {
		c, ok := by[id]
		if !ok {
			return nil
		}
		twin, err := bf16Twin(c.Row, "BF16", tps)
		if err != nil {
			return nil
		}
		by[twin.Row.ID()] = twin
	}
	for _, p := range AsyncTPPairs {
		if _, ok := by[p[0]]; !ok {
			return nil
		}
		if _, ok := by[p[1]]; !ok {
			return nil
		}
	}
	return by
}

// AsyncTPSpeedUps are the pairs' speed-ups at base with contention s.
func asyncTPSpeedUps(by map[string]Case, base costmodel.Assumptions, s float64) []AsyncTPSpeedUp {
	base.AsyncTPContention = s
	var out []AsyncTPSpeedUp
	for _, p := range AsyncTPPairs {
		v, err1 := Predict(by[p[0]], base)
		a, err2 := Predict(by[p[1]], base)
		if err1 != nil || err2 != nil {
			return nil
		}
		out = append(out, AsyncTPSpeedUp{p[0], p[1], a.Predicted / v.Predicted, a.Measured / v.Measured})
	}
	return out
}

// FitAsyncTPContention fits costmodel.Assumptions.AsyncTPContention on
// the async over vanilla TP speed-ups of AsyncTPPairs: golden-section
// search on [0, 1] of their squared log error. The ratio of each pair
// cancels what its two runs share (GEMM and attention efficiency, FSDP,
// the FP8 recipe), so the share is fitted on what async TP changes
// alone. ok is false when rows lack a pair.
func FitAsyncTPContention(rows []Row, base costmodel.Assumptions) (s float64, at []AsyncTPSpeedUp, ok bool) {
	by := asyncTPCases(rows)
	if by == nil {
		return 0, nil, false
	}
	f := func(s float64) float64 {
		var sq float64
		for _, p := range asyncTPSpeedUps(by, base, s) {
			sq += math.Pow(math.Log(p.Predicted/p.Measured), 2)
		}
		return sq
	}
	lo, hi := 0.0, 1.0
	g := (math.Sqrt(5) - 1) / 2
	for hi-lo > 1e-4 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if f(a) < f(b) {
			hi = b
		} else {
			lo = a
		}
	}
	s = (lo + hi) / 2
	return s, asyncTPSpeedUps(by, base, base.AsyncTPContention), true
}
