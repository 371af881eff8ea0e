package main

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/servingcal"
	"github.com/gpu-planner/planner/search"
)

// TestServingCoverage: the accuracy line counts the engine's points on
// the GPU's generation as `planner validate --serving` groups them, and
// says so when there are none.
func TestServingCoverage(t *testing.T) {
	var want servingcal.Summary
	for _, g := range servingcal.Summarize(mustServingResults(t), servingcal.ByEngineGeneration) {
		if g.Group == "vllm x hopper" {
			want = g
		}
	}
	h := search.ServeContext{GPU: "h100-sxm", Engine: costmodel.Engines["vllm"], Weights: costmodel.DTypeBF16}
	got := servingCoverage(h, costmodel.Hopper)
	if want.Rows == 0 || !strings.HasPrefix(got, plural(want.Rows, "measured point", "measured points")+" of vllm on hopper GPUs") {
		t.Errorf("coverage %q, want the %d points of the vllm x hopper group", got, want.Rows)
	}
	if got := servingCoverage(h, costmodel.Ampere); !strings.Contains(got, "extrapolated") {
		t.Errorf("ampere: %q, want extrapolated", got)
	}
}

// mustServingResults is servingResults, failing the test if the
// embedded measurements cannot be read.
func mustServingResults(t *testing.T) []servingcal.Result {
	t.Helper()
	res, err := servingResults()
	if err != nil {
		t.Fatal(err)
	}
	return res
}
