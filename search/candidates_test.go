package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestLayerSplit checks the splits against Plan.Normalize and Meta's.
func TestLayerSplit(t *testing.T) {
	tests := []struct {
		layers, pp, vpp, extra, shift int
		first, last                   int
		r                             Reason
	}{
		{126, 16, 1, 0, 0, 7, 7, noReason}, // Llama 3 405B (Dubey et al. 2024, sec. 3.3.2)
		{126, 16, 1, 1, 0, 0, 0, RejectSplit},
		{126, 16, 1, 0, 2, 5, 9, noReason},
		{126, 16, 1, 0, -1, 8, 6, noReason},
		{126, 16, 1, 0, 7, 0, 0, RejectSplit},
		{126, 4, 1, 0, 0, 31, 31, noReason},
		{126, 4, 1, 1, 0, 30, 30, noReason},
		{126, 4, 1, 2, 1, 28, 30, noReason},
		{126, 3, 1, 0, 0, 0, 0, noReason},
		{126, 3, 1, 0, 1, 41, 43, noReason},
		{126, 3, 1, 1, 0, 41, 42, noReason},
		{126, 2, 1, 1, 0, 0, 0, RejectDuplicate},
		{126, 2, 1, 0, 2, 61, 65, noReason},
		{126, 1, 1, 2, 0, 0, 0, RejectDuplicate},
		{126, 1, 1, 0, 1, 0, 0, RejectDuplicate},
		{127, 2, 1, 0, 0, 63, 64, noReason},
		{80, 4, 2, 0, 0, 0, 0, noReason},
		// Interleaved: chunks of c = ceil(80/8) = 10; the end chunks
		// share 80 - 6*10 = 20, the first handing one to the last: 9 + 10
		// and 11 + 10 layers on the end stages.
		{80, 4, 2, 0, 1, 19, 21, noReason},
		{80, 4, 3, 0, 0, 19, 19, noReason}, // c = 7, end chunks 5 each
		{80, 4, 2, 1, 0, 18, 18, noReason}, // c = 11, end chunks 7 each
		// Llama 3 405B keeps 7 layers on the end stages: end chunks of 3
		// (v 2), 1 (v 4) or none (v 8); v 3 has 46 middle chunks of 3.
		{126, 16, 2, 0, 0, 7, 7, noReason},
		{126, 16, 4, 0, 0, 7, 7, noReason},
		{126, 16, 8, 0, 0, 7, 7, noReason},
		{126, 16, 3, 0, 0, 0, 0, RejectSplit},
		{126, 16, 4, 0, 1, 6, 8, noReason},
		{126, 16, 8, 0, 1, 0, 0, RejectSplit},
		{126, 16, 2, 1, 0, 0, 0, RejectSplit},
		{10, 3, 2, 0, 0, 3, 3, noReason},
		{61, 2, 3, 0, 1, 29, 32, noReason}, // pp 2 keeps the balanced chunk, 11
		{61, 2, 3, 1, 0, 0, 0, RejectDuplicate},
		{80, 1, 2, 0, 0, 0, 0, RejectSplit},
		{80, 81, 1, 0, 0, 0, 0, RejectSplit},
		{61, 30, 1, 0, 0, 0, 0, RejectSplit},
	}
	for _, tt := range tests {
		f, l, r := layerSplit(tt.layers, tt.pp, tt.vpp, tt.extra, tt.shift)
		if f != tt.first || l != tt.last || r != tt.r {
			t.Errorf("layerSplit(%d, pp %d, vpp %d, extra %d, shift %d) = %d, %d, %d; want %d, %d, %d",
				tt.layers, tt.pp, tt.vpp, tt.extra, tt.shift, f, l, r, tt.first, tt.last, tt.r)
		}
	}
}

