package costmodel

import (
	"github.com/gpu-planner/planner/hardware"
)

// StageMemory is the memory of one GPU of one pipeline stage, by part.
// Every field is per GPU.
type StageMemory struct {
	Stage int `json:"stage"`
	// Layers on this stage, and how many are mixture-of-experts layers.
	Layers    int `json:"layers"`
	MoELayers int `json:"moe_layers"`
	// Params held per GPU after tensor and pipeline parallelism, before
	// ZeRO sharding, outside the routed experts; ExpertParams the routed
	// experts' after expert (and expert tensor) parallelism.
	Params       float64 `json:"params"`
	ExpertParams float64 `json:"expert_params,omitempty"`

	Weights       hardware.Bytes `json:"weights_bytes"`
	Gradients     hardware.Bytes `json:"gradients_bytes"`
	MasterWeights hardware.Bytes `json:"master_weights_bytes"`
	Moments       hardware.Bytes `json:"optimizer_moments_bytes"`
	// The routed experts' states, sharded by ZeRO over the expert data
	// parallel group (Plan.ExpertDP) instead of dp x cp.
	ExpertWeights   hardware.Bytes `json:"expert_weights_bytes,omitempty"`
	ExpertGradients hardware.Bytes `json:"expert_gradients_bytes,omitempty"`
	ExpertMaster    hardware.Bytes `json:"expert_master_weights_bytes,omitempty"`
	ExpertMoments   hardware.Bytes `json:"expert_optimizer_moments_bytes,omitempty"`
	// StepGradCopy is DeepSpeed ZeRO-1/2's fp32 gradient partition at
	// the optimizer step, beyond the freed activations (stepGradCopy).
	StepGradCopy hardware.Bytes `json:"step_fp32_grad_partition_bytes,omitempty"`
	// BF16GradCopies are the bf16 gradients DeepSpeed's BF16_Optimizer
	// holds beside its fp32 ones (bf16GradCopies).
	BF16GradCopies hardware.Bytes `json:"bf16_grad_copies_bytes,omitempty"`
	// GatherBuffers is ZeRO-3's unsharded working copy (see gatherBuffers).
	GatherBuffers hardware.Bytes `json:"zero3_gather_bytes"`
	// LowPrecisionWeights are the low-format weight copies a recipe
	// caches across micro-batches (Recipe.WeightCopyBytes).
	LowPrecisionWeights hardware.Bytes `json:"low_precision_weight_bytes"`
	// Under LoRA and QLoRA (lora.go): the frozen base, the adapters'
	// parameters per GPU (Weights to Moments are then the adapters'), and
	// QLoRA's bf16 dequantized layer.
	BaseWeights   hardware.Bytes `json:"frozen_base_weights_bytes,omitempty"`
	AdapterParams float64        `json:"adapter_params,omitempty"`
	Dequant       hardware.Bytes `json:"qlora_dequant_bytes,omitempty"`
	// Host is the model states offloaded to host memory (offload.go),
	// not part of Total.
	Host hardware.Bytes `json:"host_bytes,omitempty"`
	// HostActivations are the saved activations of the offloaded layers
	// in host memory (actoffload.go), not part of Total;
	// ActivationOffloadBuffer is the one layer in transfer on the GPU.
	HostActivations         hardware.Bytes `json:"host_activations_bytes,omitempty"`
	ActivationOffloadBuffer hardware.Bytes `json:"activation_offload_buffer_bytes,omitempty"`

	// InFlight micro-batches, in units of the stage's layers.
	InFlight float64 `json:"in_flight_microbatches"`
	// LayerActivations is what the stage's transformer layers save for
	// InFlight micro-batches.
	LayerActivations hardware.Bytes `json:"layer_activations_bytes"`
	// MoEActivations is the part of LayerActivations that the MoE MLPs
	// save: router logits, permutation map, dispatched tokens, expert
	// intermediates and outputs, shared experts (moeActivations).
	MoEActivations      hardware.Bytes `json:"moe_mlp_activations_bytes,omitempty"`
	EmbeddingActs       hardware.Bytes `json:"embedding_activations_bytes"`
	OutputActs          hardware.Bytes `json:"output_activations_bytes"`
	RecomputeWorkingSet hardware.Bytes `json:"recompute_working_set_bytes"`
	// LossBackward is what an eager cross-entropy's backward holds beyond
	// RecomputeWorkingSet, which it does not coincide with (lossBackward).
	LossBackward hardware.Bytes `json:"loss_backward_bytes,omitempty"`
	// RecomputedLayers is, under a partial full recompute
	// (Plan.RecomputeLayers), how many of the stage's layers are
	// checkpointed and rerun in backward; zero otherwise.
	RecomputedLayers int `json:"recomputed_layers,omitempty"`

	CUDAContext   hardware.Bytes `json:"cuda_context_bytes"`
	NCCLBuffers   hardware.Bytes `json:"nccl_buffers_bytes"`
	Workspace     hardware.Bytes `json:"workspace_bytes"`
	Fragmentation hardware.Bytes `json:"fragmentation_bytes"`

	Total hardware.Bytes `json:"total_bytes"`
}

