package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// Partial full recompute follows Megatron-LM's --recompute-granularity
// full with --recompute-method and --recompute-num-layers N
// (megatron/core/transformer/transformer_block.py,
// TransformerBlock._checkpointed_forward, which each model chunk, a
// TransformerBlock of its own, runs over its layers):
//
//   - uniform: "Uniformly divide the total number of Transformer layers
//     and checkpoint the input activation of each divided chunk": the
//     block's layers run in groups of N under one
//     tensor_parallel.checkpoint each, so a group keeps only its input
//     and its backward reruns the whole group's forward, holding the
//     group's activations while it does.
//   - block: "Checkpoint the input activation of only a set number of
//     individual Transformer layers and skip the rest": the first N
//     layers of the block are checkpointed one by one, the others keep
//     all their activations and are not recomputed.
//
// The loops run over num_layers_per_pipeline_rank, which the block sets
// to len(self.layers), its own layers, so under interleaving N counts
// per virtual stage. The arguments' documentation (megatron/training/arguments.py,
// --recompute-num-layers) reads N as the layers per recompute unit
// (uniform) or per pipeline stage (block), and NeMo's activation
// recomputation guide as per virtual pipeline stage under interleaving.
// TransformerConfig requires 1 <= N <= num_layers_per_pipeline_rank with
// granularity full. The planner's Full is uniform with N 1 (every layer
// checkpointed alone), Megatron-LM's usual setting.
const srcPartialRecompute = "Megatron-LM megatron/core/transformer/transformer_block.py (_checkpointed_forward: " +
	"recompute_method uniform, block; recompute_num_layers), megatron/training/arguments.py"

// RecomputeMethod is how full recompute groups a model chunk's layers
// (Megatron-LM's --recompute-method). It only applies with Recompute
// Full and a non-zero Plan.RecomputeLayers.
type RecomputeMethod int

const (
	// Uniform checkpoints every group of RecomputeLayers consecutive
	// layers at its input (the zero value; groups of one layer are the
	// planner's Full).
	Uniform RecomputeMethod = iota
	// Block checkpoints the first RecomputeLayers layers of each model
	// chunk, one by one, and keeps the others' activations.
	Block
)

var recomputeMethodNames = enumNames{"uniform", "block"}

func (m RecomputeMethod) String() string               { return recomputeMethodNames.name(int(m)) }
func (m RecomputeMethod) MarshalText() ([]byte, error) { return []byte(m.String()), nil }
func (m *RecomputeMethod) UnmarshalText(b []byte) error {
	return unmarshalEnum(b, "recompute method", recomputeMethodNames, (*int)(m))
}
func ParseRecomputeMethod(s string) (RecomputeMethod, error) {
	i, err := recomputeMethodNames.parse("recompute method", s)
	return RecomputeMethod(i), err
}

// partialRecompute reports whether the plan checkpoints groups of layers
// or only some layers, rather than every layer alone.
func (p Plan) partialRecompute() bool { return p.Recompute == Full && p.RecomputeLayers > 0 }

// recomputeSuffix is the plan string's mark of a partial full
// recompute, "[block5]" or "[uniform2]" after "full".
func (p Plan) recomputeSuffix() string {
	if p.Recompute != Full || p.RecomputeLayers == 0 {
		return ""
	}
	return fmt.Sprintf("[%s%d]", p.RecomputeMethod, p.RecomputeLayers)
}

// parseFullRecompute reads the inside of "full[...]": a method and a
// layer count, e.g. "block5".
func (p *Plan) parseFullRecompute(s string) error {
	for i, name := range recomputeMethodNames {
		if rest, ok := strings.CutPrefix(s, name); ok {
			n, err := parseCount(rest)
			if err != nil || n < 1 {
				return fmt.Errorf("full[%s]: want full[uniform<N>] or full[block<N>] with N >= 1 layers", s)
			}
			p.Recompute, p.RecomputeMethod, p.RecomputeLayers = Full, RecomputeMethod(i), n
			return nil
		}
	}
	return fmt.Errorf("full[%s]: unknown recompute method (valid: uniform<N>, block<N>)", s)
}

