package costmodel

import "github.com/gpu-planner/planner/hardware"

// inFlight is the number of micro-batches whose activations pipeline rank
// r holds at its peak (the start of the first backward pass), in units of
// the rank's whole set of layers, when its chunks are alike.
//
//   - 1F1B (Narayanan et al. 2021, section 2.2.1): rank r runs pp-r
//     forward passes before its first backward, so the first stage holds
//     pp micro-batches.
//   - Interleaved 1F1B with v model chunks per rank: warmupChunks chunk
//     forwards, each a 1/v share of the rank's layers when the chunks are
//     equal; for r = 0 that is pp*(1 + (pp-1)/(pp*v)) micro-batches,
//     Korthikanti et al. 2022, section 4.2.3. The memory model counts
//     chunk by chunk instead (chunkActivations, schedule.go), which
//     gives the same for equal chunks without an embedding or logits.
//   - GPipe (Huang et al. 2019): all m micro-batches.
//
// Never more than the m micro-batches of the step. What crosses a stage
// boundary adds nothing per micro-batch: a stage's output is freed once
// sent, its autograd node kept (Megatron-Core
// pipeline_parallel/schedules.py, deallocate_output_tensor, "This
// method should be called right after the output tensor has been sent
// to the next pipeline stage", under deallocate_pipeline_outputs; Dubey
// et al. 2024, sec. 3.3.2: "we proactively deallocate tensors that will
// not be used for future computation, including the input and output
// tensors of each pipeline stage"), and the received input is the tensor
// the first layer's norm saves, counted with that layer.
func (p Plan) inFlight(r, m int) float64 {
	switch {
	case p.PP == 1:
		return 1
	case p.Schedule == GPipe:
		return float64(m)
	case p.VPP > 1:
		return float64(p.warmupChunks(r, m)) / float64(p.VPP)
	}
	return float64(min(p.PP-r, m))
}

// warmupChunks is the chunk forwards interleaved rank r has run when its
// first backward starts: Megatron-Core's (pp-r-1)*2 + (v-1)*pp warm-up
// forwards and the first steady-state one, or all m*v when the warm-up
// takes them all (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving, with
// microbatch_group_size_per_vp_stage at its default, pp).
func (p Plan) warmupChunks(r, m int) int {
	return min((p.PP-r-1)*2+(p.VPP-1)*p.PP+1, m*p.VPP)
}

// embeddingInFlight is the micro-batches whose embedding output the first
// stage holds, and outputInFlight those whose logits the last stage holds,
// without interleaving: under 1F1B the last stage runs each micro-batch's
// backward right after its forward. Interleaved, the embedding and the
// logits belong to the end chunks and are counted with them
// (chunkActivations).
func (p Plan) embeddingInFlight(m int) float64 {
	if p.Schedule == GPipe && p.PP > 1 {
		return float64(m)
	}
	return float64(min(p.PP, m))
}

func (p Plan) outputInFlight(m int) float64 {
	if p.Schedule == GPipe && p.PP > 1 {
		return float64(m)
	}
	return 1
}

// PeakFast returns exactly what Peak returns, evaluating only the stages
// that can hold the peak. Stage r's memory depends on r through its layer
// composition (layers and MoE layers, chunk by chunk), the embedding on
// stage 0, the output layer on the last stage, and the micro-batches in
// flight, which no schedule increases with r (inFlight; interleaved, at
// every instant a rank with a longer warm-up holds every chunk forward a
// later rank holds, and more). Among middle stages of the
// same composition the earliest therefore holds at least as much as the
// later ones, and Peak, which keeps the first of equal stages, never picks
// a later one. So stage 0, the last stage and the first middle stage of
// each run of equal compositions suffice: three stages for a model whose
// layers are all dense or all MoE.
func (e *Evaluator) PeakFast(p Plan) StageMemory {
	var best StageMemory
	la := e.layerActs(p)
	e.peakCandidates(p, func(r int) {
		if s := e.stageMemory(p, r, la); r == 0 || s.Total > best.Total {
			best = s
		}
	})
	return best
}

