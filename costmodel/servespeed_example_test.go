package costmodel_test

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// The speed of Llama 3.1 8B served to one user on one H100: every decode
// step reads the 15.0 GB of weights it uses (all but the embedding table,
// which is only looked up) and the user's 0.54 GB of KV cache.
func ExampleEstimateServeSpeed() {
	m, _ := costmodel.LookupModel("llama3.1-8b")
	gpu, _ := hardware.LookupGPU("h100-sxm")
	c, _ := hardware.ClusterForGPUs(gpu, 1, 0)
	s := costmodel.ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 4096, Users: 1, BlockTokens: 16}
	v, _ := costmodel.EstimateServeSpeed(m, c, s, costmodel.DefaultAssumptions())
	fmt.Printf("decode reads %v per step: %v per output token, %.0f tokens/s\n", v.Decode.BytesPerGPU, v.TimePerOutputToken, v.TokensPerSecondPerUser)
	fmt.Printf("prefill of 4,096 tokens: %v to the first token\n", v.TimeToFirstToken)
	// Output:
	// decode reads 15.5 GB per step: 6.19 ms per output token, 162 tokens/s
	// prefill of 4,096 tokens: 117 ms to the first token
}
