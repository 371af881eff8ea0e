package costmodel

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExpertWidthShare: against AIConfigurator's fused-MoE timings at
// 8,192 tokens (testdata/moe/moe_split.csv), each layer split tp ways
// runs at expertWidthShare of the same layer on one GPU (its time over
// tp), within a median 12% and a 90th percentile of 40% over every GPU,
// format and shape of the file; the constant is the least-squares
// half-width of that data, to the grid's 25; and a split of 1 or no
// experts changes nothing.
func TestExpertWidthShare(t *testing.T) {
	type key struct{ gpu, dtype, source, shape string }
	base := map[key]float64{}
	type split struct {
		k       key
		ffn, tp int
		ms      float64
	}
	var splits []split
	for _, r := range readTestCSV(t, "testdata/moe/moe_split.csv") {
		tp, _ := strconv.Atoi(r[10])
		ffn, _ := strconv.Atoi(r[7])
		ms, err := strconv.ParseFloat(r[13], 64)
		if err != nil || ffn <= 0 || tp <= 0 {
			t.Fatalf("moe_split.csv row %v: bad tp, inter size or latency", r)
		}
		k := key{r[0], r[3], r[4], strings.Join(r[6:10], "x")}
		if tp == 1 {
			base[k] = ms
		} else {
			splits = append(splits, split{k, ffn, tp, ms})
		}
	}
	type obs struct {
		ffn, tp int
		ratio   float64
	}
	var data []obs
	for _, s := range splits {
		if b, ok := base[s.k]; ok {
			data = append(data, obs{s.ffn, s.tp, b / float64(s.tp) / s.ms})
		}
	}
	if len(data) < 400 {
		t.Fatalf("%d split layers with an unsplit twin, want at least 400", len(data))
	}
	errAt := func(h float64) (sq float64, rel []float64) {
		for _, o := range data {
			n := float64(o.ffn)
			p := (n + h) / (n + float64(o.tp)*h)
			sq += math.Pow(math.Log(o.ratio/p), 2)
			rel = append(rel, math.Abs(o.ratio/p-1))
		}
		return sq, rel
	}
	best, bestSq := 0.0, math.Inf(1)
	for h := 100.0; h <= 4000; h += 25 {
		if sq, _ := errAt(h); sq < bestSq {
			best, bestSq = h, sq
		}
	}
	_, rel := errAt(expertWidthHalf)
	slices.Sort(rel)
	med, p90 := rel[len(rel)/2], rel[len(rel)*9/10]
	t.Logf("%d split layers: half-width %d (least squares %g), median |error| %.1f%%, 90th percentile %.1f%%",
		len(data), expertWidthHalf, best, 100*med, 100*p90)
	if math.Abs(best-expertWidthHalf) > 25 {
		t.Errorf("least-squares half-width %g, the constant %d: refit", best, expertWidthHalf)
	}
	if med > 0.12 || p90 > 0.4 {
		t.Errorf("median |error| %.3f, 90th percentile %.3f: want at most 0.12 and 0.4", med, p90)
	}
	if expertWidthShare(2048, 1) != 1 || expertWidthShare(0, 8) != 1 {
		t.Error("no split, or no experts, must leave the speed alone")
	}
	if got := expertWidthShare(2048, 8); !within(got, 0.32, 0.01) {
		t.Errorf("DeepSeek-V3's experts over 8: %.4f, want 0.32 (the doc comment)", got)
	}
	if got := expertWidthShare(2880, 8); !within(got, 0.38, 0.015) {
		t.Errorf("gpt-oss's experts over 8: %.4f, want 0.38 (the doc comment)", got)
	}
}
