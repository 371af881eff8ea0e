package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Sources cited by the fine-tuning inventory.
const (
	srcLoRA   = "Hu et al. 2021, LoRA (arXiv:2106.09685), sec. 4.1: W + BA, B d x r, A r x k"
	srcQLoRA  = "Dettmers et al. 2023, QLoRA (arXiv:2305.14314), sec. 3: NF4 + double quantization, bf16 compute"
	srcPEFT   = "Hugging Face PEFT / bitsandbytes Linear4bit: the weight is dequantized to bf16 for each matmul"
	srcFrozen = "frozen base: no gradient, master copy or optimizer state (Hu et al. 2021, sec. 4.2)"
)

// adapterDims is one targeted matrix, in x out on one TP rank.
type adapterDims struct {
	in, out float64
	target  LoRATargets
	copies  float64 // matrices of this shape: 1, or one per expert
}

// loraMatrices lists the projections of one layer of m that LoRA can
// target, with their shapes on one TP rank, each routed expert's
// matrices counted experts times (the experts on one GPU for the
// parameters, TopK for what one token passes through) and split over
// the expert tensor-parallel degree et, as Megatron-Core splits the
// experts (MoE parallel folding: the expert layers regroup tp x cp x dp
// as etp x ep x edp). MLA targets its query and key-value
// up-projections (q, v) and the joint down-projection (k).
func (m *Model) loraMatrices(t, et int, moe bool, experts float64) []adapterDims {
	h, tf := float64(m.Hidden), float64(t)
	heads := float64(m.Heads) / tf
	var ds []adapterDims
	if a := m.MLA; a != nil {
		qk, in := float64(a.QKNopeDim+a.QKRopeDim), h
		if a.QLoRARank > 0 {
			in = float64(a.QLoRARank)
		}
		kr := float64(a.KVLoRARank)
		ds = append(ds, adapterDims{in, heads * qk, TargetQ, 1}, adapterDims{h, kr + float64(a.QKRopeDim), TargetK, 1},
			adapterDims{kr, heads * float64(a.QKNopeDim+a.VDim), TargetV, 1}, adapterDims{heads * float64(a.VDim), h, TargetO, 1})
	} else {
		d := float64(m.HeadDim)
		kv := m.kvPerRank(t) * d
		ds = append(ds, adapterDims{h, heads * d, TargetQ, 1}, adapterDims{h, kv, TargetK, 1}, adapterDims{h, kv, TargetV, 1},
			adapterDims{heads * d, h, TargetO, 1}, adapterDims{h, heads*d + 2*kv, TargetQKV, 1})
	}
	mlp := func(f int, split, copies float64) {
		ff := float64(f) / split
		if m.MLP == SwiGLU {
			ds = append(ds, adapterDims{h, ff, TargetGate, copies})
		}
		ds = append(ds, adapterDims{h, ff, TargetUp, copies}, adapterDims{ff, h, TargetDown, copies})
	}
	if !moe {
		mlp(m.FFN, tf, 1)
		return ds
	}
	mlp(m.MoE.ExpertFFN, float64(max(et, 1)), experts)
	if m.MoE.Shared > 0 {
		mlp(m.MoE.SharedFFN, tf, float64(m.MoE.Shared))
	}
	return ds
}

// AdapterParams is the LoRA parameters of one matrix of shape in x out
// at rank r: A is r x in and B is out x r (Hu et al. 2021, sec. 4.1),
//
//	r·(in + out)
//
// For Llama 3 70B's q projection (8192 x 8192) at r = 16: 262,144.
func AdapterParams(r, in, out float64) float64 { return r * (in + out) }

// layerAdapterParams is the adapters of one layer on one GPU: the
// targeted matrices' AdapterParams at the plan's rank, split over tp with
// their matrix (one of the two factors is replicated in Megatron-style
// LoRA; at small r the difference is a few percent of a small number),
// and in a MoE layer the adapters of the experts/ep routed experts the
// GPU holds, each split over etp: an adapter sits beside the matrix it
// adapts (Hu et al. 2021, sec. 4.1), so it lives on the GPU that holds
// that expert (Megatron-Core places experts/ep routed experts on each
// expert-parallel rank).
func (m *Model) layerAdapterParams(p Plan, moe bool) float64 {
	experts := 0.0
	if moe {
		experts = float64(m.MoE.Experts) / float64(max(p.EP, 1))
	}
	return m.adapterSum(p, moe, experts)
}

// adapterSum is AdapterParams summed over the targeted matrices of one
// layer, routed experts counted experts times, split over p.TP (the
// expert matrices over p.ETP).
func (m *Model) adapterSum(p Plan, moe bool, experts float64) float64 {
	var n float64
	r := float64(p.LoRARank)
	for _, d := range m.loraMatrices(p.TP, p.ETP, moe, experts) {
		if p.LoRATargets&d.target != 0 {
			n += d.copies * AdapterParams(r, d.in, d.out)
		}
	}
	return n
}

