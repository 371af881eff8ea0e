package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// One channel and peer of NCCL's default buffers is within 0.1% of the
// 9,641,984 B its proxy pins per connection (traced with bpftrace in
// tonyd2wild/DeepSeek-V4.1-Flash-vLLM-DGX-Spark#8); a communicator in a
// node is 32 x 2 of them, 588 MiB.
func TestNCCLCommBuffers(t *testing.T) {
	if got := float64(NCCLCommBuffers(1, 1)); math.Abs(got/9641984-1) > 1e-3 {
		t.Errorf("one connection = %g B, want 9,641,984 within 0.1%%", got)
	}
	if got := NCCLCommBuffers(32, 2); got != 588*hardware.MiB {
		t.Errorf("32 channels x 2 peers = %v, want 588 MiB", got)
	}
}

// With NCCLByTier, tp 8 inside a node and dp across 4 nodes cost 588 MiB
// and 147 MiB; without it, 2 x NCCLPerGroup as before.
func TestNCCLByTier(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 32, 0)
	p := Plan{TP: 8, PP: 1, CP: 1, DP: 4, ZeRO: 3, SP: true, Recompute: Full, MicroBatch: 1, GlobalBatch: 4, Seq: 4096}
	a := DefaultAssumptions()
	flat, _ := Estimate(m, c, p, a)
	a.NCCLByTier = true
	tier, err := Estimate(m, c, p, a)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := flat.Stages[0].NCCLBuffers, 2*a.NCCLPerGroup; got != want {
		t.Errorf("flat NCCL = %v, want %v", got, want)
	}
	if got, want := tier.Stages[0].NCCLBuffers, NCCLCommBuffers(32, 2)+NCCLCommBuffers(8, 2); got != want {
		t.Errorf("by tier NCCL = %v, want %v (588 + 147 MiB)", got, want)
	}
	if !strings.Contains(a.NCCLSummary(), "in a node") {
		t.Errorf("summary %q", a.NCCLSummary())
	}
}
