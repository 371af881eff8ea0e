package costmodel

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// A frozen base skips the weight-gradient GEMM of every linear layer, a
// third of the matmul FLOPs of forward and backward (Hu et al. 2021,
// sec. 4.2; each linear's backward is a data and a weight gradient, each
// as large as the forward): a layer's base GEMM time is exactly 2/3 of
// the full fine-tune's. The adapters (r = 16 on 7 matrices) add under 1%
// of the FLOPs but, as rank-16 matmuls, are memory-bound: each reads its
// matrix's input, so they add several percent of time. The model FLOPs
// follow 3·fwd - 2·W + 6·P_adapters, and the data-parallel gradient
// reduction carries the adapters' gradients only.
func TestLoRAStepTime(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 8, 0)
	full := Plan{TP: 1, PP: 1, CP: 1, DP: 8, ZeRO: 1, Recompute: NoRecompute, MicroBatch: 1, GlobalBatch: 8, Seq: 4096, Task: FullFineTune}
	lora := full
	lora.Task = LoRA
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	r := e.rates(full)
	sh := newLayerShape(m, full)
	base := e.layerCost(r, sh, false)
	r.frozen = true
	frozen := e.layerCost(r, sh, false)
	gemm := func(c layerCost) float64 { return c.fwd.gemm + c.bwd.gemm }
	// Two of three matmuls per weight remain; the data-gradient and the
	// weight-gradient GEMMs have different shapes, so their curves'
	// efficiencies differ by a few percent.
	if got := gemm(frozen) / gemm(base); math.Abs(got-2.0/3) > 0.02 {
		t.Errorf("frozen base GEMM time / full = %.6f, want 2/3 within 0.02", got)
	}
	rf, err := e.Estimate(full)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := e.Estimate(lora)
	if err != nil {
		t.Fatal(err)
	}
	ratio := float64(rl.Performance.Breakdown.ComputeGEMM / rf.Performance.Breakdown.ComputeGEMM)
	if ratio <= 2.0/3 || ratio > 2.0/3+0.1 {
		t.Errorf("LoRA GEMM time / full = %.4f, want above 2/3 by the memory-bound adapters, less than 0.1", ratio)
	}
	fwd := float64(m.ForwardFLOPsPerToken(4096))
	par := m.Params()
	w := par.Active - par.Embedding - par.OutputLayer - m.finalNormParams() + float64(m.Vocab*m.Hidden)
	adapters := float64(m.Layers) * m.layerAdapterParams(Plan{TP: 1, LoRARank: 16, LoRATargets: AllTargets}, false)
	want := 3*fwd - 2*w + 6*adapters
	if got := float64(rl.Performance.ModelFLOPsPerToken); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("LoRA model FLOPs/token = %g, want %g", got, want)
	}
	var grads hardware.Bytes
	for _, l := range rl.Traffic {
		if l.Kind == CommDPGrads {
			grads += l.Message * hardware.Bytes(l.Calls)
		}
	}
	if want := hardware.Bytes(adapters * 2); grads != want {
		t.Errorf("LoRA gradient reduction %v per step, want the adapters' bf16 gradients %v", grads, want)
	}
}

// ZeRO-Offload's CPU step of Llama 3 70B sharded over 8 GPUs: 8.82e9
// parameters per GPU x 30 B at half of the DGX H100 host's 76.8 GB/s per
// GPU, 6.9 s, plus the 17.6 GB of bf16 weights back over PCIe Gen5
// (64 GB/s), 0.28 s; with one micro-batch the gradients' 17.6 GB to the
// host are hidden behind the backward but for one layer's share.
func TestOffloadTime70B(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 8, 0)
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 8, ZeRO: 3, Recompute: Full, MicroBatch: 1, GlobalBatch: 8, Seq: 8192, Offload: OffloadOptimizer}
	r, err := Estimate(m, c, p, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	shard := m.Params().Total / 8
	cpu := shard * 30 / (76.8e9 * 0.5)
	h2d := shard * 2 / 64e9
	d2h := shard * 2 / 64e9 / 80
	got := float64(r.Performance.Breakdown.Offload)
	if want := cpu + h2d + d2h; math.Abs(got/want-1) > 0.01 {
		t.Errorf("offload time %.3f s, want %.3f s (CPU Adam %.2f + weights back %.3f + last layer's gradients %.4f)", got, want, cpu, h2d, d2h)
	}
	if r.Performance.Breakdown.Optimizer != 0 {
		t.Errorf("the GPU optimizer step is %v, want 0 (it runs on the CPU)", r.Performance.Breakdown.Optimizer)
	}
	if r.Host == nil || !r.Host.Fits || math.Abs(float64(r.Host.Total)/(shard*16)-1) > 1e-9 {
		t.Errorf("host memory %+v, want 16 B x %g params and fits", r.Host, shard)
	}
}
