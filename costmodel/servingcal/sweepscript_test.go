package servingcal

import "testing"

// TestAICSweepMixedChunk: the SGLang sweep points of 0.5.6.post2 run
// with mixed prefill, those of 0.5.1.post1 and the InferenceMAX ones
// with the preset's prefill batches alone, and the other engines keep
// their presets.
func TestAICSweepMixedChunk(t *testing.T) {
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, p := range pts {
		s := launchScript(p)
		want := p.Engine != "sglang" || (p.Harness == HarnessSweep && p.Version == "0.5.6.post2")
		if s.engine.MixedPrefill != want {
			t.Errorf("%s (%s %s, %s): MixedPrefill %v, want %v", p.ID, p.Engine, p.Version, p.Harness, s.engine.MixedPrefill, want)
		}
		if p.Engine == "sglang" {
			counts[p.Harness+" "+p.Version]++
		}
	}
	// The data holds both SGLang sweeps, so the check above saw each.
	if counts["sweep 0.5.6.post2"] == 0 || counts["sweep 0.5.1.post1"] == 0 {
		t.Errorf("SGLang sweep points by release: %v; want both 0.5.6.post2 and 0.5.1.post1", counts)
	}
}
