package costmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// QLoRA's double quantization: 8/64 + 32/(64·256) = 0.127 bits of
// constants per parameter (Dettmers et al. 2023, sec. 3), 4.127 in all.
func TestNF4BitsPerParam(t *testing.T) {
	if got := NF4BitsPerParam() - 4; math.Abs(got-0.127) > 0.0005 {
		t.Errorf("NF4 constants = %.5f bits/param, want 0.127 (QLoRA sec. 3)", got)
	}
	if got := BaseNF4.Bytes(); math.Abs(got-4.127/8) > 1e-4 {
		t.Errorf("NF4 bytes/param = %g, want 0.5159", got)
	}
}

// Llama 3 70B, r = 16 on every projection: per layer
// q 16·(8192+8192), k and v 16·(8192+1024), o 16·(8192+8192), gate and
// up 16·(8192+28672), down 16·(28672+8192): 2,588,672 per layer and
// 207,093,760 for 80 layers, by hand from the config.json dimensions.
func TestLayerAdapterParamsLlama70B(t *testing.T) {
	m, err := LookupModel("llama3-70b")
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{TP: 1, LoRARank: 16, LoRATargets: AllTargets, Task: LoRA}
	want := 16.0 * (2*(8192+8192) + 2*(8192+1024) + 3*(8192+28672))
	if got := m.layerAdapterParams(p, false); got != want {
		t.Errorf("adapters per layer = %g, want %g", got, want)
	}
	if got := 80 * want; got != 207093760 {
		t.Errorf("80 layers = %g, want 207,093,760", got)
	}
	p.LoRATargets, _ = ParseLoRATargets("q_proj,v")
	if got, want := m.layerAdapterParams(p, false), 16.0*(8192+8192+8192+1024); got != want {
		t.Errorf("q,v adapters = %g, want %g", got, want)
	}
}

// The QLoRA paper fine-tunes a 65B model on one 48 GB GPU (sec. 1); the
// frozen 70B base in NF4 is 70.55e9 x 0.516 B ≈ 36.4 GB plus the bf16
// embedding and output (2 x 1.05e9 x 2 B): about 38 GB. The inventory
// must reproduce that within 1%, and a full bf16 LoRA base twice the
// layers' part.
func TestQLoRAStatesLlama70B(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 1, 0)
	r, err := Estimate(m, c, Plan{TP: 1, PP: 1, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 2048,
		Recompute: Full, Task: QLoRA}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	body := m.layersParams(1, m.Layers, 0)
	ends := m.Params().Total - body
	want := body*4.127/8 + ends*2
	s := r.Stages[0]
	if math.Abs(float64(s.BaseWeights)/want-1) > 0.01 {
		t.Errorf("NF4 base = %v, want %v", s.BaseWeights, hardware.Bytes(want))
	}
	if s.Gradients == 0 || float64(s.Gradients) != 2*s.AdapterParams {
		t.Errorf("adapter gradients = %v for %g adapter params, want 2 B each", s.Gradients, s.AdapterParams)
	}
	if !r.Memory.Fits {
		t.Errorf("QLoRA 70B at seq 2048 on one H100: %v does not fit", r.Memory.Total)
	}
	if !strings.Contains(r.Memory.Lines[0].Name, "NF4") {
		t.Errorf("first line %q, want the NF4 base", r.Memory.Lines[0].Name)
	}
}

func mustGPU(t *testing.T, name string) hardware.GPU {
	t.Helper()
	g, err := hardware.LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestTuneErrorsNameTheValue(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	base := Plan{TP: 1, PP: 1, CP: 1, DP: 2, MicroBatch: 1, GlobalBatch: 2, Seq: 2048}
	for _, c := range []struct {
		edit func(*Plan)
		want string
	}{
		{func(p *Plan) { p.Offload = OffloadOptimizer }, "offload optimizer needs zero 1, 2 or 3"},
		{func(p *Plan) { p.Offload, p.ZeRO = OffloadParams, 2 }, "offload params needs zero 3 (ZeRO-Infinity), not zero 2"},
		{func(p *Plan) { p.LoRARank = 8 }, "need task lora or qlora, not pretrain"},
		{func(p *Plan) { p.Task, p.BaseDType = LoRA, BaseNF4 }, "nf4 is QLoRA"},
		{func(p *Plan) { p.Task, p.LoRARank = LoRA, -1 }, "LoRA rank -1 is not in [1, 65536]"},
	} {
		p := base
		c.edit(&p)
		if _, err := p.Normalize(m, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	if _, err := ParseLoRATargets("q,x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("ParseLoRATargets: %v", err)
	}
}

// LoRA on Qwen3-30B-A3B (hidden 2048, 32 heads and 4 KV heads of 128,
// 128 routed experts of FFN 768, no shared expert), r = 16 on every
// projection, by hand from its config.json: attention q 16·(2048+4096),
// k and v 16·(2048+512), o 16·(4096+2048); each expert gate, up and down
// 16·(2048+768). A GPU holds the adapters of its experts/ep experts
// only, and etp splits each expert's width.
func TestLayerAdapterParamsLocalExperts(t *testing.T) {
	m, err := LookupModel("qwen3-30b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	attn := 16.0 * (2*(2048+4096) + 2*(2048+512))
	for _, c := range []struct {
		ep, etp int
		want    float64
	}{
		{1, 1, attn + 128*3*16*(2048+768)},
		{8, 1, attn + 16*3*16*(2048+768)},
		{128, 1, attn + 1*3*16*(2048+768)},
		{8, 2, attn + 16*3*16*(2048+384)},
	} {
		p := Plan{TP: 1, EP: c.ep, ETP: c.etp, LoRARank: 16, LoRATargets: AllTargets, Task: LoRA}
		if got := m.layerAdapterParams(p, true); got != c.want {
			t.Errorf("ep %d etp %d: adapters per MoE layer = %g, want %g", c.ep, c.etp, got, c.want)
		}
	}
}

// TestQLoRABaseCountsExperts: an MoE stage keeps its routed experts
// apart (ExpertParams), and the frozen base must still count them in
// NF4: Mixtral 8x7B on one GPU holds all 46.70 B parameters, of which
// the embedding, final norm and output layer (2 x 32000 x 4096 + 4096)
// stay bf16. Counting the layers with their experts but the stage
// without them made the embedding negative (-24 GB for the whole base).
func TestQLoRABaseCountsExperts(t *testing.T) {
	m, _ := LookupModel("mixtral-8x7b")
	c, _ := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 1, 0)
	r, err := Estimate(m, c, Plan{TP: 1, PP: 1, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 2048,
		Recompute: Full, Task: QLoRA}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	ends := 2*32000*4096 + 4096.0
	want := FrozenBaseBytes(m.Params().Total-ends, ends, BaseNF4)
	if got := float64(r.Stages[0].BaseWeights); math.Abs(got-want) > 1 {
		t.Errorf("NF4 base = %v, want %v", r.Stages[0].BaseWeights, hardware.Bytes(want))
	}
}