// TestCandidatesAreCanonicalAndCounted: every candidate is a plan that
// Normalize accepts and leaves unchanged, no candidate repeats, and every
// grid point is either yielded or rejected for one reason.
func TestCandidatesAreCanonicalAndCounted(t *testing.T) {
	cases := []struct {
		model      string
		job        Job
		gpus, node int
		restrict   Space
	}{
		{"llama3-405b", pretraining, 128, 8, Space{}},
		{"llama3-70b", Job{Seq: 4096, GlobalBatch: 512}, 96, 8, Space{}},
		{"deepseek-v3", Job{Seq: 4096, GlobalBatch: 1024}, 256, 8, Space{}},
		{"gpt3-175b", Job{Seq: 2048, GlobalBatch: 1536, Schedule: costmodel.GPipe}, 64, 8, Space{SP: []bool{true}, ZeRO: []int{3, 1}, EndShift: []int{-2, 0, 3}}},
		{"llama3-8b", Job{Seq: 131072, GlobalBatch: 64}, 72, 72, Space{CP: []int{1, 2, 4, 8}}},
		{"llama3-8b", Job{Seq: 4096, GlobalBatch: 64}, 8, 8, Space{MidExtra: []int{1, 10}, EndShift: []int{2}}},
	}
	for _, c := range cases {
		m := model(t, c.model)
		s := DefaultSpace(m, c.job, c.gpus, c.node).Restrict(c.restrict)
		var counts Counts
		seen := map[costmodel.Plan]bool{}
		for p := range s.Candidates(m, c.job, c.gpus, &counts) {
			q, err := p.Normalize(m, c.gpus)
			if err != nil || q != p {
				t.Fatalf("%s: candidate %s: Normalize gives %s, %v", c.model, p, q, err)
			}
			if seen[p] {
				t.Fatalf("%s: candidate %s twice", c.model, p)
			}
			seen[p] = true
		}
		if got := len(seen) + counts.RejectedTotal(); got != counts.Considered || counts.Considered != s.Size() {
			t.Errorf("%s: %d yielded + %d rejected != %d considered (grid %d)", c.model, len(seen), counts.RejectedTotal(), counts.Considered, s.Size())
		}
		if len(seen) == 0 {
			t.Errorf("%s: no candidates", c.model)
		}
	}
}

// TestAxesWithoutZero: an extra-layers or end-shift axis without 0
// still yields the plans it cannot change (one stage, two stages), once.
func TestAxesWithoutZero(t *testing.T) {
	m := model(t, "llama3-8b")
	job := Job{Seq: 4096, GlobalBatch: 64}
	s := DefaultSpace(m, job, 8, 8).Restrict(Space{PP: []int{1, 2}, MidExtra: []int{10, 11}, EndShift: []int{2, 3}})
	var counts Counts
	stages := map[int]int{}
	for p := range s.Candidates(m, job, 8, &counts) {
		stages[p.PP]++
	}
	ref := DefaultSpace(m, job, 8, 8).Restrict(Space{PP: []int{1, 2}, MidExtra: []int{0}, EndShift: []int{0, 2, 3}})
	want := map[int]int{}
	for p := range ref.Candidates(m, job, 8, &counts) {
		want[p.PP]++
	}
	if stages[1] == 0 || stages[1] != want[1] || stages[2] == 0 {
		t.Errorf("pp 1 / pp 2 candidates with axes without 0: %d / %d, want %d / some", stages[1], stages[2], want[1])
	}
}

// TestRejectVariantsMatchesVariants: counting a layout's variants
// without yielding them agrees with Variants.
func TestRejectVariantsMatchesVariants(t *testing.T) {
	m := model(t, "llama3-70b")
	job := Job{Seq: 4096, GlobalBatch: 96}
	s := DefaultSpace(m, job, 64, 8).Restrict(Space{MicroBatch: []int{1, 2, 3, 4, 5}})
	var layouts Counts
	for l := range s.Layouts(m, job, 64, &layouts) {
		var a, b Counts
		n := 0
		for range s.Variants(l, &a) {
			n++
		}
		a.reject(RejectStates, n)
		s.rejectVariants(l, RejectStates, &b)
		if a != b {
			t.Fatalf("%s: Variants %v, rejectVariants %v", l, a.Rejected, b.Rejected)
		}
	}
}
