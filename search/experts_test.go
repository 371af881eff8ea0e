package search

import (
	"strings"
	"testing"
)

// TestMoESearchUsesExpertParallelism: the headline MoE searches answer
// with expert-parallel plans and say where the all-to-all runs.
func TestMoESearchUsesExpertParallelism(t *testing.T) {
	cases := []struct {
		model string
		o     Options
	}{
		{"deepseek-v3", Options{Job: pretraining, GPUs: 256}},
		{"qwen3-235b-a22b", Options{Job: pretraining, Objective: FewestGPUs}},
	}
	for _, c := range cases {
		r := search(t, model(t, c.model), c.o)
		if len(r.Plans) == 0 {
			t.Fatalf("%s: nothing fits", c.model)
		}
		for _, p := range r.Plans {
			if p.Plan.EP < 2 {
				t.Errorf("%s: plan %s has no expert parallelism", c.model, p.Plan)
			}
		}
		last := r.Why[len(r.Why)-1]
		if !strings.Contains(last, "all-to-all") || !strings.HasPrefix(last, "ep ") {
			t.Errorf("%s: the explanation does not name the expert layout: %q", c.model, last)
		}
	}
}

func TestEPNodes(t *testing.T) {
	for _, c := range []struct{ ep, etp, perNode, want int }{
		{8, 1, 8, 1}, {64, 1, 8, 8}, {8, 2, 8, 2}, {4, 8, 8, 4}, {16, 1, 72, 1},
	} {
		if got := epNodes(c.ep, c.etp, c.perNode); got != c.want {
			t.Errorf("ep %d etp %d on %d-GPU nodes: %d nodes, want %d", c.ep, c.etp, c.perNode, got, c.want)
		}
	}
}
