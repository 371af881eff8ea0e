package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Sources cited by the training inventory.
const (
	srcZeRO      = "Rajbhandari et al. 2020, ZeRO (arXiv:1910.02054), sec. 3.1 and Fig. 1"
	srcMixed     = "Micikevicius et al. 2018, Mixed Precision Training (arXiv:1710.03740)"
	srcActs      = "Korthikanti et al. 2022 (arXiv:2205.05198), sec. 4, Table 2"
	srcPipe      = "Narayanan et al. 2021 (arXiv:2104.04473), sec. 2.2; Korthikanti et al. 2022, sec. 4.2.3"
	srcFSDP      = "Zhao et al. 2023, PyTorch FSDP (arXiv:2304.11277), sec. 3.3"
	srcAssumed   = "assumption (costmodel.DefaultAssumptions)"
	srcOutputAct = "Korthikanti et al. 2022, sec. 4.3: 4sbh/t (1 + v/h)"
	// srcLossBackward is where an eager fp32 cross-entropy is run.
	srcLossBackward = "torchtitan train.py: F.cross_entropy(pred.flatten(0, 1).float(), labels), del pred before backward"
)

// Report is the estimate for one training plan.
type Report struct {
	Model       string           `json:"model"`
	Params      Params           `json:"params"`
	Cluster     hardware.Cluster `json:"cluster"`
	Plan        Plan             `json:"plan"`
	PlanString  string           `json:"plan_string"`
	Assumptions Assumptions      `json:"assumptions"`
	// MicroBatches per step and pipeline (gradient accumulation).
	MicroBatches int `json:"micro_batches"`
	// Memory is the inventory of the most loaded stage, PeakStage.
	PeakStage int       `json:"peak_stage"`
	Memory    Inventory `json:"memory"`
	// Stages holds every pipeline stage's memory.
	Stages []StageMemory `json:"stages"`
	// Notes are caveats about the estimate (for example, experts counted
	// as replicated, or a sequence beyond the model's trained context).
	Notes []string `json:"notes,omitempty"`
	// Levers, when the plan does not fit, are changes that shrink the
	// peak, each with the memory it leads to.
	Levers []Lever `json:"levers,omitempty"`
	// Host, with offload, is the host memory of the peak stage.
	Host *HostInventory `json:"host,omitempty"`
	// Performance is the step time, its breakdown and the throughput;
	// Traffic the collectives of one step on the slowest pipeline stage.
	Performance Performance   `json:"performance"`
	Traffic     []TrafficLine `json:"traffic"`
	// FLOPFormula states how MFU and HFU count FLOPs.
	FLOPFormula string `json:"flop_formula"`
}

// Estimate computes the per-GPU memory of training model m on cluster c
// with plan p. Invalid input is an error that names the bad value; a plan
// that does not fit is not an error (Report.Memory.Fits is false).
func Estimate(m *Model, c hardware.Cluster, p Plan, a Assumptions) (*Report, error) {
	e, err := NewEvaluator(m, c, a)
	if err != nil {
		return nil, err
	}
	return e.Estimate(p)
}

// Estimate is the package-level Estimate on e's model and cluster.
func (e *Evaluator) Estimate(p Plan) (*Report, error) {
	p, err := p.Normalize(e.m, e.c.GPUs())
	if err != nil {
		return nil, err
	}
	if _, err := e.c.GPU.Peak(p.Precision.PeakFormat()); err != nil {
		return nil, err
	}
	r := &Report{
		Model: e.m.Name, Params: e.m.Params(), Cluster: e.c, Plan: p, PlanString: p.String(),
		Assumptions: e.a, MicroBatches: p.MicroBatches(),
	}
	peak := e.Stage(p, 0)
	for s := range p.PP {
		st := e.Stage(p, s)
		r.Stages = append(r.Stages, st)
		if st.Total > peak.Total {
			peak = st
		}
	}
	r.PeakStage = peak.Stage
	r.Memory = newInventory(e.stageLines(p, peak), e.c.GPU.HBM, e.a.HBMFraction)
	r.Host = e.hostInventory(p, peak)
	r.Notes = e.notes(p)
	if !r.Memory.Fits || r.Host != nil && !r.Host.Fits {
		r.Levers = e.levers(p, peak.Total)
	}
	var set commSet
	r.Performance = e.performance(p, e.stepTime(p, &set))
	r.Traffic = set.lines()
	r.FLOPFormula = FLOPFormula
	if p.partialRecompute() && p.RecomputeMethod == Block {
		r.FLOPFormula += fmt.Sprintf("; block method: the recomputed forward of only the first %d layers of each model chunk", p.RecomputeLayers)
	}
	return r, nil
}

