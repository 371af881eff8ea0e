package costmodel

import (
	"math/bits"

	"github.com/gpu-planner/planner/costmodel/efficiency"
)

// The compute time of a layer is a sum of kernels. Matrix multiplies and
// fused attention take the time of the efficiency package's curves for
// their shape, GPU generation and format (tile and wave quantization,
// small-problem saturation, launch and the memory floor, fitted on
// measured kernels), divided by the share of that speed a training step
// keeps (GEMMEfficiency, AttentionEfficiency). Norms, activations,
// dropout, residual adds, softmax and the cross-entropy are memory-bound
// and cost the bytes they read and write at HBMEfficiency of the
// bandwidth (a roofline: Williams et al. 2009).
// The kernels are those of Megatron-LM's transformer layer (Shoeybi et
// al. 2019, Fig. 3; Korthikanti et al. 2022, Fig. 4 and 5) with the
// fusions Megatron ships: bias+GeLU, bias+dropout+add, scale+mask+softmax.

// rates are the speeds of one GPU's kernels under the assumptions.
type rates struct {
	gemm efficiency.GEMM      // the layer's matrix multiplies, in the recipe's format
	half efficiency.GEMM      // 16-bit matrix multiplies: eager attention's, the output layer's under low recipes
	attn efficiency.Attention // fused attention
	// gemmShare and attnShare are GEMMEfficiency and
	// AttentionEfficiency: the share of the curves' speed kept in a step.
	gemmShare, attnShare float64
	mem                  float64 // bytes/s of memory-bound kernels
	k0                   float64 // seconds added to every kernel (KernelOverhead)
	e                    float64 // bytes per activation element
	// Traffic multipliers of unfused (eager) elementwise chains: 1 when
	// fused.
	normX, ropeX, gluX float64
	// low is the bytes per GEMM input element of a low-precision
	// recipe (0: 16- or 32-bit GEMMs); castReads and castWrites are its
	// passes per activation input (Recipe).
	low, castReads, castWrites float64
	// wgradCast is the bytes per element of each weight-gradient
	// operand cast again along the other axis (Recipe.WgradCastBytes;
	// 0: the GEMM reads the transposed copies the forward and
	// data-gradient casts wrote). rescaleBwd: each backward GEMM's
	// output is rescaled by a kernel of its own
	// (Recipe.RescaleBackward).
	wgradCast  float64
	rescaleBwd bool
	// wgradHalf: the weight-gradient GEMM runs in 16 bits
	// (Recipe.WgradHighPrecision).
	wgradHalf bool
	// separate: projections of one input are separate linear layers
	// (Assumptions.SeparateProjections).
	separate bool
	// LoRA and QLoRA (lorakernels.go): the base is frozen (no weight
	// gradient), adapters of rank loraRank sit on loraTargets, and nf4
	// dequantizes every weight before its matmuls.
	frozen      bool
	loraRank    float64
	loraTargets LoRATargets
	nf4         bool
}

// kernelCost is the time of a sequence of kernels on one GPU, by kind,
// and the FLOPs they execute.
type kernelCost struct {
	gemm, attn, mem float64 // seconds
	host            float64 // seconds the GPU waits on the host (MoE token-count syncs)
	flops           float64
}

func (k kernelCost) total() float64 { return k.gemm + k.attn + k.mem + k.host }

// since is the cost k added after it was before.
func (k kernelCost) since(before kernelCost) kernelCost {
	return kernelCost{k.gemm - before.gemm, k.attn - before.attn, k.mem - before.mem, k.host - before.host, k.flops - before.flops}
}

func (k *kernelCost) add(o kernelCost, n float64) {
	k.gemm += n * o.gemm
	k.attn += n * o.attn
	k.mem += n * o.mem
	k.host += n * o.host
	k.flops += n * o.flops
}

// matmul is an m x kk by kk x n product: 2mkn FLOPs, reading both inputs
// and writing the output. Under a low-precision recipe the inputs are
// Recipe.InputBytes each and the activation input is cast first: read
// castReads times at e bytes, written castWrites times at low bytes.
func (r rates) matmul(k *kernelCost, m, kk, n float64) {
	if r.low > 0 {
		k.mem += m*kk*(r.castReads*r.e+r.castWrites*r.low)/r.mem + r.k0
	}
	k.gemm += r.gemm.Time(m, n, kk)/r.gemmShare + r.k0
	k.flops += 2 * m * kk * n
}