// stageAdapterParams is the adapters of dense dense and moe MoE layers.
func (m *Model) stageAdapterParams(p Plan, dense, moe int) float64 {
	n := float64(dense) * m.layerAdapterParams(p, false)
	if moe > 0 {
		n += float64(moe) * m.layerAdapterParams(p, true)
	}
	return n
}

// FrozenBaseBytes is the storage of a frozen base: the transformer
// layers in the base dtype (NF4 quantizes every linear layer; the norms,
// a few thousand parameters per layer, are counted with them) and the
// embedding and output layer in bf16, which QLoRA leaves unquantized:
//
//	P_layers x bytes(base) + P_ends x 2
func FrozenBaseBytes(layers, ends float64, d BaseDType) float64 {
	return layers*d.Bytes() + ends*2
}

// shardAdapted fills the model states of a LoRA or QLoRA stage: the
// frozen base (sharded by ZeRO-3 only, like weights), the adapters'
// weights, gradients, master weights and moments (sharded as ZeRO
// shards any trained parameter), and QLoRA's bf16 dequantized layer.
func (e *Evaluator) shardAdapted(p Plan, s *StageMemory, moe bool) {
	m := e.m
	layers, ends := e.stageBaseParams(p, *s)
	s.AdapterParams = m.stageAdapterParams(p, s.Layers-s.MoELayers, s.MoELayers)
	n := p.ShardDegree()
	base := FrozenBaseBytes(layers, ends, p.BaseDType)
	if p.ZeRO == 3 {
		base /= float64(n)
	}
	s.BaseWeights = hardware.Bytes(base)
	st := e.a.ModelStateBytes(p.Precision, p.Optimizer).Shard(s.AdapterParams, p.ZeRO, n)
	s.Weights, s.Gradients = hardware.Bytes(st.Weights), hardware.Bytes(st.Gradients)
	s.MasterWeights, s.Moments = hardware.Bytes(st.Master), hardware.Bytes(st.Moments)
	if p.BaseDType == BaseNF4 && s.Layers > 0 {
		s.Dequant = e.dequantBuffer(p, moe)
	}
	if p.ZeRO == 3 && n > 1 {
		s.GatherBuffers = e.adaptedGather(p, moe)
	}
}

// stageBaseParams splits stage s's frozen base into its transformer
// layers, routed experts included (s.Params leaves the stage's local
// experts to s.ExpertParams), which take the base dtype, and the
// embedding, final norm and output layer (ends), which stay bf16.
func (e *Evaluator) stageBaseParams(p Plan, s StageMemory) (layers, ends float64) {
	m := e.m
	layers = float64(s.Layers-s.MoELayers) * m.layerParams(p.TP, false)
	if s.MoELayers > 0 {
		layers += float64(s.MoELayers) * m.nonExpertLayerParams(p.TP, true)
	}
	return layers + s.ExpertParams, s.Params - layers
}

// dequantBuffer is QLoRA's bf16 compute copy: the 4-bit weights are
// dequantized to bf16 for each matmul, so one layer's weights in bf16
// are taken as in flight at once: P_layer x 2 B (Dettmers et al. 2023,
// sec. 3: "we dequantize the storage data type to the computation data
// type to perform the forward and backward pass").
func (e *Evaluator) dequantBuffer(p Plan, moe bool) hardware.Bytes {
	return hardware.Bytes(e.m.layerParams(p.TP, moe) * 2)
}

// adaptedGather is ZeRO-3's working set under LoRA: two layers of the
// frozen base in its dtype (the one computed and the one prefetched),
// and one layer of adapters' weights and gradients (FSDP, as
// gatherBuffers).
func (e *Evaluator) adaptedGather(p Plan, moe bool) hardware.Bytes {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	base := e.m.layerParams(p.TP, moe) * p.BaseDType.Bytes()
	adapters := e.m.layerAdapterParams(p, moe)
	return hardware.Bytes(2*base + adapters*(2*sb.Weight+sb.Grad))
}