// StageInventory itemizes stage s of a report's plan.
func (e *Evaluator) StageInventory(p Plan, s int) (Inventory, error) {
	p, err := p.Normalize(e.m, e.c.GPUs())
	if err != nil {
		return Inventory{}, err
	}
	if s < 0 || s >= p.PP {
		return Inventory{}, fmt.Errorf("costmodel: stage %d is not in [0, %d)", s, p.PP)
	}
	return newInventory(e.stageLines(p, e.Stage(p, s)), e.c.GPU.HBM, e.a.HBMFraction), nil
}

// stageLines itemizes one stage with formulas.
func (e *Evaluator) stageLines(p Plan, s StageMemory) []Line {
	lines := e.stateLines(p, s)
	if p.Offload != NoOffload {
		lines = append(lines, offloadedGradientLine(s, e.a.ModelStateBytes(p.Precision, p.Optimizer).Grad))
	}
	if s.StepGradCopy > 0 {
		lines = append(lines, stepGradCopyLine(p, s))
	}
	if s.BF16GradCopies > 0 {
		lines = append(lines, bf16GradCopiesLine(s))
	}
	lines = append(lines, e.activationLines(p, s)...)
	return append(lines, e.overheadLines(p, s)...)
}

// offloadedGradientLine replaces the gradient line when gradients stream
// to the host: one reduce bucket stays on the GPU.
func offloadedGradientLine(s StageMemory, grad float64) Line {
	return Line{Name: "gradients (one reduce bucket; the rest stream to the host)", Group: GroupStates, Bytes: s.Gradients,
		Formula: fmt.Sprintf("min(gradients per GPU, %s elements) x %s", FormatCount(offloadBucket), perParam(grad)),
		Source:  srcZeROOffload + "; " + srcDSBucket}
}

// stateLines itemizes the model states of a stage.
func (e *Evaluator) stateLines(p Plan, s StageMemory) []Line {
	if p.Task.Adapted() {
		return dropOffloaded(p, e.adaptedStateLines(p, s))
	}
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	n := p.ShardDegree()
	where := fmt.Sprintf("%s params/GPU (stage %d of pp=%d, %d layers, tp=%d)", FormatCount(s.Params), s.Stage, p.PP, s.Layers, p.TP)
	weights := Line{Name: "weights (" + weightDType(p) + ")", Group: GroupStates, Bytes: s.Weights,
		Formula: sharded(perParam(sb.Weight)+" x "+where, p.ZeRO, 3, n), Source: srcZeRO}
	if e.fp8Params(p) {
		weights.Name = "weights (" + weightDType(p) + ": embedding and output layer; the layers' in " + p.Precision.String() + ")"
		weights.Formula = sharded(perParam(sb.Weight)+" x ("+where+" - layer params/GPU)", p.ZeRO, 3, n)
		weights.Source = srcZeRO + "; " + srcFP8Params
	}
	lines := []Line{
		weights,
		{Name: "gradients", Group: GroupStates, Bytes: s.Gradients,
			Formula: sharded(perParam(sb.Grad)+" x P_gpu", p.ZeRO, 2, n), Source: srcZeRO},
		{Name: "optimizer: " + masterName(e.a), Group: GroupStates, Bytes: s.MasterWeights,
			Formula: sharded(perParam(sb.Master)+" x P_gpu", p.ZeRO, 1, n), Source: srcMixed},
		{Name: "optimizer: " + momentName(p.Optimizer, e.a.BF16OptimizerStates), Group: GroupStates, Bytes: s.Moments,
			Formula: sharded(perParam(sb.Moments)+" x P_gpu", p.ZeRO, 1, n), Source: optimizerSource(p.Optimizer)},
	}
	lines = append(lines, e.expertStateLines(p, s, sb)...)
	lines = append(lines, []Line{
		e.gatherLine(p, s, sb),
	}...)
	if rc := p.Precision.Recipe(); rc.WeightCopyBytes > 0 {
		lines = append(lines, Line{Name: p.Precision.String() + " weight copies and scales", Group: GroupStates,
			Bytes: s.LowPrecisionWeights, Formula: sharded(perParam(rc.WeightCopyBytes)+" x layer params/GPU", p.ZeRO, 3, n), Source: rc.Source})
	}
	return dropOffloaded(p, lines)
}