// ModelStates is weights, gradients and optimizer states.
func (s StageMemory) ModelStates() hardware.Bytes {
	return s.Weights + s.Gradients + s.MasterWeights + s.Moments + s.BaseWeights + s.Dequant +
		s.ExpertWeights + s.ExpertGradients + s.ExpertMaster + s.ExpertMoments
}

// buffers is what the stage holds besides the model states for the whole
// step: ZeRO-3's gathered layer and the low-precision weight copies.
func (s StageMemory) buffers() hardware.Bytes { return s.GatherBuffers + s.LowPrecisionWeights }

// Activations is every saved activation of the stage.
func (s StageMemory) Activations() hardware.Bytes {
	return s.LayerActivations + s.EmbeddingActs + s.OutputActs + s.RecomputeWorkingSet + s.LossBackward +
		s.ActivationOffloadBuffer
}

// Overheads is the runtime's memory outside the model's tensors.
func (s StageMemory) Overheads() hardware.Bytes {
	return s.CUDAContext + s.NCCLBuffers + s.Workspace + s.Fragmentation
}

// Evaluator computes training memory for many plans of one model on one
// cluster. It precomputes what does not depend on the plan, and
// evaluating a plan does not allocate, so the search can call it in its
// hot loop. An Evaluator is safe for concurrent use.
type Evaluator struct {
	m     *Model
	c     hardware.Cluster
	a     Assumptions
	order [numDims]parDim    // a.RankOrder, parsed
	specs [2][2][]tensorSpec // [attention][moe]
	sac   [2][2][]tensorSpec // what OpSAC saves, [attention][moe]
	// sacFLOPs is the forward GEMM FLOPs per token whose outputs OpSAC
	// saves, [moe] (sacSavedFLOPs).
	sacFLOPs [2]float64
	moe      []tensorSpec // the MoE MLP's own tensors (moeTensors)
	// curves are the kernel speeds per training precision on c's GPU.
	curves [len(recipes)]kernelCurves
	// scaleUp is the measured NVLink fit of c's GPU by operation, and
	// scaleUpMeasured whether it applies (measuredScaleUp).
	scaleUp         [5]scaleUpFit
	scaleUpMeasured bool
}

// NewEvaluator validates its inputs and prepares the evaluation.
func NewEvaluator(m *Model, c hardware.Cluster, a Assumptions) (*Evaluator, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	order, err := a.RankOrder.dims()
	if err != nil {
		return nil, err
	}
	e := &Evaluator{m: m.clone(), c: c, a: a, order: order}
	e.setCurves()
	for _, attn := range []Attention{Flash, Eager} {
		e.specs[attn][0] = layerTensors(e.m, attn, false, false)
		e.sac[attn][0] = opSACTensors(e.m, attn, false)
		if m.MoE != nil {
			e.specs[attn][1] = layerTensors(e.m, attn, true, a.MoEWeightedActivation)
			e.sac[attn][1] = opSACTensors(e.m, attn, true)
		}
	}
	e.sacFLOPs[0] = sacSavedFLOPs(e.m, false)
	if m.MoE != nil {
		e.sacFLOPs[1] = sacSavedFLOPs(e.m, true)
	}
	if m.MoE != nil {
		e.moe = moeTensors(e.m, a.MoEWeightedActivation)
	}
	return e, nil
}

// setCurves prepares the kernel curves of every precision and the
// measured NVLink fits on e's GPU.
func (e *Evaluator) setCurves() {
	clock := e.a.SustainedClockOf(e.c.GPU)
	for p := range e.curves {
		e.curves[p] = cachedKernelCurves(e.c.GPU, Precision(p), clock, e.a.AttentionKernel)
	}
	e.scaleUp, e.scaleUpMeasured = scaleUpFits[nvlinkGeneration(e.c.GPU.Arch)]
	e.scaleUpMeasured = e.scaleUpMeasured && e.a.ScaleUpEfficiency == 0
}