// normalizeRecompute writes a full recompute of every layer alone in
// one form, RecomputeLayers 0: uniform groups of one layer and a block
// method without a count are the planner's plain Full.
func (p *Plan) normalizeRecompute() {
	if p.RecomputeLayers == 0 || p.Recompute == Full && p.RecomputeMethod == Uniform && p.RecomputeLayers == 1 {
		p.RecomputeMethod, p.RecomputeLayers = Uniform, 0
	}
}

// checkPartialRecompute validates the method and the layer count as
// Megatron-Core's TransformerConfig does (recompute_method uniform or
// block, recompute_num_layers between 1 and the layers of a pipeline
// rank; here of a model chunk, the block _checkpointed_forward runs
// over). A chunk with fewer layers than N checkpoints all of them
// (block) or runs them as one group (uniform).
func (p Plan) checkPartialRecompute(m *Model) error {
	if p.RecomputeMethod < Uniform || p.RecomputeMethod > Block {
		return fmt.Errorf("costmodel: recompute method %d is not one of %s", int(p.RecomputeMethod), "uniform, block")
	}
	n := p.RecomputeLayers
	if n == 0 {
		return nil
	}
	if p.Recompute != Full {
		return fmt.Errorf("costmodel: recompute method %s with %d layers needs recompute full (got %s), as Megatron's --recompute-method needs --recompute-granularity full",
			p.RecomputeMethod, n, p.Recompute)
	}
	most := p.mostChunkLayers(m)
	if n < 1 || n > most {
		return fmt.Errorf("costmodel: recompute layers %d is not in [1, %d], the layers of the largest model chunk (Megatron's recompute_num_layers is per pipeline stage, or per virtual stage when interleaved)",
			n, most)
	}
	return nil
}

// mostChunkLayers is the layers of the largest model chunk of p.
func (p Plan) mostChunkLayers(m *Model) int {
	c := p.middleChunk(m.Layers)
	most := 0
	for j := range p.PP * p.VPP {
		lo, hi := p.chunkRange(m.Layers, c, j)
		most = max(most, hi-lo)
	}
	return most
}

// recomputedLayers counts the layers of model chunk [lo, hi) that a
// checkpointing policy reruns in backward, and how many of them are MoE
// layers: all of them, but the first RecomputeLayers under the block
// method.
func (p Plan) recomputedLayers(k layerKinds, lo, hi int) (n, moe int) {
	if p.partialRecompute() && p.RecomputeMethod == Block {
		hi = min(hi, lo+p.RecomputeLayers)
	}
	return hi - lo, k.moe(lo, hi)
}

// stageRecomputed sums recomputedLayers over the chunks of pipeline
// rank r.
func (p Plan) stageRecomputed(k layerKinds, r int) (n, moe int) {
	c := p.middleChunk(k.layers)
	for j := r; j < p.PP*p.VPP; j += p.PP {
		lo, hi := p.chunkRange(k.layers, c, j)
		a, b := p.recomputedLayers(k, lo, hi)
		n, moe = n+a, moe+b
	}
	return n, moe
}

// chunkActs is what one model chunk's layers save for one micro-batch,
// the part its MoE MLPs save, and the recompute's transient beyond
// that.
type chunkActs struct {
	saved, moeMLP, transient float64
}