// groupedMatmul is groups independent m x kk by kk x n products issued as
// one grouped GEMM (the experts of a MoE layer on one GPU): their tiles
// share the waves (efficiency.GEMM.Grouped), so a small expert GEMM is
// priced at the efficiency of its own shape; under a low-precision
// recipe each group's activation input is cast first.
//
// Megatron-Core's GroupedMLP and Transformer Engine's GroupedLinear run
// the experts this way. A grouped kernel reaches groupedGEMMShare of the
// speed the dense curve gives its tiles.
func (r rates) groupedMatmul(k *kernelCost, groups, m, kk, n float64) {
	if groups <= 0 || m <= 0 {
		return
	}
	if r.low > 0 {
		k.mem += groups*m*kk*(r.castReads*r.e+r.castWrites*r.low)/r.mem + r.k0
	}
	k.gemm += r.gemm.Grouped(groups, m, n, kk)/(r.gemmShare*groupedGEMMShare) + r.k0
	k.flops += 2 * groups * m * kk * n
}

// sixteenBit is r with the layer GEMMs in 16 bits: the output layer and
// the embedding stay in bf16 under Transformer Engine's low-precision
// recipes (Recipe.LowGEMMs).
func (r rates) sixteenBit() rates {
	r.gemm, r.low = r.half, 0
	return r
}

// bmm is a batched attention matmul (scores or weighted values) of the
// given FLOPs and bytes, in 16 bits, at the 16-bit curve's ceiling.
func (r rates) bmm(k *kernelCost, flops, bytes float64) {
	rate := r.half.Ceiling * r.half.Peak * r.gemmShare
	k.gemm += max(flops/rate, bytes/r.mem) + r.k0
	k.flops += flops
}

// stream is a memory-bound kernel that moves bytes.
func (r rates) stream(k *kernelCost, bytes float64) {
	if bytes > 0 {
		k.mem += bytes/r.mem + r.k0
	}
}

// layerShape is what one plan fixes for the kernels of one layer on one
// GPU and one micro-batch.
type layerShape struct {
	tokens float64 // b x s / cp
	hs     float64 // width of the norm and residual region per rank: h, or h/tp under SP
	heads  float64 // attention heads per rank
	kv     float64 // KV heads per rank
	keys   float64 // keys each query is multiplied with
	packs  float64 // samples per sequence for the attention kernels (Plan.packs)
	tp     float64
	batch  float64 // sequences per micro-batch
	cp     float64
	eager  bool
	// The routed experts on this GPU (setExperts): groups local experts
	// of rows tokens each (the busiest expert's), inner width ffn per
	// rank, and the tokens this GPU routes.
	expGroups, expRows, expFFN, expTokens float64
	// expSort: the received tokens are regrouped by local expert
	// (ep > 1 and more than one expert per GPU).
	expSort bool
}

// newLayerShape computes the shape. FlashAttention skips the blocks above
// the causal diagonal, so a query meets (L+1)/2 keys on average, L the
// attention span (the sequence, or the packed samples' length-weighted
// mean length, packing.go); eager attention (Megatron's baddbmm and fused
// masked softmax) computes the whole s x s score matrix and masks it.
func newLayerShape(m *Model, p Plan) layerShape {
	sh := layerShape{
		tokens: float64(p.MicroBatch) * float64(p.Seq/p.CP),
		hs:     float64(m.Hidden), heads: float64(m.Heads) / float64(p.TP),
		kv: m.kvPerRank(p.TP), tp: float64(p.TP), eager: p.Attention == Eager,
		batch: float64(p.MicroBatch), cp: float64(p.CP),
		keys: (float64(p.AttentionSpan()) + 1) / 2, packs: p.packs(),
	}
	if p.SP {
		sh.hs /= sh.tp
	}
	if m.MLA != nil {
		sh.kv = sh.heads
	}
	if sh.eager {
		sh.keys = float64(p.Seq)
	}
	return sh
}

