package costmodel

import "testing"

// TestDefaultSplitAnyPP: the default split is valid for every pp up to the
// layers, with and without interleaving, and accounts for every layer.
// Before, 32 layers failed on pp 10, 13, 14, 15, 20, 25, 30 and 31.
func TestDefaultSplitAnyPP(t *testing.T) {
	for layers := 1; layers <= 64; layers++ {
		for pp := 1; pp <= layers; pp++ {
			for v := 1; v <= 4; v++ {
				if v > 1 && pp == 1 {
					continue
				}
				p, err := (Plan{PP: pp, VPP: v}).balanceLayers(layers)
				if err != nil {
					if v == 1 {
						t.Errorf("%d layers, pp %d: %v", layers, pp, err)
					}
					continue
				}
				sum := 0
				for r := range pp {
					n, _ := p.stageLayers(layerKinds{layers: layers, dense: layers, step: 1}, r)
					sum += n
				}
				if sum != layers {
					t.Errorf("%d layers, pp %d v %d: split %s holds %d layers", layers, pp, v, p, sum)
				}
			}
		}
	}
}

// TestDefaultSplit32Layers: Llama 3 8B's 32 layers on the pipelines that
// did not split before: 3 layers per middle stage and 4 on each end for
// pp 10 (the most loaded stage holds 4, the fewest any split of equal
// middle stages allows).
func TestDefaultSplit32Layers(t *testing.T) {
	for _, tt := range []struct{ pp, first, last int }{
		{10, 4, 4}, {13, 5, 5}, {14, 4, 4}, {15, 3, 3}, {20, 7, 7}, {25, 4, 5}, {30, 2, 2}, {31, 1, 2},
		{3, 10, 11}, {5, 5, 6}, {6, 4, 4},
	} {
		p, err := (Plan{PP: tt.pp, VPP: 1}).balanceLayers(32)
		if err != nil || p.FirstStageLayers != tt.first || p.LastStageLayers != tt.last {
			t.Errorf("pp %d: [%d,%d], %v; want [%d,%d]", tt.pp, p.FirstStageLayers, p.LastStageLayers, err, tt.first, tt.last)
		}
	}
}