// adaptedStateLines itemizes a LoRA or QLoRA stage's model states.
func (e *Evaluator) adaptedStateLines(p Plan, s StageMemory) []Line {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	n := p.ShardDegree()
	layers, ends := e.stageBaseParams(p, s)
	baseName, baseSrc := "frozen base weights ("+p.BaseDType.String()+"; embedding and output bf16)", srcFrozen
	per := perParam(p.BaseDType.Bytes())
	if p.BaseDType == BaseNF4 {
		baseName = "frozen base weights (NF4 + double-quantized scales; embedding and output bf16)"
		per = fmt.Sprintf("(4 + 8/64 + 32/(64*256))/8 = %.4g B/param", NF4BitsPerParam()/8)
		baseSrc = srcQLoRA
	}
	baseF := fmt.Sprintf("%s x %s layer params/GPU + 2 B/param x %s embedding/output params/GPU (stage %d of pp=%d, tp=%d)",
		per, FormatCount(layers), FormatCount(ends), s.Stage, p.PP, p.TP)
	ad := fmt.Sprintf("%s adapter params/GPU (r=%d on %s: r*(in+out) per matrix)", FormatCount(s.AdapterParams), p.LoRARank, p.LoRATargets)
	return []Line{
		{Name: baseName, Group: GroupStates, Bytes: s.BaseWeights, Formula: sharded(baseF, p.ZeRO, 3, n), Source: baseSrc},
		{Name: "LoRA adapters: weights (" + weightDType(p) + ")", Group: GroupStates, Bytes: s.Weights,
			Formula: sharded(perParam(sb.Weight)+" x "+ad, p.ZeRO, 3, n), Source: srcLoRA},
		{Name: "LoRA adapters: gradients", Group: GroupStates, Bytes: s.Gradients,
			Formula: sharded(perParam(sb.Grad)+" x P_adapters", p.ZeRO, 2, n), Source: srcLoRA},
		{Name: "LoRA adapters: " + masterName(e.a), Group: GroupStates, Bytes: s.MasterWeights,
			Formula: sharded(perParam(sb.Master)+" x P_adapters", p.ZeRO, 1, n), Source: srcMixed},
		{Name: "LoRA adapters: " + momentName(p.Optimizer, e.a.BF16OptimizerStates), Group: GroupStates, Bytes: s.Moments,
			Formula: sharded(perParam(sb.Moments)+" x P_adapters", p.ZeRO, 1, n), Source: optimizerSource(p.Optimizer)},
		{Name: "QLoRA: bf16 dequantized copy of one layer", Group: GroupStates, Bytes: s.Dequant,
			Formula: "one layer's params/GPU x 2 B", Source: srcQLoRA + "; " + srcPEFT},
		{Name: "ZeRO-3 gathered layers (frozen base) and adapter gradients", Group: GroupStates, Bytes: s.GatherBuffers,
			Formula: fmt.Sprintf("2 layers x %.4g B/param + one layer's adapters x (2 x %g B + %g B)", p.BaseDType.Bytes(), sb.Weight, sb.Grad),
			Source:  srcFSDP},
	}
}

// tuneNotes are the caveats of a fine-tuning or offloaded plan.
func tuneNotes(p Plan) []string {
	var out []string
	if p.Task.Adapted() {
		out = append(out, fmt.Sprintf("%s: model FLOPs/token = 3 x forward - 2 x matmul weights (the frozen base skips its weight-gradient GEMMs) + 6 x adapter params; data-parallel gradients are the adapters' only", p.Task))
	}
	if p.Task == QLoRA {
		out = append(out, "qlora: paged optimizer states (bitsandbytes) move to host memory only under memory pressure; the inventory counts them on the GPU")
	}
	if p.Offload != NoOffload {
		out = append(out, fmt.Sprintf("offload %s: the host memory is checked against %g%% of the host DRAM per GPU; the step adds the exposed host transfers and the CPU optimizer step", p.Offload, 100*HostFraction))
	}
	return out
}

// adaptedPerToken is the adapted matrices one token passes through in a
// layer: the targeted attention projections, and the targeted MLP
// matrices once for a dense MLP, TopK times for the routed experts and
// once per shared expert.
func (m *Model) adaptedPerToken(t LoRATargets, moe bool) float64 {
	count := func(ts ...LoRATargets) float64 {
		n := 0.0
		for _, x := range ts {
			if t&x != 0 {
				n++
			}
		}
		return n
	}
	attn := count(TargetQ, TargetK, TargetV, TargetO, TargetQKV)
	mlp := count(TargetUp, TargetDown)
	if m.MLP == SwiGLU {
		mlp += count(TargetGate)
	}
	if !moe {
		return attn + mlp
	}
	return attn + mlp*float64(m.MoE.TopK+m.MoE.Shared)
}

// adapterActs is what LoRA adds to one layer's saved activations for one
// micro-batch: each adapted matrix keeps x·A, r values per token, for the
// weight gradient of B (Hu et al. 2021, sec. 4.1; the input x is the base
// matrix's, already counted),
//
//	r x n_adapted x tokens x e bytes
//
// unsplit over tp (A's output is whole on every rank of a column-parallel
// layer). LoRA dropout, which would keep a dropped copy of x per adapted
// matrix, is taken as off.
func (s actShape) adapterActs(m *Model, p Plan, moe bool) float64 {
	if !p.Task.Adapted() {
		return 0
	}
	return float64(p.LoRARank) * m.adaptedPerToken(p.LoRATargets, moe) * s.tokens * s.actBytes
}
