package costmodel

import (
	"math"
	"testing"
)

// simulateInterleaved runs Megatron-Core's interleaved 1F1B schedule on
// rank r step by step, from its own table (get_schedule_table: groups of
// pp micro-batches, chunk by chunk; backwards with the chunks reversed)
// and warm-up count, and returns the most bytes the rank holds after any
// forward, for chunks that leave w[j] bytes per micro-batch.
func simulateInterleaved(pp, v, m, r int, w []float64) float64 {
	var fwd []int
	for lo := 0; lo < m; lo += pp {
		hi := min(lo+pp, m)
		if lo+pp >= m {
			hi = m
		}
		for c := range v {
			for range hi - lo {
				fwd = append(fwd, c)
			}
		}
	}
	total := m * v
	warm := min((pp-r-1)*2+(v-1)*pp, total)
	held, peak := 0.0, 0.0
	b := 0
	for f := range total {
		held += w[fwd[f]]
		peak = max(peak, held)
		if f >= warm {
			held -= w[v-1-fwd[b]]
			b++
		}
	}
	return peak
}

// TestInterleavedPeakMatchesSchedule: the instant interleaved.peak picks
// holds what the step-by-step schedule holds at its peak, for every rank
// position that can differ (first, middle, last), lighter and heavier
// end chunks, uneven middle chunks (dense layers among MoE ones), and
// micro-batch counts below, at, between and far above multiples of pp
// (the periodic shortcut of the walk).
func TestInterleavedPeakMatchesSchedule(t *testing.T) {
	checked := 0
	for _, pp := range []int{2, 3, 4, 5, 8, 16} {
		for _, v := range []int{2, 3, 4, 8} {
			for _, m := range []int{1, 2, pp - 1, pp, pp + 1, 2*pp - 1, 2 * pp, 3*pp + 2, 7 * pp, 9*pp + 3} {
				if m < 1 {
					continue
				}
				for _, r := range []int{0, pp / 2, pp - 1} {
					for _, w := range weightSets(v) {
						p := Plan{PP: pp, VPP: v}
						s := p.interleavedSchedule(r, m)
						cw := chunkWeights{n: v}
						uniform := true
						for j := range v {
							cw.w[j] = w[j]
							uniform = uniform && w[j] == w[0]
						}
						got := s.bytes(s.peak(&cw, uniform), &cw)
						want := simulateInterleaved(pp, v, m, r, w)
						if math.Abs(got-want) > 1e-9*want {
							t.Fatalf("pp %d v %d m %d rank %d weights %v: peak %g, schedule %g", pp, v, m, r, w, got, want)
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d schedules checked", checked)
}

// weightSets: equal chunks, a lighter or heavier first or last chunk, an
// empty end chunk, and a heavier second chunk.
func weightSets(v int) [][]float64 {
	var out [][]float64
	for _, end := range []float64{0, 1, 2, 3, 5} {
		first := make([]float64, v)
		last := make([]float64, v)
		for j := range v {
			first[j], last[j] = 2, 2
		}
		first[0], last[v-1] = end, end
		out = append(out, first, last)
	}
	mixed := make([]float64, v)
	for j := range v {
		mixed[j] = 2
	}
	mixed[1] = 3.5
	return append(out, mixed)
}
