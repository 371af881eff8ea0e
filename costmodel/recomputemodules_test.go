package costmodel

import (
	"encoding/json"
	"math"
	"math/bits"
	"strings"
	"testing"
)

// droppedPerToken is what selective recompute of mods drops from one
// layer of m (an MoE layer when moe) at tp 1, flash attention, in bytes
// per token: the saved bytes without recompute minus those with it.
func droppedPerToken(t *testing.T, m *Model, mods RecomputeModules, moe bool) float64 {
	t.Helper()
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, EP: 1, ETP: 1, Seq: 4096, MicroBatch: 2, Recompute: Selective, RecomputeModules: mods}
	sh := newActShape(m, p)
	ts := layerTensors(m, Flash, moe, false)
	return (sh.saved(ts, NoRecompute) - sh.saved(ts, Selective)) / sh.tokens
}

func lookup(t *testing.T, name string) *Model {
	t.Helper()
	m, err := LookupModel(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecomputeModulesDenseLayer: on a Llama 3.1 8B layer (h 4096, 32
// heads, f 14336, bf16) core_attn drops FlashAttention's fp32
// log-sum-exp (32 x 4 B a token), layernorm the two norm outputs (2 x h
// x 2 B), mlp the SwiGLU's gate and up output (2f) and the down
// projection input (f), 3f x 2 B (Korthikanti et al.'s tensor list,
// tensors.go; Megatron-Core transformer_config.py recompute_modules).
func TestRecomputeModulesDenseLayer(t *testing.T) {
	m := lookup(t, "llama3.1-8b")
	for _, tt := range []struct {
		mods RecomputeModules
		want float64
	}{
		{ModCoreAttn, 32 * 4},
		{ModLayerNorm, 2 * 2 * 4096},
		{ModMLP, 2 * 3 * 14336},
		{ModLayerNorm | ModMLP, 2*2*4096 + 2*3*14336},
		{ModCoreAttn | ModLayerNorm | ModMLP, 32*4 + 2*2*4096 + 2*3*14336},
	} {
		if got := droppedPerToken(t, m, tt.mods, false); got != tt.want {
			t.Errorf("%s: drops %g bytes a token, want %g", tt.mods, got, tt.want)
		}
	}
}

// TestRecomputeModulesMLA: on DeepSeek-V3 (128 heads, q_lora_rank 1536,
// kv_lora_rank 512, qk 128+64, v 128) mla_up_proj drops the two
// up-projection inputs (1536 + 512) and the queries, keys (128 x 192
// each) and values (128 x 128) they produce, 2 B each; the latents
// stay (multi_latent_attention.py, qkv_up_checkpoint).
func TestRecomputeModulesMLA(t *testing.T) {
	m := lookup(t, "deepseek-v3")
	want := 2.0 * (1536 + 512 + 128*192 + 128*192 + 128*128)
	if got := droppedPerToken(t, m, ModMLAUpProj, false); got != want {
		t.Errorf("mla_up_proj drops %g bytes a token, want %g", got, want)
	}
	// mlp acts on the dense layers only (the first three, f 18432).
	if got := droppedPerToken(t, m, ModMLP, false); got != 2*3*18432 {
		t.Errorf("mlp drops %g bytes a token of a dense layer, want %d", got, 2*3*18432)
	}
	if got := droppedPerToken(t, m, ModMLP, true); got != 0 {
		t.Errorf("mlp drops %g bytes a token of an MoE layer, want 0", got)
	}
}

// TestRecomputeModulesMoE: on Qwen3-30B-A3B (h 2048, 128 experts, top-8,
// fe 768, no shared experts) at tp 1 and balanced routing, moe_act drops
// the activation output (k x fe x 2 B a token) and keeps the fc1 output;
// moe drops the whole MoE MLP: fp32 router logits (128 x 4), the int32
// index map (8 x 4), the dispatched tokens (k x h x 2), the gate and up
// output (2 k fe x 2), the down input (k fe x 2) and the expert outputs
// and routing probabilities kept for an unweighted combine (k x h x 2,
// k x 2).
func TestRecomputeModulesMoE(t *testing.T) {
	m := lookup(t, "qwen3-30b-a3b")
	k, fe, h := 8.0, 768.0, 2048.0
	if got, want := droppedPerToken(t, m, ModMoEAct, true), 2*k*fe; got != want {
		t.Errorf("moe_act drops %g bytes a token, want %g", got, want)
	}
	want := 128*4 + k*4 + 2*k*h + 2*2*k*fe + 2*k*fe + 2*k*h + 2*k
	if got := droppedPerToken(t, m, ModMoE, true); got != want {
		t.Errorf("moe drops %g bytes a token, want %g", got, want)
	}
}

// TestRecomputeModulesTime: the recompute time of selective recompute
// is the forward of exactly its modules: core_attn alone is the default
// selective; the time of a union is the sum of its modules'; mlp's
// equals a dense MLP priced on its own; and the sum of every module of
// a dense layer stays below full recompute.
func TestRecomputeModulesTime(t *testing.T) {
	p := withTP(basePlan(8, 1, 1), 8, true, Selective)
	e, p := evalPlan(t, "llama3.1-8b", "h100", 0, DefaultAssumptions(), p)
	rec := func(mods RecomputeModules) float64 {
		q := p
		q.RecomputeModules = mods
		return float64(e.Performance(q).Breakdown.Recompute)
	}
	def, core := rec(0), rec(ModCoreAttn)
	if def != core || def <= 0 {
		t.Errorf("default selective recomputes %g s, core_attn %g s", def, core)
	}
	ln, mlp := rec(ModLayerNorm), rec(ModMLP)
	if both := rec(ModLayerNorm | ModMLP); math.Abs(both-(ln+mlp)) > 1e-12 || ln <= 0 || mlp <= ln {
		t.Errorf("layernorm %g s + mlp %g s, together %g s", ln, mlp, both)
	}
	q := p
	q.Recompute = Full
	if all, full := rec(ModCoreAttn|ModLayerNorm|ModMLP), float64(e.Performance(q).Breakdown.Recompute); all >= full {
		t.Errorf("every dense module recomputes %g s, full %g s", all, full)
	}
	r, sh := e.rates(p), newLayerShape(e.m, p)
	var c layerCost
	mlpKernels(pass{r: r, c: &c, t: sh.tokens}, e.m, float64(e.m.FFN)/sh.tp, float64(e.m.Hidden))
	got := e.layerCost(r, sh, false).mods[bits.TrailingZeros8(uint8(ModMLP))]
	if d := got.since(c.fwd); math.Abs(d.total()) > 1e-12*c.fwd.total() || math.Abs(d.flops) > 1e-9*c.fwd.flops {
		t.Errorf("mlp module forward %+v, a dense MLP alone %+v", got, c.fwd)
	}
}

// TestRecomputeModulesHardwareFLOPs: mlp adds the dense MLP's forward,
// 2 x 3 x h x f FLOPs a token per layer (32 layers of Llama 3.1 8B).
func TestRecomputeModulesHardwareFLOPs(t *testing.T) {
	m := lookup(t, "llama3.1-8b")
	if got, want := m.moduleFLOPsPerToken(ModMLP, 8192), 32*2*3*4096*14336.0; got != want {
		t.Errorf("mlp recomputes %g FLOPs a token, want %g", got, want)
	}
}

// TestRecomputeModulesPlanString: the plan string and JSON carry the
// modules, core_attn is the default, and bad names and policies fail.
func TestRecomputeModulesPlanString(t *testing.T) {
	s := "tp1-pp8v2-cp1-dp32-ep32-zero1-selective[mla_up_proj,mlp]-mb1"
	p, err := ParsePlan(s, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if p.RecomputeModules != ModMLAUpProj|ModMLP || p.String() != s {
		t.Errorf("%s reads as %v, writes %s", s, p.RecomputeModules, p)
	}
	b, _ := json.Marshal(p)
	if !strings.Contains(string(b), `"recompute_modules":"mla_up_proj,mlp"`) {
		t.Errorf("JSON %s lacks the modules", b)
	}
	var back Plan
	if err := json.Unmarshal(b, &back); err != nil || back != p {
		t.Errorf("JSON round trip: %v, %v", back, err)
	}
	d, _ := ParsePlan("tp1-pp1-cp1-dp8-zero1-selective[core_attn]-mb1", Plan{})
	if d.RecomputeModules != 0 || d.String() != "tp1-pp1-cp1-dp8-zero1-selective-mb1" {
		t.Errorf("selective[core_attn] reads as %v, writes %s", d.RecomputeModules, d)
	}
	if _, err := ParsePlan("tp1-pp1-cp1-dp8-zero1-selective[attn]-mb1", Plan{}); err == nil ||
		!strings.Contains(err.Error(), `"attn"`) || !strings.Contains(err.Error(), "mla_up_proj") {
		t.Errorf("bad module: %v", err)
	}
	dense, moe := lookup(t, "llama3.1-8b"), lookup(t, "deepseek-v3")
	q := Plan{TP: 1, PP: 1, CP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 8, Seq: 4096, Recompute: Full, RecomputeModules: ModMLP}
	for _, c := range []struct {
		m    *Model
		p    Plan
		want string
	}{
		{dense, q, "need recompute selective"},
		{dense, selectiveMods(q, ModMLAUpProj), "needs multi-latent attention"},
		{dense, selectiveMods(q, ModMoEAct), "need an MoE model"},
		{moe, selectiveMods(q, 1<<7), "are not a set"},
	} {
		if _, err := c.p.Normalize(c.m, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s modules %v: %v, want %q", c.m.Name, c.p.Recompute, c.p.RecomputeModules, err, c.want)
		}
	}
	if _, err := selectiveMods(q, ModMLAUpProj|ModMLP).Normalize(moe, 0); err != nil {
		t.Errorf("deepseek-v3 mla_up_proj,mlp: %v", err)
	}
}

func selectiveMods(p Plan, m RecomputeModules) Plan {
	p.Recompute, p.RecomputeModules = Selective, m
	return p
}