// withCluster is e on cluster c: the same model, assumptions and
// prepared tables.
func (e *Evaluator) withCluster(c hardware.Cluster) *Evaluator {
	ev := *e
	ev.c = c
	if c.GPU.Name != e.c.GPU.Name {
		ev.setCurves()
	}
	return &ev
}

// Model returns the evaluator's model (a copy).
func (e *Evaluator) Model() *Model { return e.m.clone() }

// Cluster returns the evaluator's cluster.
func (e *Evaluator) Cluster() hardware.Cluster { return e.c }

// Assumptions returns the evaluator's assumptions.
func (e *Evaluator) Assumptions() Assumptions { return e.a }

// Budget is the memory a plan may use per GPU: HBMFraction of the
// driver-reported capacity.
func (e *Evaluator) Budget() hardware.Bytes {
	return hardware.Bytes(e.a.HBMFraction) * e.c.GPU.HBM
}

// Stage computes the memory of pipeline stage r under plan p, which must
// be normalized (Plan.Normalize) for e's model.
func (e *Evaluator) Stage(p Plan, r int) StageMemory {
	return e.stageMemory(p, r, e.layerActs(p))
}

// stageMemory is Stage with the plan's per-layer activations computed once.
func (e *Evaluator) stageMemory(p Plan, r int, la layerActs) StageMemory {
	s := e.stageStates(p, r)
	e.activations(p, r, la, &s)
	e.stepGradCopy(p, &s)
	e.bf16GradCopies(p, &s)
	e.overheads(p, &s)
	return s
}

// stageStates fills stage r's layers, parameters, model states and ZeRO-3
// gather buffers: everything of the stage that does not depend on the
// micro-batch, the recompute policy or sequence parallelism.
func (e *Evaluator) stageStates(p Plan, r int) StageMemory {
	m := e.m
	s := StageMemory{Stage: r}
	s.Layers, s.MoELayers = p.stageLayers(m.kinds(), r)
	s.Params = e.stageParams(p, r, s.Layers, s.MoELayers)
	s.ExpertParams = e.expertStageParams(p, s.MoELayers)
	e.shardStates(p, &s, s.MoELayers > 0)
	return s
}

// shardStates fills the model states of s.Params parameters after ZeRO
// over dp x cp and of s.ExpertParams over the expert data parallel group
// (Megatron-Core's distributed optimizer shards each over its own data
// parallel group), and ZeRO-3's gather buffers for a stage with (moe) or
// without MoE layers.
func (e *Evaluator) shardStates(p Plan, s *StageMemory, moe bool) {
	if p.Task.Adapted() {
		e.shardAdapted(p, s, moe)
	} else {
		e.shardFull(p, s, moe)
	}
	if p.Offload != NoOffload {
		e.offloadStates(p, s)
	}
}

// shardFull fills the states of a plan that trains every weight.
func (e *Evaluator) shardFull(p Plan, s *StageMemory, moe bool) {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	st := sb.Shard(s.Params, p.ZeRO, p.ShardDegree())
	s.Weights, s.Gradients = hardware.Bytes(st.Weights), hardware.Bytes(st.Gradients)
	s.MasterWeights, s.Moments = hardware.Bytes(st.Master), hardware.Bytes(st.Moments)
	if s.ExpertParams > 0 {
		x := sb.Shard(s.ExpertParams, p.ZeRO, p.ExpertDP())
		s.ExpertWeights, s.ExpertGradients = hardware.Bytes(x.Weights), hardware.Bytes(x.Gradients)
		s.ExpertMaster, s.ExpertMoments = hardware.Bytes(x.Master), hardware.Bytes(x.Moments)
	}
	if p.ZeRO == 3 && p.ShardDegree() > 1 {
		s.GatherBuffers = e.gatherBuffers(p, moe)
		if e.a.ZeRO3PerMatrix && !moe {
			s.GatherBuffers = e.matrixGather(p, sb)
		}
		if e.a.FSDPUnshardedUnderPP && p.PP > 1 {
			s.GatherBuffers = e.stageUnsharded(p, s)
		}
	}
	s.LowPrecisionWeights = lowPrecisionWeights(p, e.localLayerParams(p, s))
	e.fp8ParamStorage(p, s, sb.Weight)
}

