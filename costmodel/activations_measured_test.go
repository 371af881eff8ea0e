package costmodel

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
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
				Shared    int
				SharedFFN int `json:"shared_ffn"`
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
// layer (RMSNorm, SwiGLU, grouped-query attention), an MoE layer (8
// experts, top-2) and one with a shared expert, and the Llama layer under LoRA (r = 8, frozen base) on
// q and v only and on every projection. Each layer is measured under
// every recompute policy the script runs (its plan string: none, full,
// Megatron's selective, Megatron's recompute modules alone and combined,
// torchtitan's op-level policy opsac); the LoRA layers without recompute,
// under full checkpointing and under selective. Under LoRA on q and v, PyTorch does not
// keep the inputs of the frozen o, gate/up and down projections
// (autograd saves a matmul's input only for its weight's gradient), as
// the planner.
//
// The tensors the planner leaves out, each explained and taken off the
// measured total before the comparison:
//   - per-token statistics and scalars: the norms' fp32 mean and 1/std
//     (4 to 8 bytes per token per norm), the router's top-k weights and
//     their sum, the python scalars of the softmax scale (8 bytes);
//   - MoE routing indices (int64) and the router's fp32 top-k weights
//     before the combine's bf16 copy, a few bytes per routed token; the
//     top-k expert index of each token is the planner's token
//     permutation index map, counted at the 4 bytes per element of
//     Megatron's int32 map;
//   - PyTorch 1.13's CPU dropout keeps its mask in the input dtype
//     (2 bytes per element); the CUDA kernel the planner models keeps a
//     1-byte mask, so masks are counted at 1 byte.
//
// What remains must equal the planner's inventory within 0.1%, in total
// and in the s x s attention tensors alone; and the explained extras
// must stay below 1% of the layer. A failure lists both sides tensor by
// tensor.
func TestActivationsAgainstPyTorch(t *testing.T) {
	meas := readMeasured(t)
	if len(meas.Layers) != 6 {
		t.Fatalf("%d measured layers, want gpt, llama, llama-lora-qv, llama-lora-all, moe, moe-shared", len(meas.Layers))
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
			m.MoE = &MoE{Experts: c.MoE.Experts, TopK: c.MoE.TopK, ExpertFFN: c.MoE.ExpertFFN, Shared: c.MoE.Shared, SharedFFN: c.MoE.SharedFFN}
			if m.FFN == 0 {
				m.FFN = c.MoE.ExpertFFN // no dense layer uses it; Model.Validate wants one
			}
		}
		base := Plan{TP: 1, PP: 1, CP: 1, DP: 1, VPP: 1, Seq: c.Seq, MicroBatch: c.Batch, Attention: Eager}
		if c.LoRA != nil {
			targets, err := ParseLoRATargets(strings.Join(c.LoRA.Targets, ","))
			if err != nil {
				t.Fatal(err)
			}
			base.Task, base.LoRARank, base.LoRATargets = LoRA, c.LoRA.Rank, targets
		}
		checkPolicies(t, c.Name, c.LoRA != nil, l.Modes)
		for _, mode := range slices.Sorted(maps.Keys(l.Modes)) {
			got := l.Modes[mode]
			p := base
			var err error
			if p.Recompute, p.RecomputeModules, err = parsePolicy(mode); err == nil {
				err = p.checkModules(m)
			}
			if err != nil {
				t.Fatalf("%s: measured policy %q: %v", c.Name, mode, err)
			}
			want, wantQuad, listing := plannerSaved(t, m, p)
			topK := 0
			if c.MoE != nil {
				topK = c.MoE.TopK
			}
			model, extra, mask, gotQuad := classify(got.Tensors, c.Seq, c.Batch*c.Seq, topK, c.Dropout)
			ok := true
			if model+extra+mask != got.Total {
				t.Errorf("%s %s: tensors sum to %g, total %g", c.Name, mode, model+extra+mask, got.Total)
				ok = false
			}
			if d := model/want - 1; want <= 0 || math.Abs(d) > 1e-3 {
				t.Errorf("%s recompute %s: PyTorch saves %g bytes of modeled tensors, the planner %g (%+.2f%%)", c.Name, mode, model, want, 100*d)
				ok = false
			}
			if extra > 0.01*got.Total {
				t.Errorf("%s %s: %g bytes outside the model, over 1%% of %g", c.Name, mode, extra, got.Total)
				ok = false
			}
			if math.Abs(gotQuad-wantQuad) > 1e-3*max(wantQuad, 1) {
				t.Errorf("%s %s: s x s tensors %g bytes, planner %g", c.Name, mode, gotQuad, wantQuad)
				ok = false
			}
			if !ok {
				t.Logf("%s %s, PyTorch's saved tensors:", c.Name, mode)
				for i, s := range got.Tensors {
					t.Logf("  %3d %-26s %-14s %-8s %9.0f B", i, s.GradFn, fmt.Sprint(s.Shape), s.DType, s.Bytes)
				}
				t.Logf("%s %s, the planner's:\n%s", c.Name, mode, listing)
			}
			t.Logf("%s recompute %-38s: planner %9.0f B, PyTorch %9.0f B (+%.0f B of statistics and indices, +%.0f B of 2-byte CPU masks)",
				c.Name, mode, want, model, extra, mask)
		}
	}
}

