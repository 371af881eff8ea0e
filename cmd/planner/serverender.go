package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/search"
)

// writeServeResult prints the answer of `planner serve`: the load, the
// GPU count, the ranked layouts, the best layout's memory and speed, and
// the three answers when the load does not fit.
func writeServeResult(w io.Writer, q search.ServeQuery, r *search.ServeResult, top int, s tableStyle) {
	if s == markdownStyle {
		fmt.Fprintf(w, "## Serving %s on %s\n\n", r.Model, r.GPU)
	}
	field(w, s, "model", q.Model.Name+": "+describeModel(q.Model))
	field(w, s, "gpu", describeGPU(q.GPU, r.GPUsPerNode))
	field(w, s, "load", describeLoad(r.Load))
	if fromCheckpoint(r.Load.Weights, q.Model) {
		field(w, s, "weights", weightsText(r.Load.Weights, q.Model))
	}
	field(w, s, "KV cache", describeKV(q.Model, r.Load))
	heading(w, s, answerLine(r))
	if len(r.Layouts) > 0 {
		layoutTable(r, top).write(w, s)
		detail := &r.Layouts[0]
		heading(w, s, "memory per GPU of "+detail.Layout+" (the most loaded pipeline stage)")
		writeMemory(w, detail.Memory, s)
		heading(w, s, "speed of "+detail.Layout)
		if detail.Holds {
			writeSpeed(w, detail, s)
		} else {
			line(w, s, "not estimated: the layout does not hold the load")
		}
	}
	if len(r.Alternatives) > 0 {
		heading(w, s, threeAnswersLine(r))
		alternativesTable(r.Alternatives).write(w, s)
	}
	heading(w, s, "assumptions")
	writeServeAssumptions(w, q.Assumptions, s)
	if len(r.Layouts) > 0 {
		for _, n := range r.Layouts[0].Memory.Notes {
			line(w, s, "note: %s", n)
		}
	}
}

// threeAnswersLine introduces the three answers.
func threeAnswersLine(r *search.ServeResult) string {
	if r.Fewest && r.Reference == r.GPUsPerNode {
		return fmt.Sprintf("it does not fit one node of %d %s; three answers", r.Reference, r.GPU)
	}
	return fmt.Sprintf("it does not fit %s; three answers", gpuCount(r.Reference, r.GPU, r.GPUsPerNode))
}

// describeKV is the per-token and per-sequence cache and the block waste.
func describeKV(m *costmodel.Model, s costmodel.ServePlan) string {
	perSeq := m.KVPerSequence(s.Context, s.KV)
	out := fmt.Sprintf("%v per token (all layers), %v per %d-token sequence", m.KVPerToken(s.KV), perSeq, s.Context)
	p := m.PagedKV(s.Context, s.BlockTokens, s.KV)
	switch {
	case p.BlockTokens == 0:
		out += "; contiguous, no block padding"
	case p.PaddingTokens == 0:
		out += fmt.Sprintf("; %d-token blocks: none empty at %d tokens, %v (%g tokens) empty on average over a sequence's growth",
			p.BlockTokens, s.Context, p.AveragePaddingPerSequence, float64(p.BlockTokens-1)/2)
	default:
		out += fmt.Sprintf("; %d-token blocks: %d tokens (%v, %.2f%%) empty at %d tokens, %v on average over a sequence's growth",
			p.BlockTokens, p.PaddingTokens, p.PaddingPerSequence, 100*p.WasteFraction, s.Context, p.AveragePaddingPerSequence)
	}
	return out
}

// answerLine is the headline: the fewest GPUs, or the layouts on the
// asked count.
func answerLine(r *search.ServeResult) string {
	holding := 0
	for _, l := range r.Layouts {
		if l.Holds {
			holding++
		}
	}
	switch {
	case r.Fewest && r.GPUs == 0:
		return "no number of " + r.GPU + " GPUs holds it under the layout rules"
	case r.Fewest:
		return fmt.Sprintf("fewest GPUs that hold it: %s; %s on them, fastest first",
			gpuCount(r.GPUs, r.GPU, r.GPUsPerNode), holdCount(holding, len(r.Layouts)))
	}
	return fmt.Sprintf("layouts on %s: %s", gpuCount(r.GPUs, r.GPU, r.GPUsPerNode), holdCount(holding, len(r.Layouts)))
}

// holdCount is "1 of 5 layouts holds it".
func holdCount(holding, all int) string {
	verb := "hold"
	if holding == 1 {
		verb = "holds"
	}
	return fmt.Sprintf("%d of %s %s it", holding, plural(all, "layout", "layouts"), verb)
}

// gpuCount is "16 h100-sxm (2 nodes of 8)" or "4 h100-sxm".
func gpuCount(n int, gpu string, perNode int) string {
	if n > perNode && perNode > 0 {
		return fmt.Sprintf("%d %s (%d nodes of %d)", n, gpu, n/perNode, perNode)
	}
	return fmt.Sprintf("%d %s", n, gpu)
}

func layoutTable(r *search.ServeResult, top int) table {
	t := table{
		header:   []string{"rank", "layout", "holds", "weights/HBM", "users fit", "longest ctx", "TTFT", "TPOT", "tok/s/user", "tok/s"},
		right:    []bool{true, false, false, true, true, true, true, true, true, true},
		optional: []bool{8: true}, // 1/TPOT
	}
	for i, l := range r.Layouts {
		if top > 0 && i >= top {
			break
		}
		rank, holds, ttft, tpot, user, total := strconv.Itoa(i+1), "yes", l.Speed.TimeToFirstToken.String(),
			l.Speed.TimePerOutputToken.String(), fmt.Sprintf("%.1f", l.Speed.TokensPerSecondPerUser), fmt.Sprintf("%.0f", l.Speed.TokensPerSecond)
		if !l.Holds {
			rank, holds, ttft, tpot, user, total = "-", "no", "-", "-", "-", "-"
		}
		t.add(rank, l.Layout, holds, fmt.Sprintf("%.1f%%", 100*l.Memory.WeightsFraction), strconv.Itoa(l.Memory.MaxUsers),
			longest(l.Memory.LongestContext), ttft, tpot, user, total)
	}
	return t
}

// longest formats a context length in tokens.
func longest(n int) string {
	if n == 0 {
		return "0"
	}
	return costmodel.FormatCount(float64(n))
}