// stageUnsharded is ZeRO-3's working set when the pipeline keeps a
// stage's layers unsharded for the whole step: torchtitan wraps each
// block with reshard_after_forward = not pp_enabled ("for PP, do not
// reshard after forward to avoid per-microbatch all-gathers";
// torchtitan models/llama3/infra/parallelize.py, apply_fsdp), and
// torch.distributed.pipelining's stage turns off resharding after
// backward and gradient sync until the last micro-batch's backward
// (pipelining/stage.py, backward_maybe_with_nosync: FSDP
// set_reshard_after_backward(False), set_requires_gradient_sync(False)),
// so FSDP2 accumulates each parameter's unsharded gradient in its
// reduce dtype. Every layer of the stage holds its unsharded weight and
// gradient at once.
func (e *Evaluator) stageUnsharded(p Plan, s *StageMemory) hardware.Bytes {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	return hardware.Bytes(e.localLayerParams(p, s) * (sb.Weight + sb.Grad))
}

// localLayerParams is the transformer-layer parameters stage s holds per
// GPU: its dense layers, the non-expert part of its MoE layers, and the
// routed experts expert parallelism leaves it (s.ExpertParams).
func (e *Evaluator) localLayerParams(p Plan, s *StageMemory) float64 {
	m, dense := e.m, s.Layers-s.MoELayers
	if s.MoELayers == 0 {
		return m.layersParams(p.TP, dense, 0)
	}
	return m.layersParams(p.TP, dense, 0) + float64(s.MoELayers)*m.nonExpertLayerParams(p.TP, true) + s.ExpertParams
}

// lowPrecisionWeights is the recipe's cached low-format weights of a
// stage's transformer-layer params per GPU (the embedding and output
// layer stay bf16, Recipe.LowGEMMs): Recipe.WeightCopyBytes per
// parameter, sharded with the weights under ZeRO-3 (Transformer Engine
// casts the local shard; srcTE).
func lowPrecisionWeights(p Plan, params float64) hardware.Bytes {
	b := params * p.Precision.Recipe().WeightCopyBytes
	if p.ZeRO == 3 {
		b /= float64(p.ShardDegree())
	}
	return hardware.Bytes(b)
}

// Peak computes every stage of p and returns the one with the most memory
// (the first such stage on ties).
func (e *Evaluator) Peak(p Plan) StageMemory {
	best := e.Stage(p, 0)
	for r := 1; r < p.PP; r++ {
		if s := e.Stage(p, r); s.Total > best.Total {
			best = s
		}
	}
	return best
}

// stageParams is the parameters one GPU of stage r holds outside the
// routed experts (expertStageParams): its layers,
// plus the embedding on the first stage and the final norm and output
// layer on the last (a tied output layer is a second copy there when the
// last stage is not the first).
func (e *Evaluator) stageParams(p Plan, r, layers, moe int) float64 {
	m := e.m
	params := float64(layers-moe) * m.layerParams(p.TP, false)
	if moe > 0 {
		params += float64(moe) * m.nonExpertLayerParams(p.TP, true)
	}
	if r == 0 {
		params += m.embeddingParams(p.TP)
	}
	if r == p.PP-1 {
		params += m.finalNormParams() + m.outputParams(p.TP, p.PP > 1)
	}
	return params
}

// gatherBuffers is ZeRO-3's working set: FSDP keeps the unsharded
// weights of the layer it computes and of the one it prefetches, and one
// layer's unsharded gradients until they are reduce-scattered (Zhao et
// al. 2023, "PyTorch FSDP", section 3.3: forward and backward prefetch).
func (e *Evaluator) gatherBuffers(p Plan, moe bool) hardware.Bytes {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	layer := e.m.layerParams(p.TP, false)
	if moe {
		layer = e.m.nonExpertLayerParams(p.TP, true) + e.expertStageParams(p, 1)
	}
	return hardware.Bytes(layer * (2*sb.Weight + sb.Grad))
}

// layerActs is what one layer saves for one micro-batch under a plan,
// the same on every stage: a dense and an MoE layer under the plan's
// recompute policy, and without recompute (full recompute's working set).
type layerActs struct {
	sh                       actShape
	dense, moe               float64
	denseWorking, moeWorking float64
	moeMLP                   float64 // of moe: the MoE MLP's own tensors
	// moeMLPWorking is the MoE MLP's own tensors without recompute,
	// which the layers a partial full recompute skips keep.
	moeMLPWorking float64
}

