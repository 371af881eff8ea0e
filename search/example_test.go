package search_test

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// The fewest whole nodes of H100s on which Llama 3 405B trains with
// Llama 3's batch of 2,048 sequences of 8,192 tokens, and how many plans
// fit there.
func ExampleSearch() {
	m, _ := costmodel.LookupModel("llama3-405b")
	g, _ := hardware.LookupGPU("h100-sxm")
	r, err := search.Search(m, g, 0, costmodel.DefaultAssumptions(), search.Options{
		Job:       search.Job{Seq: 8192, GlobalBatch: 2048},
		Objective: search.FewestGPUs,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d GPUs (states need at least %d); plans that fit: %d; peak %v\n",
		r.GPUs, r.MinGPUs, r.Counts.Fit, r.Plans[0].Peak)
	// Output:
	// 104 GPUs (states need at least 86); plans that fit: 2; peak 75.7 GB
}
