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

func TestExpertAxisErrors(t *testing.T) {
	for _, c := range []struct {
		model string
		s     Space
		want  string
	}{
		{"deepseek-v3", Space{EP: []int{3}}, "ep=3 does not divide the 256 routed experts of deepseek-v3 (valid ep: [1 2 4 8"},
		{"llama3-8b", Space{EP: []int{2}}, "ep=2: model llama3.1-8b has no experts (valid ep: 1)"},
		{"llama3-8b", Space{ETP: []int{2}}, "etp=2 is not valid for llama3.1-8b"},
	} {
		err := c.s.validateSet(model(t, c.model), pretraining)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", c.model, c.s, err, c.want)
		}
	}
}