func (e *Evaluator) layerActs(p Plan) layerActs {
	la := layerActs{sh: e.newActShape(p)}
	la.sh.setExperts(p, e.a.expertRowFactor())
	la.dense = e.layerSaved(la.sh, p, p.Recompute, false)
	if e.m.MoE != nil {
		la.moe = e.layerSaved(la.sh, p, p.Recompute, true)
		if !p.Recompute.Checkpointed() {
			la.moeMLP = la.sh.saved(e.moe, p.Recompute)
		}
	}
	if p.Recompute.Checkpointed() {
		la.denseWorking = e.layerSaved(la.sh, p, NoRecompute, false)
		if e.m.MoE != nil {
			la.moeWorking = e.layerSaved(la.sh, p, NoRecompute, true)
			la.moeMLPWorking = la.sh.saved(e.moe, NoRecompute)
		}
	}
	return la
}

// layerSaved is one layer's saved tensors under recompute policy r, with
// the LoRA adapters' own when the layer is not checkpointed (under OpSAC
// the adapters' small matmuls are taken as recomputed).
func (e *Evaluator) layerSaved(sh actShape, p Plan, r Recompute, moe bool) float64 {
	if r == OpSAC {
		return sh.saved(e.sac[p.Attention][boolIndex(moe)], r)
	}
	b := sh.saved(e.specs[p.Attention][boolIndex(moe)], r)
	if !r.Checkpointed() {
		b += sh.adapterActs(e.m, p, moe)
	}
	return b
}

// activations fills the stage's saved activations.
func (e *Evaluator) activations(p Plan, r int, la layerActs, s *StageMemory) {
	m := e.m
	sh := la.sh
	mb := p.MicroBatches()
	if p.partialRecompute() {
		s.RecomputedLayers, _ = p.stageRecomputed(m.kinds(), r)
	}
	var emb, out float64 // per micro-batch
	if r == 0 && m.Dropout {
		// Embedding dropout mask, 1 byte per element (Korthikanti et al.
		// 2022, section 4.3: sbhp/t on the first stage).
		emb = sh.tokens * sh.hidden / sh.divisor(seqSplit)
	}
	if r == p.PP-1 {
		out = e.outputActs(sh)
	}
	if p.Interleaved() {
		e.chunkActivations(p, r, mb, la, emb, out, s)
		e.setLossBackward(p, r, sh, s)
		return
	}
	var stage chunkActs
	c := p.middleChunk(m.Layers)
	for j := r; j < p.PP*p.VPP; j += p.PP {
		lo, hi := p.chunkRange(m.Layers, c, j)
		a := e.rangeActs(p, la, lo, hi)
		stage.saved += a.saved
		stage.moeMLP += a.moeMLP
		stage.transient = max(stage.transient, a.transient)
	}
	s.RecomputeWorkingSet = e.workingSet(p, la, s, stage.transient)
	s.InFlight = p.inFlight(r, mb)
	s.LayerActivations = hardware.Bytes(s.InFlight * stage.saved)
	s.MoEActivations = hardware.Bytes(s.InFlight * stage.moeMLP)
	s.EmbeddingActs = hardware.Bytes(p.embeddingInFlight(mb) * emb)
	s.OutputActs = hardware.Bytes(p.outputInFlight(mb) * out)
	e.offloadActivations(p, r, la, s)
	e.setLossBackward(p, r, sh, s)
}

// setLossBackward sets the last stage's loss-backward transient net of
// the recompute working set, which comes later in the backward.
func (e *Evaluator) setLossBackward(p Plan, r int, sh actShape, s *StageMemory) {
	if r == p.PP-1 {
		s.LossBackward = hardware.Bytes(max(0, e.lossBackward(sh)-float64(s.RecomputeWorkingSet)))
	}
}

// workingSet is the recompute's transient on stage s: the heaviest
// chunk's (rangeActs) under a partial full recompute, else one layer's
// full tensors, an MoE layer's when the stage has any.
func (e *Evaluator) workingSet(p Plan, la layerActs, s *StageMemory, heaviest float64) hardware.Bytes {
	switch {
	case p.partialRecompute():
		return hardware.Bytes(heaviest)
	case !p.Recompute.Checkpointed() || s.Layers == 0:
		return 0
	case s.MoELayers > 0:
		return hardware.Bytes(la.moeWorking)
	}
	return hardware.Bytes(la.denseWorking)
}

