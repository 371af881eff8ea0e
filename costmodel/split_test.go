package costmodel

import (
	"math"
	"slices"
	"testing"
)

// rangesOf lists the layer ranges of rank r's chunks, in chunk order.
func rangesOf(p Plan, layers, r int) [][2]int {
	var out [][2]int
	c := p.middleChunk(layers)
	for k := r; k < p.PP*p.VPP; k += p.PP {
		lo, hi := p.chunkRange(layers, c, k)
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// TestInterleavedSplitSmall works a small case by hand: 10 layers on pp 3
// with v 2 are 6 chunks; balanced chunks of ceil(10/6) = 2 are 12 slots,
// so the end chunks give up one layer each: chunks hold 1, 2, 2, 2, 2, 1
// layers, rank 0 holds chunks 0 and 3 (layers 0 and 5-6: 3 layers),
// rank 1 chunks 1 and 4 (1-2, 7-8: 4), rank 2 chunks 2 and 5 (3-4, 9: 3).
//
// In flight with 6 micro-batches (groups of pp = 3; table forwards chunk
// 0,0,0,1,1,1,0,0,0,1,1,1, backwards the chunks reversed): rank 0 warms up
// (3-0-1)*2 + (2-1)*3 = 7 forwards; after the 8th it holds chunk 0 of 5
// micro-batches and chunk 1 of 3: 5*1 + 3*2 = 11 layer activations, its
// peak (the average-share count would say 8/2 x 3 = 12). Rank 2 warms up 3
// forwards (chunk 2 of 3 micro-batches: 6 layers); it peaks at 8 after its
// 7th forward, holding chunk 2 of 4 micro-batches and chunk 5 of none (3
// forwarded, 3 run backward).
func TestInterleavedSplitSmall(t *testing.T) {
	p, err := (Plan{PP: 3, VPP: 2}).balanceLayers(10)
	if err != nil {
		t.Fatal(err)
	}
	if p.FirstStageLayers != 3 || p.LastStageLayers != 3 || p.middleChunk(10) != 2 {
		t.Fatalf("split [%d,%d], middle chunk %d; want [3,3], 2", p.FirstStageLayers, p.LastStageLayers, p.middleChunk(10))
	}
	want := [][][2]int{{{0, 1}, {5, 7}}, {{1, 3}, {7, 9}}, {{3, 5}, {9, 10}}}
	for r, w := range want {
		if got := rangesOf(p, 10, r); !slices.Equal(got, w) {
			t.Errorf("rank %d chunks %v, want %v", r, got, w)
		}
	}
	for _, c := range []struct {
		r, instant int
		held       []int
		layers     float64
	}{{0, 0, []int{5, 3}, 11}, {2, 3, []int{4, 0}, 8}} {
		s := p.interleavedSchedule(c.r, 6)
		var w chunkWeights
		w.n = 2
		for j, rg := range rangesOf(p, 10, c.r) {
			w.w[j] = float64(rg[1] - rg[0])
		}
		i := s.peak(&w, false)
		if got := []int{s.held(i, 0), s.held(i, 1)}; i != c.instant || !slices.Equal(got, c.held) || s.bytes(i, &w) != c.layers {
			t.Errorf("rank %d: peak at instant %d holding %v (%g layers); want %d, %v, %g", c.r, i, got, s.bytes(i, &w), c.instant, c.held, c.layers)
		}
	}
}

// TestLlama405BInterleaved: 126 layers on pp 16 keep Meta's 7 layers on
// the first and last stages (Dubey et al. 2024, sec. 3.3.2) at every
// interleaving: v 2 has 32 chunks of 4 with 3-layer end chunks (rank 0:
// layers 0-2 and 63-66), v 4 64 chunks of 2 with 1-layer end chunks,
// v 8 128 one-layer chunks with empty end chunks, "the first model chunk
// on the first stage has only the embedding". Rank 0's activations with
// 32 micro-batches (Meta's 8,192-GPU batch per data-parallel group): it
// warms up 30 + (v-1)*16 forwards and peaks after the next, holding its
// chunk 0 for 31 micro-batches and its other chunks for 16:
// v 2: 31*3 + 16*4 = 157 layers; v 4: 31*1 + 3*16*2 = 127; v 8:
// 31*0 + 7*16*1 = 112, where an average share would give 47/2*7 = 164.5,
// 79/4*7 = 138.25 and 143/8*7 = 125.1.
func TestLlama405BInterleaved(t *testing.T) {
	m, err := LookupModel("llama3-405b")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(m, cluster(t, "h100-sxm", 128), DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v, chunk, end int
		rank0         [][2]int
		held          float64
	}{
		{2, 4, 3, [][2]int{{0, 3}, {63, 67}}, 157},
		{4, 2, 1, [][2]int{{0, 1}, {31, 33}, {63, 65}, {95, 97}}, 127},
		{8, 1, 0, [][2]int{{0, 0}, {15, 16}, {31, 32}, {47, 48}, {63, 64}, {79, 80}, {95, 96}, {111, 112}}, 112},
	} {
		p, err := Plan{TP: 8, PP: 16, VPP: c.v, CP: 1, DP: 1, ZeRO: 1, SP: true, MicroBatch: 1, GlobalBatch: 32, Seq: 8192}.Normalize(m, 128)
		if err != nil {
			t.Fatalf("v %d: %v", c.v, err)
		}
		if p.FirstStageLayers != 7 || p.LastStageLayers != 7 || p.middleChunk(126) != c.chunk {
			t.Errorf("v %d: %s, middle chunk %d; want [7,7], %d", c.v, p, p.middleChunk(126), c.chunk)
		}
		if got := rangesOf(p, 126, 0); !slices.Equal(got, c.rank0) {
			t.Errorf("v %d: rank 0 chunks %v, want %v", c.v, got, c.rank0)
		}
		if lo, hi := p.chunkRange(126, c.chunk, 16*c.v-1); hi-lo != c.end || hi != 126 {
			t.Errorf("v %d: last chunk [%d, %d), want %d layers", c.v, lo, hi, c.end)
		}
		for r := range 16 {
			if n, _ := p.stageLayers(layerKinds{layers: 126, dense: 126}, r); n != 8-boolIndex(r == 0 || r == 15) {
				t.Errorf("v %d: rank %d holds %d layers", c.v, r, n)
			}
		}
		s, perLayer := e.Stage(p, 0), e.layerActs(p).dense
		if got := float64(s.LayerActivations) / perLayer; math.Abs(got-c.held) > 1e-9*c.held || math.Abs(s.InFlight-c.held/7) > 1e-12 {
			t.Errorf("v %d: rank 0 holds %g layers' activations (%g micro-batches), want %g", c.v, got, s.InFlight, c.held)
		}
	}
}

// TestSplitRoundTrip: an interleaved uneven split prints as the layers of
// the first and last stages and reads back.
func TestSplitRoundTrip(t *testing.T) {
	m, err := LookupModel("llama3-405b")
	if err != nil {
		t.Fatal(err)
	}
	base := Plan{Seq: 8192, GlobalBatch: 2048}
	for _, s := range []string{"tp8-pp16v4[7,7]-cp1-dp128-zero1-sp-none-mb1", "tp8-pp16v8[7,7]-cp1-dp128-zero2-sp-none-mb1",
		"tp8-pp16v2[6,8]-cp1-dp128-zero1-sp-selective-mb1"} {
		p, err := ParsePlan(s, base)
		if err != nil {
			t.Fatal(err)
		}
		q, err := p.Normalize(m, 16384)
		if err != nil || q != p || q.String() != s {
			t.Errorf("%s: normalized %s, %v", s, q, err)
		}
	}
}

// FuzzSplit: whatever split Normalize accepts tiles the layers with
// contiguous chunks (end chunks possibly empty when interleaved, every
// other chunk at least one layer, equal middle chunks), puts
// FirstStageLayers and LastStageLayers on the end ranks, and prints a
// plan string that reads back to the same plan.
func FuzzSplit(f *testing.F) {
	f.Add(126, 16, 4, 0, 0)
	f.Add(126, 16, 2, 6, 8)
	f.Add(10, 3, 2, 0, 0)
	f.Add(61, 2, 3, 30, 31)
	f.Fuzz(func(t *testing.T, layers, pp, v, first, last int) {
		if layers < 1 || layers > 512 || pp < 1 || pp > 64 || v < 1 || v > 64 {
			return
		}
		m := &Model{Name: "fuzz", Layers: layers, Hidden: 64, Heads: 4, KVHeads: 4, HeadDim: 16, FFN: 128, Vocab: 100,
			MaxSeq: 64, Norm: RMSNorm, MLP: SwiGLU}
		p, err := Plan{TP: 1, PP: pp, VPP: v, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 64,
			FirstStageLayers: first, LastStageLayers: last}.Normalize(m, 0)
		if err != nil {
			return
		}
		c, next := p.middleChunk(layers), 0
		for k := range pp * v {
			lo, hi := p.chunkRange(layers, c, k)
			end := k == 0 || k == pp*v-1
			if lo != next || hi < lo || !end && hi-lo != c || c < 1 || v == 1 && hi == lo {
				t.Fatalf("%d layers, %s: chunk %d is [%d, %d) after %d (middle chunks %d)", layers, p, k, lo, hi, next, c)
			}
			next = hi
		}
		if next != layers {
			t.Fatalf("%d layers, %s: chunks end at %d", layers, p, next)
		}
		if n, _ := p.stageLayers(layerKinds{layers: layers, dense: layers}, 0); p.uneven() && n != p.FirstStageLayers {
			t.Fatalf("%s: rank 0 holds %d layers", p, n)
		}
		if n, _ := p.stageLayers(layerKinds{layers: layers, dense: layers}, pp-1); p.uneven() && n != p.LastStageLayers {
			t.Fatalf("%s: rank %d holds %d layers", p, pp-1, n)
		}
		if q, err := ParsePlan(p.String(), p); err != nil || q != p {
			t.Fatalf("%s reads back as %s, %v", p, q, err)
		}
	})
}