// dropOffloaded removes the gradient line when the gradients stream to
// the host (offloadedGradientLine stands in for it).
func dropOffloaded(p Plan, lines []Line) []Line {
	if p.Offload == NoOffload {
		return lines
	}
	out := lines[:0]
	for _, l := range lines {
		if l.Name != "gradients" && l.Name != "LoRA adapters: gradients" {
			out = append(out, l)
		}
	}
	return out
}

func weightDType(p Plan) string {
	if p.Precision == FP32 {
		return "fp32"
	}
	if p.Precision == FP16 {
		return "fp16"
	}
	return "bf16"
}

func momentName(o Optimizer, bf16 bool) string {
	dt := "fp32"
	if bf16 {
		dt = "bf16"
	}
	switch o {
	case Adam:
		return "Adam moments (" + dt + " m and v)"
	case Adam8bit:
		return "8-bit Adam moments (+ fp32 block scales)"
	case Momentum:
		return "momentum (" + dt + ")"
	}
	return "SGD state (none)"
}

// masterName names the optimizer's weight copy: fp32 in mixed
// precision, bf16 or none with BF16OptimizerStates (ModelStateBytes).
func masterName(a Assumptions) string {
	switch {
	case !a.BF16OptimizerStates:
		return "fp32 master weights"
	case a.FP8ParamStorage:
		return "bf16 weight copy (bf16 optimizer, FP8 weights)"
	}
	return "master weights (none: the bf16 optimizer steps the bf16 weights)"
}

func optimizerSource(o Optimizer) string {
	if o == Adam8bit {
		return "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization (arXiv:2110.02861)"
	}
	return srcZeRO
}

func (e *Evaluator) activationLines(p Plan, s StageMemory) []Line {
	perLayer, layerActs := 0.0, s.LayerActivations-s.MoEActivations
	kept := s.Layers
	if s.HostActivations > 0 {
		kept -= p.OffloadActivationLayers
	}
	if kept > 0 && s.InFlight > 0 {
		perLayer = float64(layerActs) / s.InFlight / float64(kept)
	}
	mbs := p.MicroBatches()
	emb, out := p.embeddingInFlight(mbs), p.outputInFlight(mbs)
	if p.Interleaved() {
		// Counted with the end chunks at the stage's heaviest instant.
		sh := e.newActShape(p)
		emb = float64(s.EmbeddingActs) / (sh.tokens * sh.hidden / sh.divisor(seqSplit))
		out = float64(s.OutputActs) / e.outputActs(sh)
	}
	policy := p.recomputePolicy()
	layers := Line{Name: fmt.Sprintf("activations: %d layers (recompute %s, %s attention)", s.Layers, policy, p.Attention),
		Group: GroupActivations, Bytes: layerActs,
		Formula: fmt.Sprintf("%d layers x %s in flight (%s) x %v per layer (s=%d/cp, b=%d)",
			s.Layers, microBatches(s.InFlight), scheduleName(p), hardware.Bytes(perLayer), p.Seq, p.MicroBatch),
		Source: srcActs + "; " + srcPipe}
	if s.HostActivations > 0 {
		layers.Formula = fmt.Sprintf("%d layers kept (%d offloaded to the host) x %s in flight (%s) x %v per layer (s=%d/cp, b=%d)",
			kept, p.OffloadActivationLayers, microBatches(s.InFlight), scheduleName(p), hardware.Bytes(perLayer), p.Seq, p.MicroBatch)
		layers.Source += "; " + srcActOffload
	}
	if p.partialRecompute() {
		layers.Formula = e.partialRecomputeFormula(p, s, layerActs)
		layers.Source += "; " + srcPartialRecompute
	}
	if p.Recompute == OpSAC {
		layers.Formula += "; saved: " + e.sacSaved(p, s.MoELayers > 0)
		layers.Source += "; " + srcOpSAC
	}
	if p.Recompute == Selective && p.RecomputeModules != 0 {
		layers.Formula += "; recomputed, not saved: " + e.modulesDropped(p, s.MoELayers > 0, false)
		layers.Source += "; " + srcModules
	}
	return []Line{
		layers,
		e.moeActivationLine(p, s),
		{Name: "activations: embedding dropout mask", Group: GroupActivations, Bytes: s.EmbeddingActs,
			Formula: fmt.Sprintf("1 B x s x b x h%s x %s", spDiv(p), microBatches(emb)), Source: srcActs},
		{Name: "activations: output layer and fp32 logits", Group: GroupActivations, Bytes: s.OutputActs,
			Formula: fmt.Sprintf("(4 x s x b x h%s + 4 x s x b x v/t) x %s", spDiv(p), microBatches(out)),
			Source:  srcOutputAct},
		workingSetLine(p, s),
		e.lossBackwardLine(p, s),
		actOffloadBufferLine(s),
	}
}

