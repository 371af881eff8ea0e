package servingcal

import (
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestSweepOutputLengthSignature holds a measured signature the model
// does not price. In TensorRT-LLM 1.0.0rc3's Llama 3.1 8B sweep on
// H100 (tp 1 and 2, 1,024-4,096-token prompts, 8-32 in flight), TTFT
// grows with the output length as base + osl x TPOT / c: the least-
// squares slope of the measured TTFT over osl x TPOT / c, within one
// deployment, prompt length and concurrency (128, 256 and 512 output
// tokens), is 0.84-1.26 in each of the 18 groups. osl x TPOT / c is
// the time between two completions of c staggered requests, so each
// request waits as if for one to finish, as it would with one slot
// fewer than requests in flight. The Qwen3-32B sweep of the same
// release, GPU and harness has no such term (|slope| < 0.5 in each of
// its 9 groups), nor does the model, whose TTFT there does not depend
// on osl; it misses the Llama rows' TTFT by a median 28%. Priced as
// one KV slot fewer than requests in flight, the Llama rows keep
// 140-240 ms too much TTFT: the request overheads that the Qwen3
// sweeps of the same release need (README, serving accuracy).
func TestSweepOutputLengthSignature(t *testing.T) {
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		model string
		tp    int
		in    int
		conc  float64
	}
	x, y := map[key][]float64{}, map[key][]float64{}
	for _, p := range pts {
		if p.Engine != "trtllm" || p.Version != "1.0.0rc3" || p.Harness != HarnessSweep || p.Concurrency > 32 {
			continue
		}
		k := key{p.Model, p.TP, p.Input, p.Concurrency}
		x[k] = append(x[k], float64(p.Output)*p.TPOT/p.Concurrency)
		y[k] = append(y[k], p.TTFT)
	}
	slopes := map[string][]float64{}
	for k := range x {
		if len(x[k]) < 3 {
			continue
		}
		_, beta := stat.LinearRegression(x[k], y[k], nil, false)
		slopes[k.model] = append(slopes[k.model], beta)
	}
	for _, c := range []struct {
		model  string
		groups int
		lo, hi float64
	}{{"llama3.1-8b", 18, 0.7, 1.4}, {"qwen3-32b", 9, -0.5, 0.5}} {
		s := slopes[c.model]
		sort.Float64s(s)
		if len(s) != c.groups {
			t.Errorf("%s: %d groups, want %d", c.model, len(s), c.groups)
			continue
		}
		if s[0] < c.lo || s[len(s)-1] > c.hi {
			t.Errorf("%s: slopes %.2f-%.2f, want within [%.1f, %.1f]", c.model, s[0], s[len(s)-1], c.lo, c.hi)
		}
		t.Logf("%s: %d groups, slope %.2f-%.2f (median %.2f)", c.model, len(s), s[0], s[len(s)-1], s[len(s)/2])
	}
}
