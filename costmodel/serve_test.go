package costmodel

import (
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestKVPerToken reproduces the standard KV-cache figures: Llama 3 70B in
// bf16 is 320 KiB per token (2 x 80 layers x 8 KV heads x 128 x 2 bytes),
// 2.5 MiB if all 64 heads were KV heads; Llama 3.1 8B 0.13 MB; DeepSeek-V3's
// 576-wide latent over 61 layers about 69 KiB; fp8 halves it.
func TestKVPerToken(t *testing.T) {
	l70, _ := LookupModel("llama3-70b")
	l8, _ := LookupModel("llama3.1-8b")
	ds, _ := LookupModel("deepseek-v3")
	mha := l70.clone()
	mha.KVHeads = 64
	tests := []struct {
		name string
		got  hardware.Bytes
		want hardware.Bytes
	}{
		{"llama3-70b bf16", l70.KVPerToken(DTypeBF16), 320 * hardware.KiB},
		{"llama3-70b fp8", l70.KVPerToken(DTypeFP8), 160 * hardware.KiB},
		{"llama3-70b with 64 KV heads", mha.KVPerToken(DTypeBF16), 2.5 * hardware.MiB},
		{"llama3.1-8b bf16", l8.KVPerToken(DTypeBF16), 128 * hardware.KiB},
		{"deepseek-v3 bf16", ds.KVPerToken(DTypeBF16), 61 * 576 * 2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v per token, want %v", tt.name, tt.got, tt.want)
		}
	}
	if kib := float64(ds.KVPerToken(DTypeBF16) / hardware.KiB); kib < 68.5 || kib > 69.5 {
		t.Errorf("deepseek-v3: %.1f KiB per token, want about 69", kib)
	}
	if r := float64(mha.KVPerToken(DTypeBF16) / l70.KVPerToken(DTypeBF16)); r != 8 {
		t.Errorf("GQA saving %gx, want 8x", r)
	}
}

// TestKVPerSequence: Llama 3 70B holds 2.7 GB of KV cache for an 8k
// context and 43 GB for 128k; Llama 3.1 8B 0.54 GB for 4,096 tokens and
// 17 GB at 128k.
func TestKVPerSequence(t *testing.T) {
	l70, _ := LookupModel("llama3-70b")
	l8, _ := LookupModel("llama3.1-8b")
	tests := []struct {
		name string
		m    *Model
		n    int
		want float64
		tol  float64
	}{
		{"70b 8k", l70, 8192, 2.7e9, 0.01},
		{"70b 128k", l70, 131072, 43e9, 0.01},
		{"8b 4096", l8, 4096, 0.54e9, 0.01},
		{"8b 128k", l8, 131072, 17e9, 0.02},
	}
	for _, tt := range tests {
		if got := tt.m.kvPerSequence(tt.n, tt.m.Layers, 0, 1, DTypeBF16); !within(got, tt.want, tt.tol) {
			t.Errorf("%s: %.4g bytes, want %.3g", tt.name, got, tt.want)
		}
	}
}

// TestServe8B: Llama 3.1 8B in bf16 on one 80 GB GPU: 16 GB weights +
// 1.5 GB workspace + 1 GB CUDA context + 0.54 GB KV for one 4,096-token
// conversation = about 19 GB.
func TestServe8B(t *testing.T) {
	m, _ := LookupModel("llama3.1-8b")
	r, err := EstimateServe(m, cluster(t, "h100-sxm", 1), ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 4096, Users: 1}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	if !within(float64(r.Memory.Total), 19.1e9, 0.01) {
		t.Errorf("total %v, want about 19 GB", r.Memory.Total)
	}
	if !within(float64(r.Memory.Group(GroupStates)), 16.06e9, 0.001) {
		t.Errorf("weights %v, want 16.06 GB", r.Memory.Group(GroupStates))
	}
	// Users that fit: (budget - weights - overheads) / KV per sequence.
	free := float64(r.Memory.Budget) - 16.06e9 - 2.5e9
	if want := int(free / 0.537e9); r.MaxUsers < want-1 || r.MaxUsers > want+1 {
		t.Errorf("max users %d, want about %d", r.MaxUsers, want)
	}
}

// TestWeightsOnly: Llama 3 70B in bf16 is 141 GB of weights, more than
// one 80 GB GPU; 405B in bf16 is 810 GB, more than eight 80 GB GPUs
// (640 GB); in fp8 405B fits on eight H100s.
func TestWeightsOnly(t *testing.T) {
	l70, _ := LookupModel("llama3-70b")
	l405, _ := LookupModel("llama3-405b")
	if w := l70.Params().Total * 2; !within(w, 141e9, 0.001) {
		t.Errorf("70B bf16 weights %.4g, want 141 GB", w)
	}
	if w := l405.Params().Total * 2; !within(w, 811.7e9, 0.001) || w <= 640e9 {
		t.Errorf("405B bf16 weights %.4g, want about 810 GB (> 640 GB)", w)
	}
	c := cluster(t, "h100-sxm", 8)
	bf16, err := EstimateServe(l405, c, ServePlan{TP: 8, PP: 1, Replicas: 1, Context: 4096, Users: 1}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	fp8, _ := EstimateServe(l405, c, ServePlan{TP: 8, PP: 1, Replicas: 1, Context: 4096, Users: 1, Weights: DTypeFP8}, DefaultAssumptions())
	if bf16.Memory.Fits || !fp8.Memory.Fits {
		t.Errorf("405B on 8 H100s: bf16 fits=%v (want false), fp8 fits=%v (want true)", bf16.Memory.Fits, fp8.Memory.Fits)
	}
}

func TestServeErrors(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c := cluster(t, "h100-sxm", 8)
	bad := []ServePlan{
		{TP: 8, PP: 1, Replicas: 1, Context: 4096, Users: 0},
		{TP: 3, PP: 1, Replicas: 1, Context: 4096, Users: 1},
		{TP: 8, PP: 1, Replicas: 2, Context: 4096, Users: 1},
		{TP: 8, PP: 1, Replicas: 1, Context: 0, Users: 1},
		{TP: 8, PP: 1, Replicas: 1, Context: 4096, Users: 1, KV: DTypeInt4},
	}
	for _, s := range bad {
		if _, err := EstimateServe(m, c, s, DefaultAssumptions()); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
