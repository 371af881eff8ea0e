package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// RecomputeModules is the set of submodules Megatron-Core's selective
// recompute reruns in backward (TransformerConfig.recompute_modules,
// megatron/core/transformer/transformer_config.py: "The submodules to
// recompute. choices: core_attn, moe_act, layernorm, mla_up_proj, mlp,
// moe, shared_experts. default: [core_attn]"; moe_act, layernorm and
// mla_up_proj use output-discarding checkpointing, the others normal
// checkpointing). It is a bitset, so a Plan stays a small comparable
// value. The zero value means Megatron's default, core_attn alone;
// Normalize writes an explicit {core_attn} as zero. It only applies with
// Recompute Selective (Megatron: recompute_modules takes effect with
// recompute_granularity selective).
//
// What each module drops from a layer's saved tensors (tensorSpec.mods):
//
//   - core_attn: the attention core (the softmax, its dropout, or
//     FlashAttention's log-sum-exp): Korthikanti et al.'s selective
//     recompute (transformer/attention.py,
//     _checkpointed_attention_forward).
//   - layernorm: the outputs of input_layernorm and pre_mlp_layernorm
//     (the QKV and MLP inputs); the norm inputs are kept and the norms
//     rerun (transformer_layer.py, CheckpointWithoutOutput around each
//     norm, the output discarded once the following linear has read it).
//   - mla_up_proj: MLA's up-projection inputs and the queries, keys and
//     values they and RoPE produce; the low-rank latents are kept
//     (multi_latent_attention.py, qkv_up_checkpoint).
//   - mlp: the dense MLP's intermediates; its input is kept (the whole
//     MLP submodule under tensor_parallel.checkpoint). Dense layers only.
//   - moe: the whole MoE layer's tensors; its input is kept (MoE layers
//     only).
//   - moe_act: the expert activation's output (the expert down
//     projection's input); the fc1 output it is recomputed from is kept
//     (moe/experts.py, a CheckpointWithoutOutput around the activation).
//   - shared_experts: the shared experts' intermediates (moe/
//     shared_experts.py under checkpoint).
type RecomputeModules uint8

// The modules, in Megatron's order.
const (
	ModCoreAttn RecomputeModules = 1 << iota
	ModMoEAct
	ModLayerNorm
	ModMLAUpProj
	ModMLP
	ModMoE
	ModSharedExperts
	numRecomputeModules = iota
)

var recomputeModuleNames = [numRecomputeModules]string{
	"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"}

// Effective is the set a Selective plan recomputes: m, or core_attn
// when m is zero.
func (m RecomputeModules) Effective() RecomputeModules {
	if m == 0 {
		return ModCoreAttn
	}
	return m
}

