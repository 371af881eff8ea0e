package search

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func model(t testing.TB, name string) *costmodel.Model {
	t.Helper()
	m, err := costmodel.LookupModel(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func gpu(t testing.TB, name string) hardware.GPU {
	t.Helper()
	g, err := hardware.LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pretraining is Llama 3 405B's pre-training job: 8,192-token sequences
// in batches of 16M tokens (Dubey et al. 2024, sec. 3.4.1).
var pretraining = Job{Seq: 8192, GlobalBatch: 2048}

func search(t testing.TB, m *costmodel.Model, o Options) *Result {
	t.Helper()
	r, err := Search(m, gpu(t, "h100-sxm"), 0, costmodel.DefaultAssumptions(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
