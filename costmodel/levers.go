package costmodel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// Lever is one change to a plan that does not fit, with its effect.
type Lever struct {
	// Change is the change as CLI flags, e.g. "--recompute full".
	Change string `json:"change"`
	// Why says what the change shrinks.
	Why  string         `json:"why"`
	Plan string         `json:"plan"`
	Peak hardware.Bytes `json:"peak_bytes"`
	Fits bool           `json:"fits"`
	// StepTime and TokensPerSecondPerGPU are the changed plan's speed,
	// when it fits.
	StepTime              hardware.Seconds `json:"step_time_s,omitempty"`
	TokensPerSecondPerGPU float64          `json:"tokens_per_second_per_gpu,omitempty"`
}

type leverCandidate struct {
	change, why string
	apply       func(Plan) Plan
	gpus        int // GPU count the changed plan needs (0: unchanged)
}

func leverCandidates(p Plan) []leverCandidate {
	c := []leverCandidate{
		{"--zero 3", "shards weights, gradients and optimizer states over dp*cp", func(q Plan) Plan { q.ZeRO = 3; return q }, 0},
		{"--zero 1", "shards the optimizer states over dp*cp", func(q Plan) Plan { q.ZeRO = max(q.ZeRO, 1); return q }, 0},
		{"--recompute selective", "drops the attention core's activations", func(q Plan) Plan { q.Recompute = Selective; return q }, 0},
		{"--recompute full", "keeps only each layer's input", func(q Plan) Plan {
			q.Recompute, q.RecomputeModules, q.RecomputeMethod, q.RecomputeLayers = Full, 0, Uniform, 0
			return q
		}, 0},
		{"--mbs 1", "activations scale with the micro-batch", func(q Plan) Plan { q.MicroBatch = 1; return q }, 0},
		{"--sp", "splits norm and dropout activations over tp", func(q Plan) Plan { q.SP = true; return q }, 0},
		{fmt.Sprintf("--ep %d", 2*max(p.EP, 1)), "spreads the routed experts over more expert-parallel ranks",
			func(q Plan) Plan { q.EP = 2 * max(q.EP, 1); return q }, 0},
		{fmt.Sprintf("--tp %d --dp %d", 2*p.TP, p.DP/2), "splits weights and activations over more tensor-parallel ranks",
			func(q Plan) Plan { q.TP, q.DP = 2*q.TP, q.DP/2; return q }, 0},
		{fmt.Sprintf("--pp %d --dp %d", 2*p.PP, p.DP/2), "splits the layers over more stages",
			func(q Plan) Plan { q.PP, q.DP = 2*q.PP, q.DP/2; q.FirstStageLayers, q.LastStageLayers = 0, 0; return q }, 0},
		{fmt.Sprintf("--cp %d --dp %d", 2*p.CP, p.DP/2), "splits the sequence over more context-parallel ranks",
			func(q Plan) Plan { q.CP, q.DP = 2*q.CP, q.DP/2; return q }, 0},
		{fmt.Sprintf("--seq %d", p.Seq/2), "activations scale with the sequence", func(q Plan) Plan { q.Seq /= 2; return q }, 0},
	}
	c = append(c, tuneLevers(p)...)
	// More GPUs help only through sharding: offer data parallelism
	// 2x to 64x wider with ZeRO-3 (the global batch grows with dp).
	for f := 2; f <= 64; f *= 2 {
		c = append(c, leverCandidate{fmt.Sprintf("--gpus %d --zero 3", f*p.GPUs()),
			fmt.Sprintf("ZeRO-3 over %dx the data-parallel ranks", f),
			func(q Plan) Plan { q.DP *= f; q.GlobalBatch *= f; q.ZeRO = 3; return q }, f * p.GPUs()})
	}
	return c
}

// levers evaluates the candidate changes and returns those that lower the
// peak, lowest peak first. Of the more-GPUs levers only the smallest GPU
// count that fits is kept (or the largest tried, when none fits).
func (e *Evaluator) levers(p Plan, peak hardware.Bytes) []Lever {
	var out []Lever
	seen := map[Plan]bool{p: true}
	moreGPUs := -1 // index in out of the kept more-GPUs lever
	candidates := leverCandidates(p)
	if c, ok := e.blockRecomputeLever(p); ok {
		candidates = append(candidates, c)
	}
	for _, c := range candidates {
		ev := e
		if c.gpus != 0 {
			cl, err := hardware.ClusterForGPUs(e.c.GPU, c.gpus, e.c.GPUsPerNode)
			if err != nil {
				continue
			}
			ev = e.withCluster(cl)
		}
		q, err := c.apply(p).Normalize(e.m, ev.c.GPUs())
		if err != nil || seen[q] {
			continue
		}
		seen[q] = true
		s := ev.Peak(q)
		l := Lever{Change: c.change, Why: c.why, Plan: q.String(), Peak: s.Total, Fits: s.Total <= ev.Budget() && ev.HostFits(q)}
		if l.Fits {
			perf := ev.Performance(q)
			l.StepTime, l.TokensPerSecondPerGPU = perf.StepTime, perf.TokensPerSecondPerGPU
		}
		switch {
		case s.Total >= peak:
		case c.gpus == 0:
			out = append(out, l)
		case moreGPUs < 0:
			moreGPUs = len(out)
			out = append(out, l)
		case !out[moreGPUs].Fits:
			out[moreGPUs] = l
		}
	}
	slices.SortStableFunc(out, func(a, b Lever) int {
		if a.Peak != b.Peak {
			if a.Peak < b.Peak {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Change, b.Change)
	})
	return out
}
