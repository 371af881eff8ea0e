package costmodel

import (
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// srcOpSAC cites the op-level selective checkpointing policy.
const srcOpSAC = "torchtitan torchtitan/models/llama/parallelize_llama.py (_save_list, _custom_policy); " +
	"torch/utils/checkpoint.py (create_selective_checkpoint_contexts)"

// Op-level selective activation checkpointing (Recompute OpSAC) as
// torchtitan applies it to every transformer block (torchtitan/models/
// llama/parallelize_llama.py, _apply_ac_to_transformer_block with
// selective_ac_option "op"): the block runs under
// torch.utils.checkpoint with a policy (create_selective_checkpoint_
// contexts) that marks MUST_SAVE the outputs of the ops in _save_list,
//
//	aten.mm, aten._scaled_dot_product_{flash,efficient}_attention,
//	_c10d_functional.reduce_scatter_tensor, aten.max
//
// except every second aten.mm of the block (_custom_policy counts the
// block's mms and recomputes the even ones), and PREFER_RECOMPUTE
// everything else: norms, rotary embedding, activations, residual adds,
// the all-gathers. An mm whose weight has the shape of a Linear named in
// per_op_sac_force_recompute_mm_shapes_by_fqns is recomputed and not
// counted; the default names the MoE router, "moe.router.gate"
// (torchtitan #1380, July 2025; torchtitan/config/configs.py and
// distributed/activation_checkpoint.py at 1f029641b5ca, the last commit
// with per-model save lists). The checkpoint itself keeps the block's
// input. scripts/measure-activations.py measures this policy
// (costmodel/testdata/activations). The
// saved outputs are what the caching dispatch mode stores, whether or
// not the backward reads them (torch/utils/checkpoint.py,
// _CachingTorchDispatchMode). aten.max's outputs are the scalar amaxes of
// Float8 scaling and are not counted; Float8 linears keep their aten.mm
// (the Float8 tensor subclass turns it into _scaled_mm below the
// policy's dispatch mode), so the list is the same with them.

// sacMM is one matrix multiply of a block, in torchtitan's forward order,
// with the width of its output per token.
type sacMM struct {
	name     string
	block    string
	width    float64
	widthSym string
	split    splitKind
	// flops is its forward FLOPs per token, 2 x in x out, before TP.
	flops float64
}

// blockMMs lists the aten.mm calls of one transformer block of m in
// the order torchtitan's models issue them: the attention projections
// (wq, wk, wv, or MLA's wq_a, wq_b, wkv_a, wkv_b), the output projection
// wo, then the MLP (w1, w3, w2; GeLU: up, down) or, in an MoE layer, the
// shared experts: the router gate is force-recomputed and not counted,
// and the routed experts are grouped GEMMs (torch._grouped_mm, torchtitan
// models/common/moe/moe.py), not in the save list. A row-parallel output (wo, w2)
// is a partial sum as wide as the hidden state on every TP rank.
func blockMMs(m *Model, moe bool) []sacMM {
	h := float64(m.Hidden)
	out := func(name, block string, in, w float64, sym string, split splitKind) sacMM {
		return sacMM{name: name, block: block, width: w, widthSym: sym, split: split, flops: 2 * in * w}
	}
	var mms []sacMM
	if a := m.MLA; a != nil {
		heads, qk := float64(m.Heads), float64(a.QKNopeDim+a.QKRopeDim)
		if a.QLoRARank > 0 {
			qr := float64(a.QLoRARank)
			mms = append(mms, out("wq_a output (query latent)", "attention", h, qr, "r_q", replicated),
				out("wq_b output (queries)", "attention", qr, heads*qk, "a·dqk", tpSplit))
		} else {
			mms = append(mms, out("wq output (queries)", "attention", h, heads*qk, "a·dqk", tpSplit))
		}
		kr := float64(a.KVLoRARank)
		mms = append(mms, out("wkv_a output (KV latent and rope key)", "attention", h, kr+float64(a.QKRopeDim), "r_kv+dr", replicated),
			out("wkv_b output (keys and values)", "attention", kr, heads*float64(a.QKNopeDim+a.VDim), "a·(dn+dv)", tpSplit))
	} else {
		q, kv := float64(m.Heads*m.HeadDim), float64(m.KVHeads*m.HeadDim)
		mms = append(mms, out("wq output (queries before RoPE)", "attention", h, q, "a·d", tpSplit),
			out("wk output (keys before RoPE)", "attention", h, kv, "kv·d", kvSplit),
			out("wv output (values)", "attention", h, kv, "kv·d", kvSplit))
	}
	mms = append(mms, out("wo output (attention block output, before the TP reduction)", "attention",
		float64(m.Heads*m.vHeadDim()), h, "h", replicated))
	if !moe {
		return append(mms, mlpMMs(m, h, float64(m.FFN), "f", "")...)
	}
	if e := m.MoE; e.Shared > 0 {
		mms = append(mms, mlpMMs(m, h, float64(e.Shared*e.SharedFFN), "fs", "shared expert ")...)
	}
	return mms
}

// mlpMMs are a dense MLP's matrix multiplies: SwiGLU's w1 (gate), w3
// (up) and w2 (down), or GeLU's up and down.
func mlpMMs(m *Model, h, f float64, sym, what string) []sacMM {
	col := func(name string) sacMM {
		return sacMM{name: what + name, block: "mlp", width: f, widthSym: sym, split: tpSplit, flops: 2 * h * f}
	}
	down := sacMM{name: what + "w2 output (down projection, before the TP reduction)", block: "mlp", width: h, widthSym: "h",
		split: replicated, flops: 2 * f * h}
	if m.MLP == SwiGLU {
		return []sacMM{col("w1 output (gate projection)"), col("w3 output (up projection)"), down}
	}
	return []sacMM{col("up projection output (GeLU input)"), down}
}

// opSACTensors lists what one block saves under OpSAC: its input, the
// output of every odd-numbered aten.mm (the first, third, ...), the
// fused attention's output and fp32 log-sum-exp (eager attention's
// batched matmuls and softmax are not in the save list and are
// recomputed), and under sequence parallelism the two reduce-scatter
// outputs (attention and MLP, h/t each). Without sequence parallelism
// the row-parallel outputs are all-reduced, which the list does not
// save.
func opSACTensors(m *Model, attn Attention, moe bool) []tensorSpec {
	h := float64(m.Hidden)
	ts := []tensorSpec{{name: "block input (the checkpoint's input)", block: "attention", width: h, widthSym: "h", split: seqSplit}}
	mms := blockMMs(m, moe)
	for i, mm := range mms {
		if i%2 == 1 {
			continue // the 2nd, 4th, ... mm: recomputed
		}
		ts = append(ts, tensorSpec{name: mm.name, block: mm.block, width: mm.width, widthSym: mm.widthSym, split: mm.split})
	}
	if attn == Flash {
		dv := float64(m.Heads * m.vHeadDim())
		ts = append(ts,
			tensorSpec{name: "fused attention output", block: "attention", width: dv, widthSym: "a·dv", split: tpSplit},
			tensorSpec{name: "fused attention log-sum-exp (fp32)", block: "attention", width: float64(m.Heads), widthSym: "a",
				elem: elemFP32, split: tpSplit})
	}
	return append(ts,
		tensorSpec{name: "attention reduce-scatter output (with sp)", block: "attention", width: h, widthSym: "h", split: rsSplit},
		tensorSpec{name: "MLP reduce-scatter output (with sp)", block: "mlp", width: h, widthSym: "h", split: rsSplit})
}

// sacSavedFLOPs is the forward FLOPs per token (before TP) of the
// block's aten.mm calls whose outputs OpSAC saves (the odd-numbered
// ones); the rest of the block's GEMMs run again in backward. For Llama 3
// 8B (wq, wk, wv, wo, w1, w3, w2) the saved wq, wv, w1, w2 are 63% of
// the block's projection FLOPs.
func sacSavedFLOPs(m *Model, moe bool) float64 {
	var saved float64
	for i, mm := range blockMMs(m, moe) {
		if i%2 == 0 {
			saved += mm.flops
		}
	}
	return saved
}

// opSACRecompute is the forward work OpSAC repeats in backward, from a
// layer's costs c: every memory-bound kernel, the GEMMs but the saved
// ones' share of the GEMM FLOPs (savedFLOPs on this GPU, priced at the
// layer's mean GEMM speed), and the attention core unless it is fused
// (a saved op) rather than eager.
func (c layerCost) opSACRecompute(eager bool, savedFLOPs float64) kernelCost {
	rec := c.fwd
	proj := c.fwd.gemm - c.core.gemm
	projFLOPs := c.fwd.flops - c.core.flops
	if projFLOPs > 0 {
		savedFLOPs = min(savedFLOPs, projFLOPs)
		rec.gemm -= proj * savedFLOPs / projFLOPs
		rec.flops -= savedFLOPs
	}
	if !eager {
		rec.attn -= c.core.attn
		rec.mem -= c.core.mem
		rec.gemm -= c.core.gemm
		rec.flops -= c.core.flops
	}
	return rec
}

// sacSaved names the tensors one layer keeps under OpSAC with their
// sizes for plan p, for the inventory line (an MoE layer's when moe).
func (e *Evaluator) sacSaved(p Plan, moe bool) string {
	sh := e.newActShape(p)
	sh.setExperts(p, e.a.expertRowFactor())
	var parts []string
	for _, t := range e.sac[p.Attention][boolIndex(moe)] {
		if b := sh.bytes(t); b > 0 {
			parts = append(parts, t.name+" "+hardware.Bytes(b).String())
		}
	}
	return strings.Join(parts, ", ")
}
