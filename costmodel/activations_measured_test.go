package costmodel

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// measuredActivations is costmodel/testdata/activations/measured.json,
// written by scripts/measure-activations.py: every tensor PyTorch's
// autograd saves for one layer (saved_tensors_hooks), counted once per
// storage, in bf16 on the CPU.
type measuredActivations struct {
	Torch  string `json:"torch"`
	Layers []struct {
		Config struct {
			Name          string
			Hidden, Heads int
			KVHeads       int `json:"kv_heads"`
			HeadDim       int `json:"head_dim"`
			FFN, Seq      int
			Batch         int
			Norm, MLP     string
			Dropout       bool
			LoRA          *struct {
				Rank    int
				Targets []string
			}
			MoE *struct {
				Experts   int
				TopK      int `json:"top_k"`
				ExpertFFN int `json:"expert_ffn"`
			}
		}
		Modes map[string]struct {
			Total   float64 `json:"total_bytes"`
			Tensors []savedTensor
		}
	}
}

type savedTensor struct {
	Shape  []int
	DType  string
	Bytes  float64
	GradFn string `json:"grad_fn"`
}

func readMeasured(t *testing.T) measuredActivations {
	t.Helper()
	raw, err := os.ReadFile("testdata/activations/measured.json")
	if err != nil {
		t.Fatal(err)
	}
	var m measuredActivations
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestActivationsAgainstPyTorch compares the planner's per-layer saved
// activations (eager attention, one micro-batch, tp 1) with what PyTorch
// saves for a GPT layer (LayerNorm, GeLU, dropout, multi-head), a Llama
// layer (RMSNorm, SwiGLU, grouped-query attention) and an MoE layer (8
// experts, top-2), and the Llama layer under LoRA (r = 8, frozen base) on
// q and v only and on every projection, without recompute and under full
// checkpointing. Under LoRA on q and v, PyTorch does not keep the inputs
// of the frozen o, gate/up and down projections (autograd saves a
// matmul's input only for its weight's gradient), as the planner.
//
// The tensors the planner leaves out, each explained and taken off the
// measured total before the comparison:
//   - per-token statistics and scalars: the norms' fp32 mean and 1/std
//     (4 to 8 bytes per token per norm), the router's top-k weights and
//     their sum, the python scalars of the softmax scale (8 bytes);
//   - MoE routing indices (int64), a few bytes per routed token;
//   - PyTorch 1.13's CPU dropout keeps its mask in the input dtype
//     (2 bytes per element); the CUDA kernel the planner models keeps a
//     1-byte mask, so masks are counted at 1 byte.
//
// What remains must equal the planner's inventory within 0.1%, in total
// and in the s x s attention tensors alone; and the explained extras
// must stay below 1% of the layer.
func TestActivationsAgainstPyTorch(t *testing.T) {
	meas := readMeasured(t)
	if len(meas.Layers) != 5 {
		t.Fatalf("%d measured layers, want gpt, llama, llama-lora-qv, llama-lora-all, moe", len(meas.Layers))
	}
	for _, l := range meas.Layers {
		c := l.Config
		m := &Model{Name: c.Name, Layers: 1, Hidden: c.Hidden, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
			FFN: c.FFN, Vocab: 1024, MaxSeq: c.Seq, Dropout: c.Dropout}
		if c.Norm == "rmsnorm" {
			m.Norm = RMSNorm
		}
		if c.MLP == "swiglu" {
			m.MLP = SwiGLU
		}
		if c.MoE != nil {
			m.MoE = &MoE{Experts: c.MoE.Experts, TopK: c.MoE.TopK, ExpertFFN: c.MoE.ExpertFFN}
		}
		p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, VPP: 1, Seq: c.Seq, MicroBatch: c.Batch, Attention: Eager}
		if c.LoRA != nil {
			targets, err := ParseLoRATargets(strings.Join(c.LoRA.Targets, ","))
			if err != nil {
				t.Fatal(err)
			}
			p.Task, p.LoRARank, p.LoRATargets = LoRA, c.LoRA.Rank, targets
		}
		sh := newActShape(m, p)
		specs := layerTensors(m, Eager, m.MoE != nil, false)
		var quad float64
		for _, s := range specs {
			if s.quadratic {
				quad += sh.bytes(s)
			}
		}
		for _, mode := range []string{"none", "full"} {
			want := sh.saved(specs, NoRecompute) + sh.adapterActs(m, p, m.MoE != nil)
			if mode == "full" {
				want = sh.saved(specs, Full)
			}
			got, ok := l.Modes[mode]
			if !ok {
				t.Fatalf("%s: no %s measurement", c.Name, mode)
			}
			model, extra, mask, gotQuad := classify(got.Tensors, c.Seq, c.Dropout)
			if model+extra+mask != got.Total {
				t.Errorf("%s %s: tensors sum to %g, total %g", c.Name, mode, model+extra+mask, got.Total)
			}
			if d := model/want - 1; want <= 0 || math.Abs(d) > 1e-3 {
				t.Errorf("%s recompute %s: PyTorch saves %g bytes of modeled tensors, the planner %g (%+.2f%%)", c.Name, mode, model, want, 100*d)
			}
			if extra > 0.01*got.Total {
				t.Errorf("%s %s: %g bytes outside the model, over 1%% of %g", c.Name, mode, extra, got.Total)
			}
			if mode == "none" && math.Abs(gotQuad-quad) > 1e-3*quad {
				t.Errorf("%s: s x s tensors %g bytes, planner %g", c.Name, gotQuad, quad)
			}
			t.Logf("%s recompute %-4s: planner %9.0f B, PyTorch %9.0f B (+%.0f B of statistics and indices, +%.0f B of 2-byte CPU masks)",
				c.Name, mode, want, model, extra, mask)
		}
	}
}

// classify splits the measured tensors into those the planner models
// (with CPU dropout masks at 1 byte per element) and the extras the test
// explains (statistics and indices; the second byte of CPU dropout
// masks), and sums the s x s attention tensors.
func classify(ts []savedTensor, seq int, dropout bool) (model, extra, mask, quad float64) {
	for i, s := range ts {
		last := 0
		if len(s.Shape) > 0 {
			last = s.Shape[len(s.Shape)-1]
		}
		switch {
		case s.DType == "int64" || len(s.Shape) == 0 || last <= 2:
			extra += s.Bytes
			continue
		case dropout && i > 0 && s.GradFn == "" && len(s.Shape) >= 2:
			mask += s.Bytes / 2
			model += s.Bytes / 2
			if last == seq {
				quad += s.Bytes / 2
			}
			continue
		}
		model += s.Bytes
		if len(s.Shape) == 3 && last == seq && s.Shape[1] >= seq {
			quad += s.Bytes
		}
	}
	return model, extra, mask, quad
}