// String lists the modules comma-separated in Megatron's order
// ("core_attn" for the zero value).
func (m RecomputeModules) String() string {
	m = m.Effective()
	var names []string
	for i, n := range recomputeModuleNames {
		if m&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if m>>numRecomputeModules != 0 {
		names = append(names, fmt.Sprintf("invalid(%#x)", uint8(m)))
	}
	return strings.Join(names, ",")
}

// ParseRecomputeModules reads a comma-separated list of Megatron module
// names; an empty string is the default (zero).
func ParseRecomputeModules(s string) (RecomputeModules, error) {
	var m RecomputeModules
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	for _, f := range strings.Split(s, ",") {
		key := strings.ToLower(strings.TrimSpace(f))
		i := 0
		for i < numRecomputeModules && recomputeModuleNames[i] != key {
			i++
		}
		if i == numRecomputeModules {
			return 0, fmt.Errorf("costmodel: unknown recompute module %q (valid: %s)", f,
				strings.Join(recomputeModuleNames[:], ", "))
		}
		m |= 1 << i
	}
	return m, nil
}

// Names lists the modules of the effective set, for JSON and exports.
func (m RecomputeModules) Names() []string { return strings.Split(m.String(), ",") }

func (m RecomputeModules) MarshalText() ([]byte, error) { return []byte(m.String()), nil }
func (m *RecomputeModules) UnmarshalText(b []byte) error {
	v, err := ParseRecomputeModules(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// checkModules validates the plan's recompute modules: only under
// selective recompute, and only modules the model has (mla_up_proj
// exists only in multi-latent attention, moe, moe_act and
// shared_experts only in MoE layers).
func (p Plan) checkModules(m *Model) error {
	if p.RecomputeModules == 0 {
		return nil
	}
	if p.RecomputeModules>>numRecomputeModules != 0 {
		return fmt.Errorf("costmodel: recompute modules %#x are not a set of %s", uint8(p.RecomputeModules),
			strings.Join(recomputeModuleNames[:], ", "))
	}
	if p.Recompute != Selective {
		return fmt.Errorf("costmodel: recompute modules %s need recompute selective (got %s), as Megatron's recompute_modules need recompute_granularity selective",
			p.RecomputeModules, p.Recompute)
	}
	if p.RecomputeModules&ModMLAUpProj != 0 && m.MLA == nil {
		return fmt.Errorf("costmodel: recompute module mla_up_proj needs multi-latent attention; %s has none", m.Name)
	}
	if p.RecomputeModules&(ModMoE|ModMoEAct|ModSharedExperts) != 0 && m.MoE == nil {
		return fmt.Errorf("costmodel: recompute modules moe, moe_act and shared_experts need an MoE model; %s is dense", m.Name)
	}
	return nil
}

// modules is the plan's recomputed set: the effective set under
// Selective, none otherwise.
func (p Plan) modules() RecomputeModules {
	if p.Recompute != Selective {
		return 0
	}
	return p.RecomputeModules.Effective()
}

// recomputesCore reports whether the plan reruns the attention core,
// and with it the context-parallel exchange of keys and values inside
// it: full recompute, OpSAC and selective recompute with core_attn.
func (p Plan) recomputesCore() bool {
	return p.Recompute.Checkpointed() || p.modules()&ModCoreAttn != 0
}

// moduleFLOPsPerToken is the forward FLOPs per token (whole model, all
// layers) of the recompute modules mods: 2 per weight of their matrix
// multiplies, and for core_attn the causal score and value FLOPs
// (Korthikanti et al. 2022, sec. 5). Norms and activations are
// memory-bound and add none.
func (m *Model) moduleFLOPsPerToken(mods RecomputeModules, seq int) float64 {
	moe := float64(m.kinds().moe(0, m.Layers))
	dense := float64(m.Layers) - moe
	h := float64(m.Hidden)
	glu := 2.0
	if m.MLP == SwiGLU {
		glu = 3
	}
	var f float64
	if mods&ModCoreAttn != 0 {
		f += float64(m.Layers) * m.attentionFLOPsPerKey() * (float64(seq) + 1) / 2
	}
	if a := m.MLA; a != nil && mods&ModMLAUpProj != 0 {
		heads := float64(m.Heads)
		up := float64(a.KVLoRARank) * heads * float64(a.QKNopeDim+a.VDim)
		if a.QLoRARank > 0 {
			up += float64(a.QLoRARank) * heads * float64(a.QKNopeDim+a.QKRopeDim)
		}
		f += float64(m.Layers) * 2 * up
	}
	if mods&ModMLP != 0 {
		f += dense * 2 * glu * h * float64(m.FFN)
	}
	if x := m.MoE; x != nil {
		shared := 2 * glu * h * float64(x.Shared*x.SharedFFN)
		switch {
		case mods&ModMoE != 0:
			f += moe * (2*h*float64(x.Experts) + 2*glu*h*float64(x.TopK*x.ExpertFFN) + shared)
		case mods&ModSharedExperts != 0:
			f += moe * shared
		}
	}
	return f
}

// srcModules is the source of the recompute modules.
const srcModules = "Megatron-Core megatron/core/transformer/transformer_config.py (recompute_modules), transformer_layer.py, " +
	"multi_latent_attention.py, moe/experts.py"

// modulesDropped names the tensors of one layer (an MoE layer when moe)
// that the plan's recompute modules drop, with their sizes, for the
// inventory line: outside the MoE MLP, whose own line names its
// (moeActivationLine), or inside it when mlp.
func (e *Evaluator) modulesDropped(p Plan, moe, mlp bool) string {
	sh := newActShape(e.m, p)
	sh.setExperts(p, e.a.expertRowFactor())
	var parts []string
	for _, t := range e.specs[p.Attention][boolIndex(moe)] {
		if (t.mods&ModMoE != 0) != mlp {
			continue
		}
		if b := sh.bytes(t); b > 0 && sh.kept(t) && sh.dropped(t, p.Recompute) {
			parts = append(parts, t.name+" "+hardware.Bytes(b).String())
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