// chunkActivations fills the activations of interleaved rank r chunk by
// chunk, at the instant of the schedule when they weigh the most
// (interleaved.peak): each of its v chunks holds its own layers'
// activations (chunk 0 of rank 0 also the embedding's, the last chunk of
// the last rank also the logits) for the micro-batches in flight on that
// chunk, so a lighter end chunk counts what it holds, not a share of the
// rank's average. InFlight is the micro-batches held, in units of the
// rank's layers.
func (e *Evaluator) chunkActivations(p Plan, r, mb int, la layerActs, emb, out float64, s *StageMemory) {
	kinds := e.m.kinds()
	layers := kinds.layers
	c := p.middleChunk(layers)
	chunk := func(j int) (a chunkActs, n int) {
		lo, hi := p.chunkRange(layers, c, r+j*p.PP)
		return e.rangeActs(p, la, lo, hi), hi - lo
	}
	weight := func(j int) float64 {
		a, _ := chunk(j)
		b := a.saved
		if j == 0 {
			b += emb
		}
		if j == p.VPP-1 {
			b += out
		}
		return b
	}
	w := chunkWeights{n: p.VPP, of: weight}
	uniform := false // unknown beyond maxWeights chunks: walk
	if p.VPP <= maxWeights {
		uniform = true
		for j := range p.VPP {
			w.w[j] = weight(j)
			uniform = uniform && w.w[j] == w.w[0]
		}
	}
	sch := p.interleavedSchedule(r, mb)
	i := sch.peak(&w, uniform)
	var acts, held, moeActs, transient float64
	for j := range p.VPP {
		a, n := chunk(j)
		k := float64(sch.held(i, j))
		acts += k * a.saved
		held += k * float64(n)
		moeActs += k * a.moeMLP
		transient = max(transient, a.transient)
	}
	s.RecomputeWorkingSet = e.workingSet(p, la, s, transient)
	s.LayerActivations = hardware.Bytes(acts)
	s.MoEActivations = hardware.Bytes(moeActs)
	if s.Layers > 0 {
		s.InFlight = held / float64(s.Layers)
	}
	s.EmbeddingActs = hardware.Bytes(float64(sch.held(i, 0)) * emb)
	s.OutputActs = hardware.Bytes(float64(sch.held(i, p.VPP-1)) * out)
}

// outputActs is the last stage's final norm input and output-layer input
// (2sbh each, split under SP) and the fp32 logits of the cross-entropy,
// 4sbv/t (Korthikanti et al. 2022, section 4.3: 4sbh/t * (1 + v/h)).
func (e *Evaluator) outputActs(sh actShape) float64 {
	norm := 2 * sh.tokens * sh.hidden * sh.actBytes / sh.divisor(seqSplit)
	logits := sh.tokens * float64(e.m.Vocab) * 4 / sh.tp
	return norm + logits
}

// lossBackward is the transient of an eager cross-entropy's backward on
// the last stage: torchtitan computes F.cross_entropy(pred.float(), ...)
// and deletes the bf16 logits before the backward (torchtitan train.py:
// "need to free to before bwd to avoid peaking memory"), so beside the
// saved fp32 log-softmax (4 B per logit, in outputActs) the backward holds
// nll_loss's fp32 gradient and log_softmax_backward's fp32 result at once:
// 8 B per logit, sharded over tp by the loss-parallel vocabulary. Megatron's
// fused vocab-parallel cross-entropy writes its gradient into the saved
// softmax in place and adds none.
func (e *Evaluator) lossBackward(sh actShape) float64 {
	if !e.a.EagerCrossEntropy {
		return 0
	}
	return 8 * sh.tokens * float64(e.m.Vocab) / sh.tp
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// overheads adds the runtime lines and the total.
func (e *Evaluator) overheads(p Plan, s *StageMemory) {
	s.CUDAContext = e.a.CUDAContext
	s.NCCLBuffers, _ = e.ncclBuffers(p)
	s.Workspace = e.a.TrainWorkspace
	tensors := s.ModelStates() + s.buffers() + s.Activations() + s.StepGradCopy + s.BF16GradCopies
	s.Fragmentation = hardware.Bytes(e.a.Fragmentation) * tensors
	s.Total = tensors + s.CUDAContext + s.NCCLBuffers + s.Workspace + s.Fragmentation
}
