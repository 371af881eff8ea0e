package servingcal

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

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

// TestAICSweepDynamo: every sweep point runs behind Dynamo's front end
// and no InferenceMAX point does, and Predict charges the fitted front
// end's overhead to the first and nothing to the second.
func TestAICSweepDynamo(t *testing.T) {
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, p := range pts {
		s := launchScript(p)
		want := ""
		if p.Harness == HarnessSweep {
			want = costmodel.FrontendDynamo
		}
		if s.engine.Frontend != want {
			t.Errorf("%s (%s): front end %q, want %q", p.ID, p.Harness, s.engine.Frontend, want)
		}
		seen[p.Harness]++
	}
	if seen[HarnessSweep] == 0 || seen[HarnessInferenceMAX] == 0 {
		t.Fatalf("points by harness %v: want both harnesses", seen)
	}
	p := Defaults()
	if p.FrontendOverhead[costmodel.FrontendDynamo] <= 0 || p.FrontendOverhead[costmodel.FrontendNative] != 0 {
		t.Errorf("front-end overheads %v: want Dynamo's positive, native none", p.FrontendOverhead)
	}
	more := p.clone()
	more.FrontendOverhead[costmodel.FrontendDynamo] += 0.01
	cs, _ := Cases(pts)
	priced := map[string]bool{}
	for _, c := range cs {
		if priced[c.Point.Harness] {
			continue
		}
		a, errA := Predict(c, p)
		b, errB := Predict(c, more)
		if errA != nil || errB != nil {
			continue
		}
		want := 0.0
		if c.Point.Harness == HarnessSweep {
			want = 0.01
		}
		if d := b.TTFT - a.TTFT; math.Abs(d-want) > 1e-9 || b.TPOT != a.TPOT {
			t.Errorf("%s: 10 ms more at Dynamo's front end moves TTFT by %.4g s (want %g) and TPOT %g to %g", c.Point.ID, d, want, a.TPOT, b.TPOT)
		}
		priced[c.Point.Harness] = true
	}
	if len(priced) != 2 {
		t.Errorf("priced a point of %v, want both harnesses", priced)
	}
}
