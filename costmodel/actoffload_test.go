package costmodel

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// actOffloadGPT is an 8-layer GPT of hidden h and a heads with eager
// attention, whose layer saves s*b*h*(34 + 5*a*s/h) bytes (Korthikanti
// et al. 2022, Table 2).
func actOffloadGPT(h, a int) *Model {
	return megatronGPT("gpt-offload", "test", 8, h, a, 51200, 1<<20)
}

func closeTo(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

// TestActivationOffloadMemory: on a 1F1B pipeline of two 4-layer stages
// with 4 micro-batches, stage 0 holds 2 micro-batches in flight and
// stage 1 one (min(pp-r, m)). Offloading 2 layers moves 2 x L x in
// flight to the host and keeps one layer (L, one micro-batch) as the
// transfer buffer; L = s*b*h*(34 + 5as/h).
func TestActivationOffloadMemory(t *testing.T) {
	m := actOffloadGPT(4096, 32)
	c, err := hardware.ClusterForGPUs(mustGPU(t, "h100-sxm"), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := Plan{TP: 1, PP: 2, CP: 1, DP: 1, Recompute: NoRecompute, MicroBatch: 1, GlobalBatch: 4, Seq: 2048, Attention: Eager}
	s, b, h, a := 2048.0, 1.0, 4096.0, 32.0
	L := s * b * h * (34 + 5*a*s/h) // 956,301,312 B
	on := base
	on.OffloadActivationLayers = 2
	e, err := NewEvaluator(m, c, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	pOff, err := on.Normalize(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	pBase, _ := base.Normalize(m, 2)
	for r, inFlight := range []float64{2, 1} {
		before, after := e.Stage(pBase, r), e.Stage(pOff, r)
		if !closeTo(float64(before.LayerActivations), 4*inFlight*L) {
			t.Fatalf("stage %d without offload: %v of layer activations, want 4 x %g x %g", r, before.LayerActivations, inFlight, L)
		}
		if got, want := float64(after.HostActivations), 2*inFlight*L; !closeTo(got, want) {
			t.Errorf("stage %d: %v in host memory, want 2 layers x %g in flight x %g = %g", r, after.HostActivations, inFlight, L, want)
		}
		if got, want := float64(after.LayerActivations), 2*inFlight*L; !closeTo(got, want) {
			t.Errorf("stage %d: %v of layer activations kept, want 2 x %g x %g = %g", r, after.LayerActivations, inFlight, L, want)
		}
		if !closeTo(float64(after.ActivationOffloadBuffer), L) {
			t.Errorf("stage %d: offload buffer %v, want one layer %g", r, after.ActivationOffloadBuffer, L)
		}
		// The total drops by what leaves the GPU less the buffer, with
		// the allocator's fragmentation on top.
		want := (2*inFlight*L - L) * (1 + DefaultAssumptions().Fragmentation)
		if got := float64(before.Total - after.Total); math.Abs(got-want) > 4 {
			t.Errorf("stage %d: total drops by %.0f B, want %.0f", r, got, want)
		}
	}
	r, err := e.Estimate(on)
	if err != nil {
		t.Fatal(err)
	}
	if r.Host == nil || !closeTo(float64(r.Host.Total), 4*L) || !r.Host.Fits {
		t.Fatalf("host inventory %+v, want the peak stage's 2 layers x 2 in flight x %g, fitting", r.Host, L)
	}
	if n := r.Host.Lines[0].Name; n != "host: offloaded activations" {
		t.Errorf("host line %q", n)
	}
}

// actOffloadStep estimates m micro-batches of the 8-layer GPT on one
// GPU and returns the report with and without offloading n layers.
func actOffloadStep(t *testing.T, gpu string, h, a, seq, n int) (on, off *Report) {
	t.Helper()
	m := actOffloadGPT(h, a)
	c, err := hardware.ClusterForGPUs(mustGPU(t, gpu), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Recompute: NoRecompute, MicroBatch: 1, GlobalBatch: 2, Seq: seq, Attention: Eager}
	off, err = Estimate(m, c, p, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	p.OffloadActivationLayers = n
	on, err = Estimate(m, c, p, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	return on, off
}

// TestActivationOffloadTimeExposed: an A100's PCIe Gen4 link (32 GB/s)
// moves one GPT layer (h 4096, s 2048: 956 MB) in 29.9 ms, longer than
// the layer's forward and backward, so per step
// m x n x ((L/B - fwd) + (L/B - bwd)) is exposed and added to the step.
func TestActivationOffloadTimeExposed(t *testing.T) {
	on, off := actOffloadStep(t, "a100-80gb", 4096, 32, 2048, 3)
	L := 2048.0 * 4096 * (34 + 5*32*2048.0/4096)
	copyT := L / 32e9
	b := on.Performance.Breakdown
	fwd, bwd := float64(b.LayerForward), float64(b.LayerBackward)
	if copyT <= bwd || copyT <= fwd {
		t.Fatalf("precondition: copy %.4f s, forward %.4f s, backward %.4f s: want the link slower than both", copyT, fwd, bwd)
	}
	want := 2 * 3 * ((copyT - fwd) + (copyT - bwd))
	if got := float64(b.ActivationOffload); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("exposed activation copies %.6f s, want 2 micro-batches x 3 layers x ((%.4f - %.4f) + (%.4f - %.4f)) = %.6f s", got, copyT, fwd, copyT, bwd, want)
	}
	if got, want := float64(b.Total-off.Performance.Breakdown.Total), float64(b.ActivationOffload); math.Abs(got-want) > 1e-9 {
		t.Errorf("the step grows by %.6f s, want the exposed copies %.6f s", got, want)
	}
}

// TestActivationOffloadTimeHidden: on GB200 (NVLink-C2C, 450 GB/s) a wide
// layer (h 16384, s 1024: 1.14 GB, 2.5 ms) copies faster than its
// forward and backward compute, so nothing is exposed.
func TestActivationOffloadTimeHidden(t *testing.T) {
	on, off := actOffloadStep(t, "gb200", 16384, 128, 1024, 3)
	L := 1024.0 * 16384 * (34 + 5*128*1024.0/16384)
	copyT := L / 450e9
	b := on.Performance.Breakdown
	if fwd := float64(b.LayerForward); copyT >= fwd {
		t.Fatalf("precondition: copy %.4f s, forward %.4f s: want the forward longer", copyT, fwd)
	}
	if b.ActivationOffload != 0 {
		t.Errorf("exposed activation copies %v, want 0 (hidden behind the next layer's compute)", b.ActivationOffload)
	}
	if b.Total != off.Performance.Breakdown.Total {
		t.Errorf("step %v with offload, %v without: want equal", b.Total, off.Performance.Breakdown.Total)
	}
}

// TestActivationOffloadJSON: the plan's field is snake_case, omitted at
// zero, and reads back.
func TestActivationOffloadJSON(t *testing.T) {
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, OffloadActivationLayers: 3}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"offload_activation_layers":3`) {
		t.Errorf("plan JSON %s has no offload_activation_layers 3", b)
	}
	var q Plan
	if err := json.Unmarshal(b, &q); err != nil || q != p {
		t.Errorf("read back %+v (%v), want %+v", q, err, p)
	}
	p.OffloadActivationLayers = 0
	if b, _ := json.Marshal(p); strings.Contains(string(b), "offload_activation") {
		t.Errorf("plan JSON %s names the activation offload at zero", b)
	}
}

// TestActivationOffloadValidation: Megatron-Core's range [0, layers) per
// stage, no recompute, no interleaving.
func TestActivationOffloadValidation(t *testing.T) {
	m := actOffloadGPT(4096, 32)
	for _, tt := range []struct {
		p    Plan
		want string
	}{
		{Plan{TP: 1, PP: 2, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 2, Seq: 2048, OffloadActivationLayers: 4}, "offload activations 4 is not in [0, 3]"},
		{Plan{TP: 1, PP: 1, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 2048, OffloadActivationLayers: -2}, "offload activations -2 is not in [0, 7]"},
		{Plan{TP: 1, PP: 1, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 1, Seq: 2048, Recompute: Full, OffloadActivationLayers: 2}, "needs recompute none (got full)"},
		{Plan{TP: 1, PP: 2, VPP: 2, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 4, Seq: 2048, OffloadActivationLayers: 1}, "not modeled with the interleaved schedule"},
	} {
		if _, err := tt.p.Normalize(m, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.p, err, tt.want)
		}
	}
	ok := Plan{TP: 1, PP: 2, CP: 1, DP: 1, MicroBatch: 1, GlobalBatch: 2, Seq: 2048, OffloadActivationLayers: 3}
	if _, err := ok.Normalize(m, 0); err != nil {
		t.Errorf("3 of 4 layers per stage: %v", err)
	}
}
