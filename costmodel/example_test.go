package costmodel_test

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Estimate the per-GPU memory of Llama 3 70B trained with ZeRO-3 on 64 H100s.
func ExampleEstimate() {
	m, _ := costmodel.LookupModel("llama3-70b")
	gpu, _ := hardware.LookupGPU("h100-sxm")
	c, _ := hardware.ClusterForGPUs(gpu, 64, 0)
	p := costmodel.Plan{TP: 1, PP: 1, CP: 1, DP: 64, ZeRO: 3, Recompute: costmodel.Full,
		MicroBatch: 1, GlobalBatch: 64, Seq: 8192}
	r, err := costmodel.Estimate(m, c, p, costmodel.DefaultAssumptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("model states %v, activations %v, total %v of %v: fits %v\n",
		r.Memory.Group(costmodel.GroupStates), r.Memory.Group(costmodel.GroupActivations),
		r.Memory.Total, r.Memory.Budget, r.Memory.Fits)
	// Output: model states 22.8 GB, activations 17.5 GB, total 43.8 GB of 77.0 GB: fits true
}

// Size the KV cache of Llama 3.1 8B served on one H100.
func ExampleEstimateServe() {
	m, _ := costmodel.LookupModel("llama3.1-8b")
	gpu, _ := hardware.LookupGPU("h100-sxm")
	c, _ := hardware.ClusterForGPUs(gpu, 1, 0)
	s := costmodel.ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 4096, Users: 1}
	r, _ := costmodel.EstimateServe(m, c, s, costmodel.DefaultAssumptions())
	for _, l := range r.Memory.Lines {
		fmt.Printf("%-22s %v\n", l.Name, l.Bytes)
	}
	fmt.Printf("total %v; KV %v per token; %d users of 4,096 tokens fit\n", r.Memory.Total, r.KVPerToken, r.MaxUsers)
	// Output:
	// weights (bf16)         16.1 GB
	// KV cache (bf16)        537 MB
	// activation workspace   1.50 GB
	// CUDA context           1.00 GB
	// total 19.1 GB; KV 131 kB per token; 108 users of 4,096 tokens fit
}

// An unknown model name lists the closest catalog names.
func ExampleLookupModel() {
	_, err := costmodel.LookupModel("llama3-7b")
	fmt.Println(err)
	// Output: costmodel: unknown model "llama3-7b" (run `planner models` for the catalog, or give a config.json path; closest: llama3-70b, llama3-8b, llama-3-70b, llama-3-8b)
}

// The activations one Megatron GPT layer saves, tensor by tensor.
func ExampleLayerActivations() {
	m, _ := costmodel.LookupModel("megatron-22b")
	p := costmodel.Plan{TP: 8, CP: 1, Seq: 2048, MicroBatch: 4, Attention: costmodel.Eager}
	for _, t := range costmodel.LayerActivations(m, p) {
		fmt.Printf("%-42s %-14s %v\n", t.Name, t.Formula, t.Bytes)
	}
	// Output:
	// attention norm input                       2·s·b·h        101 MB
	// QKV projection input (norm output)         2·s·b·h        101 MB
	// queries Q                                  2·s·b·a·d/t    12.6 MB
	// keys K                                     2·s·b·kv·d/t   12.6 MB
	// values V                                   2·s·b·kv·d/t   12.6 MB
	// softmax output                             2·a·s²·b/t     268 MB
	// softmax dropout mask                       1·a·s²·b/t     134 MB
	// softmax dropout output                     2·a·s²·b/t     268 MB
	// output projection input (attention output) 2·s·b·a·dv/t   12.6 MB
	// attention dropout mask                     1·s·b·h        50.3 MB
	// MLP norm input                             2·s·b·h        101 MB
	// MLP input (norm output)                    2·s·b·h        101 MB
	// MLP GeLU input                             2·s·b·f/t      50.3 MB
	// MLP GeLU output (down projection input)    2·s·b·f/t      50.3 MB
	// MLP dropout mask                           1·s·b·h        50.3 MB
}
