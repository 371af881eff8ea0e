package kernel

import (
	"fmt"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// This file holds what chapter 8 (Llama 3 405B on 16,384 H100s) asks of
// the planner, so that the chapter opens with its question instead of a
// page of helpers.

// The two stages of Llama 3 405B's training (Dubey et al. 2024, Table 4):
// 2,048 sequences of 8,192 tokens, then 128 of 131,072.
var (
	Llama3Pretraining = search.Job{Seq: 8192, GlobalBatch: 2048}
	Llama3LongContext = search.Job{Seq: 131072, GlobalBatch: 128}
)

// MetaSettings are the defaults with the two settings Meta's paper states
// (Dubey et al. 2024, sec. 3.3.2): asynchronous point-to-point sends
// between pipeline stages, and a memory budget of 95% of the HBM the GPU
// reports, which holds Meta's pre-training layout without activation
// checkpointing ("we could pre-train Llama 3 on sequences of 8K tokens
// without activation checkpointing"). search/checks_test.go holds Meta's
// layouts to the search's best under the same settings.
func MetaSettings() costmodel.Assumptions {
	a := costmodel.DefaultAssumptions()
	a.OverlapP2P = true
	a.HBMFraction = 0.95
	return a
}

// Setting is a named set of assumptions.
type Setting struct {
	Name string
	A    costmodel.Assumptions
}

// Settings are the two sets of assumptions chapter 8 compares: the
// defaults and Meta's.
func Settings() []Setting {
	return []Setting{{"defaults", costmodel.DefaultAssumptions()}, {"Meta's settings", MetaSettings()}}
}

// Llama405 is Llama 3.1 405B from the catalog.
func Llama405() *costmodel.Model { return Must(costmodel.LookupModel("llama3.1-405b")) }

// H100 is the H100 SXM from the catalog.
func H100() hardware.GPU { return Must(hardware.LookupGPU("h100-sxm")) }

// Budget is the memory a plan may use per H100 under a.
func Budget(a costmodel.Assumptions) hardware.Bytes {
	return hardware.Bytes(a.HBMFraction) * H100().HBM
}

// MetaLayout pins the search to Meta's layout: tp 8, pp 16 with Meta's
// split of the 126 layers (7 on each end stage, 8 on the others), cp as
// given. The chunks per GPU (vpp), ZeRO stage, recomputation, sequence
// parallelism and micro-batch stay free: the search picks the best.
func MetaLayout(cp int) search.Space {
	return search.Space{TP: []int{8}, PP: []int{16}, CP: []int{cp}, MidExtra: []int{0}, EndShift: []int{0}}
}

// Search405 searches for the top plans of Llama 3.1 405B on 16,384 H100s.
func Search405(a costmodel.Assumptions, job search.Job, space search.Space, top int) *search.Result {
	return Must(search.Search(Llama405(), H100(), 0, a, search.Options{Job: job, GPUs: 16384, Space: space, Top: top}))
}

// IsMeta reports whether p has Meta's layout with context parallelism
// cp: tp 8, pp 16, 7 layers on each end stage.
func IsMeta(p search.Ranked, cp int) bool {
	q := p.Plan
	return q.TP == 8 && q.PP == 16 && q.CP == cp && q.FirstStageLayers == 7 && q.LastStageLayers == 7
}

// RankOf is the rank (from 1) of the first plan with Meta's layout, or 0
// when none of the ranked plans has it.
func RankOf(r *search.Result, cp int) int {
	for i, p := range r.Plans {
		if IsMeta(p, cp) {
			return i + 1
		}
	}
	return 0
}

// Share is a's throughput as a share of b's.
func Share(a, b search.Ranked) float64 {
	return a.Performance.TokensPerSecond / b.Performance.TokensPerSecond
}

// Pct writes a share as a percentage with one decimal: 72.8%.
func Pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// PerGPU writes p's tokens/s per GPU with one decimal.
func PerGPU(p search.Ranked) string { return fmt.Sprintf("%.1f", p.Performance.TokensPerSecondPerGPU) }

// BubbleShare is p's pipeline bubble over the rest of its step (the
// busy time), the quantity (p-1)/(m v) predicts.
func BubbleShare(p search.Ranked) float64 {
	b := p.Performance.Breakdown.Bubble
	return float64(b / (p.Performance.StepTime - b))
}

// Thousands writes n with comma separators: 193,536.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