// lossBackwardLine prints the eager cross-entropy's backward transient
// (lossBackward), net of the recomputed layer's working set it replaces.
func (e *Evaluator) lossBackwardLine(p Plan, s StageMemory) Line {
	f := "8 B x s x b x v/t (fp32 gradients of nll_loss and log_softmax)"
	if s.RecomputeWorkingSet > 0 {
		f += " - the recomputed layer, which comes later"
	}
	return Line{Name: "activations: fp32 loss gradients", Group: GroupActivations,
		Bytes: s.LossBackward, Formula: f, Source: srcLossBackward}
}

func scheduleName(p Plan) string {
	switch {
	case p.PP == 1:
		return "no pipeline"
	case p.Schedule == GPipe:
		return "GPipe"
	case p.VPP > 1:
		return fmt.Sprintf("interleaved 1F1B, v=%d", p.VPP)
	}
	return "1F1B"
}

func spDiv(p Plan) string {
	if p.SP {
		return "/t"
	}
	return ""
}

func (e *Evaluator) overheadLines(p Plan, s StageMemory) []Line {
	return []Line{
		{Name: "CUDA context", Group: GroupOverheads, Bytes: s.CUDAContext, Formula: "fixed per process", Source: srcAssumed},
		{Name: "NCCL buffers", Group: GroupOverheads, Bytes: s.NCCLBuffers,
			Formula: e.a.ncclFormula(e.ncclBuffers(p)), Source: e.a.ncclSource()},
		{Name: "cuBLAS/attention workspace", Group: GroupOverheads, Bytes: s.Workspace, Formula: "fixed per process", Source: srcAssumed},
		{Name: "allocator fragmentation", Group: GroupOverheads, Bytes: s.Fragmentation,
			Formula: fmt.Sprintf("%g%% of allocated tensors", 100*e.a.Fragmentation), Source: srcAssumed},
	}
}

// notes lists caveats that apply to the plan.
func (e *Evaluator) notes(p Plan) []string {
	var out []string
	if e.m.MoE != nil {
		out = append(out, e.moeNote(p))
	}
	if p.Seq > e.m.MaxSeq {
		out = append(out, fmt.Sprintf("seq=%d exceeds the model's max_position_embeddings %d", p.Seq, e.m.MaxSeq))
	}
	if n := e.slidingNote(p); n != "" {
		out = append(out, n)
	}
	out = append(out, tuneNotes(p)...)
	if p.TP > e.c.GPUsPerNode {
		out = append(out, fmt.Sprintf("tp=%d spans more than one %d-GPU node: its all-reduces cross the network", p.TP, e.c.GPUsPerNode))
	}
	return out
}

// microBatches writes a count of micro-batches, "1 micro-batch" or
// "2.5 micro-batches".
func microBatches(n float64) string {
	if n == 1 {
		return "1 micro-batch"
	}
	return fmt.Sprintf("%.3g micro-batches", n)
}

// gatherLine is ZeRO-3's working set: one layer's weights and gradients,
// or, where FSDP keeps a pipeline stage unsharded, the whole stage's.
func (e *Evaluator) gatherLine(p Plan, s StageMemory, sb StateBytes) Line {
	l := Line{Name: "ZeRO-3 gathered layer weights and gradients", Group: GroupStates, Bytes: s.GatherBuffers,
		Formula: fmt.Sprintf("one layer's params/GPU x (2 x %g B weights + %g B gradients)", sb.Weight, sb.Grad), Source: srcFSDP}
	if e.a.ZeRO3PerMatrix && e.m.MoE == nil {
		return e.matrixGatherLine(s, sb)
	}
	if e.a.FSDPUnshardedUnderPP && p.PP > 1 {
		l.Name = "ZeRO-3 unsharded stage weights and gradients (kept over the micro-batches)"
		l.Formula = fmt.Sprintf("stage layer params/GPU x (%g B weights + %g B accumulated gradients)", sb.Weight, sb.Grad)
		l.Source = srcFSDPUnderPP
	}
	return l
}

const srcFSDPUnderPP = "torchtitan apply_fsdp: reshard_after_forward = not pp_enabled; torch.distributed.pipelining stage.py backward_maybe_with_nosync: no reshard or gradient sync until the last micro-batch"