// layerCost is one layer's kernels for one micro-batch: forward,
// backward, and the attention core's forward (which selective recompute
// runs again) and backward.
type layerCost struct {
	fwd, bwd, core, coreBwd kernelCost
	// sac is the forward work OpSAC recomputes (opSACRecompute).
	sac kernelCost
	// mods is the forward work of each Megatron recompute module, in
	// the bit order of RecomputeModules (mark).
	mods [numRecomputeModules]kernelCost
}

// mark adds the forward work since before to module mod.
func (c *layerCost) mark(mod RecomputeModules, before kernelCost) {
	c.mods[bits.TrailingZeros8(uint8(mod))].add(c.fwd.since(before), 1)
}

// selective is the forward work selective recompute of modules mods
// reruns: the forward of exactly those modules (Megatron-Core reruns a
// checkpointed module's forward in backward, transformer_config.py
// recompute_modules).
func (c layerCost) selective(mods RecomputeModules) kernelCost {
	var k kernelCost
	for i := range c.mods {
		if mods&(1<<i) != 0 {
			k.add(c.mods[i], 1)
		}
	}
	return k
}

// pass adds a kernel's forward and backward cost.
type pass struct {
	r rates
	c *layerCost
	t float64 // rows (tokens) of the kernels
}

func (q pass) linear(kk, n float64) { q.linearM(q.t, kk, n) }

// groupedLinear is groups linear layers of m rows each (the local
// experts): forward, and in backward the data and weight gradients, each
// a grouped GEMM.
func (q pass) groupedLinear(groups, m, kk, n float64) {
	q.r.groupedMatmul(&q.c.fwd, groups, m, kk, n)
	q.r.groupedMatmul(&q.c.bwd, groups, m, n, kk)
	q.r.rescale(&q.c.bwd, groups, m, kk)
	q.r.wgradCasts(&q.c.bwd, groups, kk, m, n)
	q.r.wgrad().groupedMatmul(&q.c.bwd, groups, kk, m, n)
	q.r.rescale(&q.c.bwd, groups, kk, n)
}

// linearM is a linear layer on m rows: the forward product, and in
// backward the data gradient (m x n by n x kk) and the weight gradient
// (kk x m by m x n).
func (q pass) linearM(m, kk, n float64) { q.linearOn(m, kk, n, true) }

// linearOn is linearM, with castInput false for a layer whose input
// another layer already cast (projections): its forward cast and the
// input's column-wise copy for the weight gradient are not repeated.
func (q pass) linearOn(m, kk, n float64, castInput bool) {
	fwd, in := q.r, kk
	if !castInput {
		fwd.low, in = 0, 0
	}
	fwd.matmul(&q.c.fwd, m, kk, n)
	q.r.matmul(&q.c.bwd, m, n, kk)
	q.r.rescale(&q.c.bwd, 1, m, kk)
	if q.r.frozen {
		q.dequantize(kk, n)
		return
	}
	q.r.wgradCasts(&q.c.bwd, 1, in, m, n)
	q.r.wgrad().matmul(&q.c.bwd, kk, m, n)
	q.r.rescale(&q.c.bwd, 1, kk, n)
}

// elementwise is a memory-bound kernel moving fwd and bwd elements per
// token of e bytes each.
func (q pass) elementwise(fwd, bwd float64) {
	q.r.stream(&q.c.fwd, q.t*fwd*q.r.e)
	q.r.stream(&q.c.bwd, q.t*bwd*q.r.e)
}

// norm reads and writes the width w forward; backward reads the input
// and the gradient and writes the input gradient.
func (q pass) norm(w float64) { q.elementwise(2*w*q.r.normX, 3*w*q.r.normX) }

// Traffic of eager PyTorch elementwise chains relative to one fused
// kernel, counted from torchtitan's 2024 Llama code (models/llama/
// model.py) in bytes per element, forward:
//
//   - RMSNorm x.float(), pow, mean, rsqrt, mul, type_as, * weight:
//     2+4, 4+4, 4, 4+4, 4+2, 2+2 = 36 bytes against a fused 2+2: 9x;
//     the autograd backward of the chain is taken as the same multiple.
//   - Rotary embedding view_as_complex(x.float()), complex multiply,
//     type_as: 2+4, 8+8, 4+2 = 28 bytes against 2+2: 7x.
//   - SwiGLU silu(gate) then * up: 2+2, 4+2 = 10 bytes against a fused
//     4+2: 5/3x (backward 16 against 10 bytes: about the same).
const (
	eagerRMSNorm = 9
	eagerRoPE    = 7
	eagerGLU     = 5.0 / 3
)