// rangeActs is the saved activations of layers [lo, hi) for one
// micro-batch under plan p.
//
// Every layer alone, or no checkpoint: each layer saves la.dense or
// la.moe, and a checkpointed layer holds one layer's full tensors
// (la.denseWorking, la.moeWorking, the heavier when the chunk has MoE
// layers) while it is recomputed.
//
// Block N (srcPartialRecompute): the first c = min(N, hi-lo) layers keep
// their inputs, the others all their tensors:
//
//	saved     = sum_{i<c} input_i + sum_{i>=c} full_i
//	transient = max(0, max_{i<c} full_i - sum_{i>=c} full_i)
//
// since a checkpointed layer is recomputed in its backward, after the
// later layers' backward has freed theirs.
//
// Uniform N: one input per group of N layers, and while a group is
// recomputed its layers' full tensors:
//
//	saved     = ceil((hi-lo)/N) x input
//	transient = max over groups of sum over its layers of full_i,
//
// an upper bound, as the inputs of the groups already through their
// backward are freed by then (the same bound as for one-layer groups).
func (e *Evaluator) rangeActs(p Plan, la layerActs, lo, hi int) chunkActs {
	k := e.m.kinds()
	n, moe := hi-lo, k.moe(lo, hi)
	if n <= 0 {
		return chunkActs{}
	}
	if !p.partialRecompute() {
		a := chunkActs{saved: float64(n-moe)*la.dense + float64(moe)*la.moe, moeMLP: float64(moe) * la.moeMLP}
		if p.Recompute.Checkpointed() {
			a.transient = la.denseWorking
			if moe > 0 {
				a.transient = la.moeWorking
			}
		}
		return a
	}
	full := func(lo, hi int) float64 {
		m := k.moe(lo, hi)
		return float64(hi-lo-m)*la.denseWorking + float64(m)*la.moeWorking
	}
	if p.RecomputeMethod == Block {
		c := min(p.RecomputeLayers, n)
		cm := k.moe(lo, lo+c)
		kept := full(lo+c, hi)
		work := la.denseWorking
		switch {
		case cm == c:
			work = la.moeWorking
		case cm > 0:
			work = max(la.denseWorking, la.moeWorking)
		}
		return chunkActs{
			saved:     float64(c-cm)*la.dense + float64(cm)*la.moe + kept,
			moeMLP:    float64(moe-cm) * la.moeMLPWorking,
			transient: max(0, work-kept),
		}
	}
	var a chunkActs
	for g := lo; g < hi; g += p.RecomputeLayers {
		end := min(g+p.RecomputeLayers, hi)
		a.saved += la.dense
		if k.moe(g, g+1) == 1 {
			a.saved += la.moe - la.dense
		}
		a.transient = max(a.transient, full(g, end))
	}
	return a
}

// recomputedShare is the fraction of pipeline rank r's layers that a
// full recompute reruns: 1, or below under the block method.
func (p Plan) recomputedShare(k layerKinds, r int) float64 {
	if !p.partialRecompute() {
		return 1
	}
	n, _ := p.stageLayers(k, r)
	if n == 0 {
		return 0
	}
	rec, _ := p.stageRecomputed(k, r)
	return float64(rec) / float64(n)
}

// recomputedFLOPsPerToken is the forward FLOPs per token that a partial
// full recompute repeats: the forward of each recomputed layer
// (layerForwardFLOPsPerToken), summed over the model chunks.
func (e *Evaluator) recomputedFLOPsPerToken(p Plan) float64 {
	k := e.m.kinds()
	var rec, moe int
	for r := range p.PP {
		a, b := p.stageRecomputed(k, r)
		rec, moe = rec+a, moe+b
	}
	f := float64(rec-moe) * e.m.layerForwardFLOPsPerToken(false, p.AttentionSpan())
	if moe > 0 {
		f += float64(moe) * e.m.layerForwardFLOPsPerToken(true, p.AttentionSpan())
	}
	return f
}

// layerForwardFLOPsPerToken is one transformer layer's share of
// ForwardFLOPsPerToken: 2 FLOPs per weight the token passes through (an
// MoE layer's router, shared experts and top-k routed experts) and the
// causal attention over (seq+1)/2 keys. Summed over the layers with the
// logits it is ForwardFLOPsPerToken.
func (m *Model) layerForwardFLOPsPerToken(moe bool, seq int) float64 {
	w := m.layerParams(1, moe)
	if moe {
		w -= float64(m.MoE.Experts-m.MoE.TopK) * m.expertParams(1)
	}
	return 2*w + m.attentionFLOPsPerKey()*(float64(seq)+1)/2
}

// recomputePolicy names the plan's recompute for inventory lines:
// "selective core_attn,mlp", "full block 5 layers per chunk", "full".
func (p Plan) recomputePolicy() string {
	switch {
	case p.Recompute == Selective && p.RecomputeModules != 0:
		return fmt.Sprintf("selective %s", p.RecomputeModules)
	case p.partialRecompute() && p.RecomputeMethod == Block:
		return fmt.Sprintf("full, block method: the first %d layers of each model chunk", p.RecomputeLayers)
	case p.partialRecompute():
		return fmt.Sprintf("full, uniform method: groups of %d layers", p.RecomputeLayers)
	}
	return p.Recompute.String()
}