// PeakLowerBound is a lower bound on Peak(p).Total that needs no
// activation math: the largest model states of any stage (with ZeRO-3's
// gather buffers), their allocator fragmentation and the fixed runtime
// overheads. None of these depends on the micro-batch size, the recompute
// policy or sequence parallelism, so a plan whose bound exceeds the budget
// does not fit under any of them. The stages it looks at are those
// PeakFast looks at; middle stages of equal composition hold equal states.
func (e *Evaluator) PeakLowerBound(p Plan) hardware.Bytes {
	var bound hardware.Bytes
	e.peakCandidates(p, func(r int) {
		bound = max(bound, e.statesTotal(p, r))
	})
	return bound
}

// SplitLowerBound is a lower bound on PeakLowerBound(q) for every plan q
// that differs from p only in its layer split (FirstStageLayers,
// LastStageLayers, VPP): whatever the split, some stage holds at least
// n = ceil(layers/pp) layers, before any embedding or output layer, and
// of them at most all the model's layers of the lighter kind (dense or
// MoE) can be of that kind. One bound thus settles every split of a
// layout. It is scaled down by a relative 1e-12 so that rounding in the
// sums it stands for cannot put it above them.
func (e *Evaluator) SplitLowerBound(p Plan) hardware.Bytes {
	m := e.m
	n := (m.Layers + p.PP - 1) / p.PP
	moe := m.MoELayers()
	if moe == 0 {
		return e.layersStates(p, n, 0) * (1 - 1e-12)
	}
	dense := m.Layers - moe
	// The lighter kind fills the stage first.
	lightDense := e.layersStates(p, 1, 0) <= e.layersStates(p, 1, 1)
	k := n - min(n, dense) // MoE layers when dense layers are lighter
	if !lightDense {
		k = min(n, moe)
	}
	return e.layersStates(p, n, k) * (1 - 1e-12)
}

// layersStates is the states and overheads of a stage of n layers, moe
// of them MoE layers, without embedding or output layer. States grow
// with each layer, so a stage of n layers holds at least a stage of n
// layers of the lightest composition the model allows.
func (e *Evaluator) layersStates(p Plan, n, moe int) hardware.Bytes {
	m := e.m
	s := StageMemory{Layers: n, MoELayers: moe, Params: float64(n-moe) * m.layerParams(p.TP, false)}
	if moe > 0 {
		s.Params += float64(moe) * m.nonExpertLayerParams(p.TP, true)
		s.ExpertParams = e.expertStageParams(p, moe)
	}
	e.shardStates(p, &s, moe > 0)
	e.overheads(p, &s)
	return s.Total
}

// peakCandidates calls f, in increasing order, for stage 0, the first
// middle stage of each run of equal chunk compositions, and the last
// stage. Middle stages hold equal chunks (see split.go), so when the
// layers are all dense or all MoE every middle stage has the composition
// of stage 1.
func (e *Evaluator) peakCandidates(p Plan, f func(r int)) {
	f(0)
	if p.PP == 1 {
		return
	}
	moe := e.m.MoELayers()
	if moe == 0 || moe == e.m.Layers {
		if p.PP > 2 {
			f(1)
		}
		f(p.PP - 1)
		return
	}
	for r := 1; r < p.PP-1; r++ {
		if r == 1 || !p.sameChunks(e.m.kinds(), r-1, r) {
			f(r)
		}
	}
	f(p.PP - 1)
}

// statesTotal is stage r's total with its activations left out: each term
// of Stage's total, summed in the same order, is no larger, so the result
// is no larger than Stage(p, r).Total in floating point as in exact
// arithmetic.
func (e *Evaluator) statesTotal(p Plan, r int) hardware.Bytes {
	s := e.stageStates(p, r)
	e.overheads(p, &s)
	return s.Total
}