// residual adds the block output to the residual stream (reading both,
// writing the sum); with dropout it also writes a 1-byte mask and the
// backward applies it (read gradient and mask, write).
func (q pass) residual(w float64, dropout bool) {
	if dropout {
		mask := 1 / q.r.e
		q.elementwise(w*(3+mask), w*(2+mask))
		return
	}
	q.elementwise(3*w, 0)
}

// layerCost computes one layer of e's model (MoE when moe) under shape sh.
func (e *Evaluator) layerCost(r rates, sh layerShape, moe bool) layerCost {
	var c layerCost
	q := pass{r: r, c: &c, t: sh.tokens}
	h := float64(e.m.Hidden)
	before := c.fwd
	q.norm(sh.hs)
	c.mark(ModLayerNorm, before)
	e.attentionKernels(q, sh)
	q.residual(sh.hs, e.m.Dropout)
	before = c.fwd
	q.norm(sh.hs)
	c.mark(ModLayerNorm, before)
	before = c.fwd
	if moe {
		e.moeKernels(q, sh)
		c.mark(ModMoE, before)
	} else {
		mlpKernels(q, e.m, float64(e.m.FFN)/sh.tp, h)
		c.mark(ModMLP, before)
	}
	q.residual(sh.hs, e.m.Dropout)
	c.sac = c.opSACRecompute(sh.eager, sh.tokens*e.sacFLOPs[boolIndex(moe)]/sh.tp)
	return c
}

// mlpKernels is a dense MLP of inner width f per rank: the up (and gate)
// projection, the activation (bias+GeLU fused, or SwiGLU's gate x up) and
// the down projection.
func mlpKernels(q pass, m *Model, f, h float64) {
	if m.MLP == SwiGLU {
		q.projections(h, f, f)
		q.adapter(h, f, TargetGate)
		q.adapter(h, f, TargetUp)
		q.elementwise(3*f*q.r.gluX, 5*f*q.r.gluX)
	} else {
		q.adapted(h, f, TargetUp)
		q.elementwise(2*f, 3*f)
	}
	q.adapted(f, h, TargetDown)
}

// attentionKernels is the attention block between the norm and the
// residual: projections, rotary embedding, the core, the output
// projection.
func (e *Evaluator) attentionKernels(q pass, sh layerShape) {
	m := e.m
	h := float64(m.Hidden)
	qk, v := float64(m.HeadDim), float64(m.HeadDim)
	if a := m.MLA; a != nil {
		qk, v = float64(a.QKNopeDim+a.QKRopeDim), float64(a.VDim)
		if a.QLoRARank > 0 {
			qr := float64(a.QLoRARank)
			q.linear(h, qr)
			before := q.c.fwd
			q.norm(qr)
			q.adapted(qr, sh.heads*qk, TargetQ)
			q.c.mark(ModMLAUpProj, before)
		} else {
			q.adapted(h, sh.heads*qk, TargetQ)
		}
		kr := float64(a.KVLoRARank)
		q.adapted(h, kr+float64(a.QKRopeDim), TargetK)
		before := q.c.fwd
		q.norm(kr)
		q.adapted(kr, sh.heads*float64(a.QKNopeDim+a.VDim), TargetV)
		q.c.mark(ModMLAUpProj, before)
	} else {
		q.projections(h, sh.heads*qk, sh.kv*qk, sh.kv*qk)
		q.adapter(h, sh.heads*qk, TargetQ)
		q.adapter(h, sh.kv*qk, TargetK)
		q.adapter(h, sh.kv*qk, TargetV)
		q.adapter(h, (sh.heads+2*sh.kv)*qk, TargetQKV)
		if m.QKNorm {
			q.norm((sh.heads + sh.kv) * qk)
		}
		if !m.LearnedPositions {
			w := 2 * (sh.heads + sh.kv) * qk * q.r.ropeX
			q.elementwise(w, w)
		}
	}
	coreKernels(q, sh, qk, v, m.Dropout)
	q.adapted(sh.heads*v, h, TargetO)
}