// partialRecomputeFormula is the layer line's formula under a partial
// full recompute: which layers keep only their input and which keep
// all their tensors, per micro-batch, times the micro-batches in flight.
func (e *Evaluator) partialRecomputeFormula(p Plan, s StageMemory, acts hardware.Bytes) string {
	la := e.layerActs(p)
	perMB := 0.0
	if s.InFlight > 0 {
		perMB = float64(acts) / s.InFlight
	}
	sched := fmt.Sprintf("%s in flight (%s), s=%d/cp, b=%d", microBatches(s.InFlight), scheduleName(p), p.Seq, p.MicroBatch)
	if p.RecomputeMethod == Block {
		return fmt.Sprintf("per micro-batch %v: %d checkpointed layers (the first %d of each chunk) x %v (layer input) "+
			"+ %d layers with all their tensors (%v per dense layer); x %s",
			hardware.Bytes(perMB), s.RecomputedLayers, p.RecomputeLayers, hardware.Bytes(la.dense),
			s.Layers-s.RecomputedLayers, hardware.Bytes(la.denseWorking), sched)
	}
	return fmt.Sprintf("per micro-batch %v: one layer input (%v) per group of %d layers of each chunk; x %s",
		hardware.Bytes(perMB), hardware.Bytes(la.dense), p.RecomputeLayers, sched)
}

// workingSetLine is the recompute's transient: one layer's tensors, a
// group's under the uniform method, or under the block method what a
// checkpointed layer's tensors exceed the later layers' (rangeActs).
func workingSetLine(p Plan, s StageMemory) Line {
	l := Line{Name: "activations: one layer recomputed in backward", Group: GroupActivations, Bytes: s.RecomputeWorkingSet,
		Formula: "all saved tensors of one layer, one micro-batch", Source: srcActs}
	switch {
	case p.partialRecompute() && p.RecomputeMethod == Block:
		l.Formula = "max(0, all saved tensors of one checkpointed layer - those of the chunk's later layers, freed by their backward first), one micro-batch"
		l.Source += "; " + srcPartialRecompute
	case p.partialRecompute():
		l.Name = fmt.Sprintf("activations: one group of %d layers recomputed in backward", p.RecomputeLayers)
		l.Formula = fmt.Sprintf("all saved tensors of %d layers, one micro-batch", p.RecomputeLayers)
		l.Source += "; " + srcPartialRecompute
	}
	return l
}

// blockRecomputeLever is the partial full recompute that makes p fit
// with the fewest checkpointed layers: Megatron-LM's --recompute-method
// block with the smallest --recompute-num-layers N whose peak fits the
// budget, so the other layers keep their activations and are not
// recomputed. Block N's activations fall with each layer checkpointed
// (rangeActs), so a bisection over N finds it; none is offered when
// only every layer checkpointed fits (the --recompute full lever) or p
// already checkpoints as few.
func (e *Evaluator) blockRecomputeLever(p Plan) (leverCandidate, bool) {
	q := p
	q.Recompute, q.RecomputeModules, q.RecomputeMethod = Full, 0, Block
	fits := func(n int) bool {
		q.RecomputeLayers = n
		r, err := q.Normalize(e.m, e.c.GPUs())
		return err == nil && e.Peak(r).Total <= e.Budget() && e.HostFits(r)
	}
	lo, hi := 1, p.mostChunkLayers(e.m)-1 // hi: the most below every layer
	if p.partialRecompute() && p.RecomputeMethod == Block {
		lo = p.RecomputeLayers + 1
	}
	if lo > hi || !fits(hi) {
		return leverCandidate{}, false
	}
	for lo < hi {
		if mid := (lo + hi) / 2; fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	n := lo
	return leverCandidate{
		change: fmt.Sprintf("--recompute full --recompute-method block --recompute-num-layers %d", n),
		why:    fmt.Sprintf("checkpoints only the first %d layers of each stage; the rest keep their activations and skip the recompute", n),
		apply: func(q Plan) Plan {
			q.Recompute, q.RecomputeModules, q.RecomputeMethod, q.RecomputeLayers = Full, 0, Block, n
			return q
		},
	}, true
}
