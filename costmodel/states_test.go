package costmodel

import (
	"math"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

func TestBytesPerParam(t *testing.T) {
	tests := []struct {
		p    Precision
		o    Optimizer
		want float64
	}{
		{BF16, Adam, 16}, // 2 + 2 + 4 + 8 (ZeRO paper, section 3.1)
		{FP32, Adam, 16}, // 4 + 4 + 8, no master copy
		{BF16, SGD, 8},   // 2 + 2 + 4 master
		{BF16, Momentum, 12},
		{BF16, Adam8bit, 10 + 8.0/2048},
		{FP32, SGD, 8},
	}
	for _, tt := range tests {
		if got := BytesPerParam(tt.p, tt.o, false).Total(); got != tt.want {
			t.Errorf("%v %v: %g bytes per param, want %g", tt.p, tt.o, got, tt.want)
		}
	}
	if got := BytesPerParam(BF16, Adam, true).Total(); got != 18 {
		t.Errorf("fp32 gradients: %g bytes per param, want 18", got)
	}
}

// TestZeROStages reproduces the standard sizing of Llama 3 70B with
// mixed-precision Adam: 1.13 TB of model states; on 64 GPUs DDP 1.13 TB,
// ZeRO-1 296 GB, ZeRO-2 156 GB, ZeRO-3 17.6 GB per GPU (ZeRO paper
// formulas 16P, 4P + 12P/N, 2P + 14P/N, 16P/N). Tolerance 0.5%: the
// published figures are rounded to three digits.
func TestZeROStages(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	P := m.Params().Total
	sb := BytesPerParam(BF16, Adam, false)
	want := []float64{1.13e12, 296e9, 156e9, 17.6e9}
	for z, w := range want {
		if got := sb.Shard(P, z, 64).Total(); !within(got, w, 0.005) {
			t.Errorf("ZeRO-%d: %.4g bytes per GPU, want %.4g", z, got, w)
		}
	}
}

// TestGPUsForStates: 1.13 TB of states need 14 H100s or 6 B200s by the
// driver-reported capacity, and 15 and 7 within the 90% budget.
func TestGPUsForStates(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	states := hardware.Bytes(m.Params().Total * BytesPerParam(BF16, Adam, false).Total())
	tests := []struct {
		gpu            string
		raw, budgetted int
	}{{"h100-sxm", 14, 15}, {"b200", 6, 7}}
	for _, tt := range tests {
		g, _ := hardware.LookupGPU(tt.gpu)
		if got := int(math.Ceil(float64(states / g.HBM))); got != tt.raw {
			t.Errorf("%s: %d GPUs by raw capacity, want %d", tt.gpu, got, tt.raw)
		}
		if got := int(math.Ceil(float64(states / (0.9 * g.HBM)))); got != tt.budgetted {
			t.Errorf("%s: %d GPUs within 90%%, want %d", tt.gpu, got, tt.budgetted)
		}
	}
}

// TestZeRO3LeavesRoom: ZeRO-3 over 64 H100s leaves about 62 GB of an
// 80 GB (vendor-quoted) GPU for activations.
func TestZeRO3LeavesRoom(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c := cluster(t, "h100-sxm", 64)
	r, err := Estimate(m, c, Plan{TP: 1, PP: 1, CP: 1, DP: 64, ZeRO: 3, MicroBatch: 1, GlobalBatch: 64, Seq: 8192}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	st := r.Stages[0].ModelStates()
	if room := 80*hardware.GB - st; !within(float64(room), 62e9, 0.01) {
		t.Errorf("80 GB - %v of states = %v, want about 62 GB", st, room)
	}
}

// TestMoreShardingNeverGrows: a higher ZeRO stage never increases the
// per-GPU model states.
func TestMoreShardingNeverGrows(t *testing.T) {
	for _, o := range []Optimizer{Adam, Adam8bit, Momentum, SGD} {
		for _, p := range []Precision{BF16, FP32} {
			sb := BytesPerParam(p, o, false)
			for n := 1; n <= 1024; n *= 4 {
				prev := math.Inf(1)
				for z := 0; z <= 3; z++ {
					got := sb.Shard(1e9, z, n).Total()
					if got > prev {
						t.Errorf("%v %v n=%d: ZeRO-%d %g > ZeRO-%d %g", p, o, n, z, got, z-1, prev)
					}
					prev = got
				}
			}
		}
	}
}

func cluster(t testing.TB, gpu string, n int) hardware.Cluster {
	t.Helper()
	g, err := hardware.LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	c, err := hardware.ClusterForGPUs(g, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Apex's DistributedFusedAdam in bf16 (NeMo's optim dtype bf16,
// grad_sync_dtype bf16): bf16 moments and gradients, a bf16 weight copy
// only under FP8 weights (store_params), none otherwise.
func TestModelStateBytesBF16Optimizer(t *testing.T) {
	a := Assumptions{GradAccumFP32: true}
	if got, want := a.ModelStateBytes(BF16, Adam), (StateBytes{Weight: 2, Grad: 4, Master: 4, Moments: 8}); got != want {
		t.Errorf("fp32 optimizer: %+v, want %+v", got, want)
	}
	a.BF16OptimizerStates = true
	if got, want := a.ModelStateBytes(BF16, Adam), (StateBytes{Weight: 2, Grad: 2, Master: 0, Moments: 4}); got != want {
		t.Errorf("bf16 optimizer: %+v, want %+v", got, want)
	}
	a.FP8ParamStorage = true
	if got, want := a.ModelStateBytes(FP8, Adam), (StateBytes{Weight: 2, Grad: 2, Master: 2, Moments: 4}); got != want {
		t.Errorf("bf16 optimizer, FP8 weights: %+v, want %+v", got, want)
	}
}