// coreKernels is the attention core: softmax(QK^T)V over sh.keys keys.
//
// FlashAttention (Dao 2023, "FlashAttention-2", section 3): forward
// 4 x keys x heads x d FLOPs per query (QK^T and PV), backward 2.5 times
// that (five matmuls, the scores recomputed), no score matrix in memory.
//
// Eager attention (Megatron-LM before FlashAttention): the scores matmul
// writes the heads x s x s matrix, the fused scale-mask-softmax reads and
// writes it, dropout reads it and writes it and a 1-byte mask, the
// weighted sum reads it; the backward mirrors each step (Korthikanti et
// al. 2022, section 5: the memory-bound core that selective recompute
// repeats).
func coreKernels(q pass, sh layerShape, qk, v float64, dropout bool) {
	r, c := q.r, q.c
	var fwd, bwd kernelCost
	t, keys, a := q.t, sh.keys, sh.heads
	if !sh.eager {
		flops := 2 * t * keys * a * (qk + v)
		f, b := r.fusedAttention(sh, qk, v)
		fwd.attn, fwd.flops = f/r.attnShare+r.k0, flops
		bwd.attn, bwd.flops = b/r.attnShare+r.k0, 2.5*flops
	} else {
		e := r.e
		scores := t * keys * a // elements of the score matrix
		io := t * a * (qk + v) * e
		r.bmm(&fwd, 2*scores*qk, scores*e+io)
		r.stream(&fwd, 2*scores*e)
		r.bmm(&bwd, 4*scores*v, 2*scores*e+io)
		r.stream(&bwd, 3*scores*e)
		if dropout {
			r.stream(&fwd, scores*(2*e+1))
			r.stream(&bwd, scores*(2*e+1))
		}
		r.bmm(&fwd, 2*scores*v, scores*e+io)
		r.bmm(&bwd, 4*scores*qk, 2*scores*e+io)
	}
	before := c.fwd
	c.fwd.add(fwd, 1)
	c.bwd.add(bwd, 1)
	c.core, c.coreBwd = fwd, bwd
	c.mark(ModCoreAttn, before)
}

// fusedAttention is the forward and backward seconds of one layer's
// fused attention on sh: micro-batch x heads x packs causal problems of
// one packed sample each (the whole sequence when not packed) without
// context parallelism; with it each rank's queries of a sample meet on
// average sh.keys keys (the load-balanced split of Megatron-Core and
// torchtitan), priced as that many keys without a mask.
func (r rates) fusedAttention(sh layerShape, qk, v float64) (fwd, bwd float64) {
	bh := sh.heads * sh.batch * sh.packs
	sq := sh.tokens / (sh.batch * sh.packs)
	if sh.cp == 1 {
		return r.attn.Forward(bh, sq, sq, qk, v, true), r.attn.Backward(bh, sq, sq, qk, v, true)
	}
	return r.attn.Forward(bh, sq, sh.keys, qk, v, false), r.attn.Backward(bh, sq, sh.keys, qk, v, false)
}

// stageEnds are the kernels of the first stage (embedding lookup, learned
// positions, dropout) and of the last (final norm, output layer, the fp32
// cross-entropy of Megatron's vocab-parallel loss: the logits cast to
// fp32, max, exp-sum and the gradient, about 16 bytes per logit forward
// and 8 backward beyond the logits themselves).
func (e *Evaluator) stageEnds(r rates, sh layerShape) (first, last layerCost) {
	m := e.m
	h, vocab := float64(m.Hidden), float64(m.Vocab)/sh.tp
	f := pass{r: r, c: &first, t: sh.tokens}
	f.elementwise(2*h, 2*h+4*h/r.e)
	if m.LearnedPositions {
		f.elementwise(3*h, 0)
	}
	if m.Dropout {
		f.residual(sh.hs, true)
	}
	r.nf4 = false // the output layer stays bf16 under QLoRA
	l := pass{r: r.sixteenBit(), c: &last, t: sh.tokens}
	l.norm(sh.hs)
	l.linear(h, vocab)
	l.elementwise(vocab*(1+16/r.e), vocab*(1+8/r.e))
	return first, last
}