// checkPolicies fails unless a layer was measured under every policy
// the comparison covers: none, full and Megatron's selective, and for a
// layer without LoRA at least two recompute-module sets and opsac.
func checkPolicies(t *testing.T, name string, lora bool, modes map[string]struct {
	Total   float64 `json:"total_bytes"`
	Tensors []savedTensor
}) {
	t.Helper()
	need := []string{"none", "full", "selective"}
	if !lora {
		need = append(need, "opsac")
	}
	for _, n := range need {
		if _, ok := modes[n]; !ok {
			t.Errorf("%s: no %s measurement", name, n)
		}
	}
	var sets int
	for n := range modes {
		if strings.HasPrefix(n, "selective[") {
			sets++
		}
	}
	if !lora && sets < 2 {
		t.Errorf("%s: %d recompute-module measurements, want at least 2", name, sets)
	}
}

// parsePolicy reads a measured policy, a plan's recompute field: none,
// full, selective, opsac or selective[module,...].
func parsePolicy(s string) (Recompute, RecomputeModules, error) {
	if mods, ok := strings.CutPrefix(s, "selective["); ok {
		if !strings.HasSuffix(mods, "]") {
			return 0, 0, fmt.Errorf("%s: missing ]", s)
		}
		m, err := ParseRecomputeModules(strings.TrimSuffix(mods, "]"))
		return Selective, m, err
	}
	r, err := ParseRecompute(s)
	return r, 0, err
}

// plannerSaved is the planner's saved bytes for one layer of m under
// plan p, as the estimate sums them (Evaluator.layerSaved, with an
// unweighted combine and balanced routing, as the measured layer), its
// s x s attention tensors apart, and its tensors listed one a line.
func plannerSaved(t *testing.T, m *Model, p Plan) (total, quad float64, listing string) {
	t.Helper()
	a := DefaultAssumptions()
	a.MoEWeightedActivation, a.MoELoadImbalance, a.MoECapacityFactor = false, 1, 0
	e, err := NewEvaluator(m, cluster(t, "h100-sxm", 8), a)
	if err != nil {
		t.Fatal(err)
	}
	moe := m.MoE != nil
	sh := e.newActShape(p)
	sh.setExperts(p, a.expertRowFactor())
	total = e.layerSaved(sh, p, p.Recompute, moe)
	specs := e.specs[p.Attention][boolIndex(moe)]
	if p.Recompute == OpSAC {
		specs = e.sac[p.Attention][boolIndex(moe)]
	}
	var b strings.Builder
	if p.Recompute == Full {
		fmt.Fprintf(&b, "  %-60s %9.0f B\n", "layer input (the checkpoint's input)", total)
		return total, 0, b.String()
	}
	for _, s := range specs {
		state := "saved"
		switch {
		case !sh.kept(s):
			state = "not kept (frozen)"
		case sh.dropped(s, p.Recompute):
			state = "recomputed"
		case s.quadratic:
			quad += sh.bytes(s)
		}
		fmt.Fprintf(&b, "  %-60s %9.0f B  %s\n", s.name, sh.bytes(s), state)
	}
	if ad := sh.adapterActs(m, p, moe); ad > 0 && !p.Recompute.Checkpointed() {
		fmt.Fprintf(&b, "  %-60s %9.0f B  saved\n", "LoRA adapters' own tensors", ad)
	}
	return total, quad, b.String()
}

// classify splits the measured tensors into those the planner models
// (with CPU dropout masks at 1 byte per element and the tokens x top-k
// int64 expert indices at 4) and the extras the test explains
// (statistics and indices; the second byte of CPU dropout masks, the
// upper half of the indices), and sums the s x s attention tensors.
func classify(ts []savedTensor, seq, tokens, topK int, dropout bool) (model, extra, mask, quad float64) {
	for i, s := range ts {
		last := 0
		if len(s.Shape) > 0 {
			last = s.Shape[len(s.Shape)-1]
		}
		switch {
		case topK > 0 && s.DType == "int64" && slices.Equal(s.Shape, []int{tokens, topK}):
			model += s.Bytes / 2
			extra += s.Bytes / 2
			continue
		case topK > 0 && s.DType == "bfloat16" && len(s.Shape) == 2 && last == 1:
			// an expert's routing probabilities, kept by the combine
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
