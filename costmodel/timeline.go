package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Pass is one forward or backward pass of one micro-batch through one
// model chunk of a pipeline rank. Without interleaving a rank holds one
// chunk, its whole stage.
type Pass struct {
	Backward   bool `json:"backward"`
	MicroBatch int  `json:"micro_batch"`
	Chunk      int  `json:"chunk"`
}

// String writes a pass as schedules are drawn: "F3", "B0", or with
// model chunks "F3.1".
func (p Pass) String() string {
	s := fmt.Sprintf("F%d", p.MicroBatch)
	if p.Backward {
		s = fmt.Sprintf("B%d", p.MicroBatch)
	}
	if p.Chunk > 0 {
		s += fmt.Sprintf(".%d", p.Chunk)
	}
	return s
}

// StageSchedule returns the passes pipeline rank r runs in one training
// step, in order. p must be normalized (Plan.Normalize). The orders are
// the ones the frameworks run:
//
//   - No pipeline: each micro-batch's forward then its backward (gradient
//     accumulation).
//   - 1F1B (Narayanan et al. 2021, arXiv:2104.04473, section 2.2.1 and
//     Figure 4): pp-r-1 warm-up forwards, then one forward and one
//     backward alternately, then the remaining backwards.
//   - Interleaved 1F1B (same paper, section 2.2.2; Megatron-LM's
//     forward_backward_pipelining_with_interleaving): (pp-r-1)*2 +
//     (v-1)*pp warm-up chunk forwards; chunks advance in groups of pp
//     micro-batches, forwards through chunks 0..v-1 and backwards through
//     v-1..0.
//   - GPipe (Huang et al. 2019): every forward, then every backward.
//
// The warm-up lengths are the ones Plan's in-flight count uses, so the
// activations a schedule holds at its first backward are the InFlight of
// StageMemory.
func (p Plan) StageSchedule(r int) ([]Pass, error) {
	m, v := p.MicroBatches(), p.VPP
	if p.PP < 1 || v < 1 || m < 1 || r < 0 || r >= p.PP {
		return nil, fmt.Errorf("costmodel: no schedule for stage %d of pp=%d, vpp=%d, %d micro-batches (normalize the plan first)", r, p.PP, v, m)
	}
	fwd := chunkOrder(p.PP, v, m, false)
	bwd := chunkOrder(p.PP, v, m, true)
	warm := p.warmup(r, m)
	out := make([]Pass, 0, 2*len(fwd))
	out = append(out, fwd[:warm]...)
	for i := 0; warm+i < len(fwd); i++ {
		out = append(out, fwd[warm+i], bwd[i])
	}
	return append(out, bwd[len(fwd)-warm:]...), nil
}

// warmup is the number of chunk forwards rank r runs before its first
// backward minus the one that immediately precedes it (see inFlight).
func (p Plan) warmup(r, m int) int {
	v := p.VPP
	switch {
	case p.PP == 1:
		return 0
	case p.Schedule == GPipe:
		return m * v
	case v > 1:
		return min((p.PP-r-1)*2+(v-1)*p.PP, m*v)
	}
	return min(p.PP-r-1, m)
}

// chunkOrder lists the m*v chunk passes of one direction: micro-batches
// in groups of pp, each group through chunks 0..v-1 (forward) or
// v-1..0 (backward). A last group smaller than pp keeps the same order.
func chunkOrder(pp, v, m int, backward bool) []Pass {
	out := make([]Pass, 0, m*v)
	for g := 0; g < m; g += pp {
		for c := range v {
			if backward {
				c = v - 1 - c
			}
			for j := g; j < min(g+pp, m); j++ {
				out = append(out, Pass{Backward: backward, MicroBatch: j, Chunk: c})
			}
		}
	}
	return out
}

// TimelinePoint is the memory of one GPU during one pass.
type TimelinePoint struct {
	Pass Pass `json:"pass"`
	// Start and End are in units of one micro-batch's forward pass
	// through the whole stage; idle time waiting for other stages is left
	// out, since memory does not change while a rank waits.
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Activations is what the pass holds at its largest: a forward at its
	// end (its own activations saved), a backward at its start (before it
	// frees its micro-batch's activations, with the recompute working set).
	Activations hardware.Bytes `json:"activations_bytes"`
	Total       hardware.Bytes `json:"total_bytes"`
	// After is the memory when the pass ends: a forward's Total, a
	// backward's Total less what it freed.
	After hardware.Bytes `json:"after_bytes"`
}

// Timeline is the memory of one GPU of one pipeline stage over one
// training step.
type Timeline struct {
	Stage int `json:"stage"`
	// Static is what the GPU holds for the whole step: model states,
	// ZeRO-3 buffers, fixed overheads and their fragmentation.
	Static hardware.Bytes  `json:"static_bytes"`
	Points []TimelinePoint `json:"points"`
	// Peak is the index of the first point with the largest Total (the
	// start of a backward rather than the end of the forward before it).
	Peak int `json:"peak"`
}

// StepTimeline derives the memory of stage s over one step of plan p
// (normalized) from the stage's StageMemory and its schedule
// (StageSchedule). Model states and overheads are held throughout; each
// forward saves its micro-batch's activations, which its backward frees:
// the stage's transformer layers save LayerActivations/InFlight per
// micro-batch (a 1/v share per chunk), the first chunk of the first stage
// the embedding output, the last chunk of the last stage the logits
// (Korthikanti et al. 2022, arXiv:2205.05198, section 4.2.3: the first
// stage's peak is at the start of its first backward, with pp micro-batches
// in flight under 1F1B). A backward under full recompute also holds one
// layer's recomputed activations. Allocator fragmentation is the stage's
// fraction of the tensors allocated at each moment.
//
// A backward pass takes twice the time of a forward and three times under
// full recompute, which reruns the forward first (2 + N/layers under the
// block method, which reruns N of the stage's layers; Narayanan et al. 2021,
// appendix on floating-point operations: the backward pass computes
// gradients with respect to both inputs and weights, twice the forward's
// FLOPs; recomputation adds one forward).
//
// For a schedule whose in-flight counts are those of StageMemory (every
// schedule without interleaving, and interleaving without an embedding
// dropout mask) the largest Total equals s.Total.
func StepTimeline(p Plan, s StageMemory) (Timeline, error) {
	passes, err := p.StageSchedule(s.Stage)
	if err != nil {
		return Timeline{}, err
	}
	if !(s.InFlight > 0) {
		return Timeline{}, fmt.Errorf("costmodel: stage %d holds %g micro-batches in flight; want a StageMemory from Evaluator.Stage", s.Stage, s.InFlight)
	}
	m, v := p.MicroBatches(), float64(p.VPP)
	held := timelineHeld(p, s, m)
	frag := fragmentationShare(s)
	tl := Timeline{Stage: s.Stage, Static: staticMemory(s, frag)}
	backward := 2.0
	if p.Recompute == Full {
		backward = 3
		if p.partialRecompute() && s.Layers > 0 {
			backward = 2 + float64(s.RecomputedLayers)/float64(s.Layers)
		}
	}
	var acts, t float64
	for _, ps := range passes {
		pt := TimelinePoint{Pass: ps, Start: t}
		own := held(ps)
		if ps.Backward {
			pt.Activations = hardware.Bytes(acts) + s.RecomputeWorkingSet + s.LossBackward
			acts -= own
			t += backward / v
		} else {
			acts += own
			pt.Activations = hardware.Bytes(acts)
			t += 1 / v
		}
		pt.End = t
		pt.Total = tl.Static + pt.Activations*hardware.Bytes(1+frag)
		pt.After = tl.Static + hardware.Bytes(acts*(1+frag))
		tl.Points = append(tl.Points, pt)
		tl.Peak = laterPeak(tl.Points, tl.Peak)
	}
	return tl, nil
}

// laterPeak moves the peak index to the newest point when it is higher,
// or when it is the backward right after a forward at the same height:
// the forward reaches that height at its end, which is the backward's
// start, and the peak is reported as the start of the backward.
func laterPeak(pts []TimelinePoint, peak int) int {
	i := len(pts) - 1
	switch cur, best := pts[i], pts[peak]; {
	case cur.Total > best.Total:
		return i
	case cur.Total == best.Total && i == peak+1 && cur.Pass.Backward && !best.Pass.Backward:
		return i
	}
	return peak
}

// timelineHeld returns the activations one chunk pass of stage s saves.
func timelineHeld(p Plan, s StageMemory, m int) func(Pass) float64 {
	perChunk := float64(s.LayerActivations) / s.InFlight / float64(p.VPP)
	var embed, output float64
	if s.EmbeddingActs > 0 {
		embed = float64(s.EmbeddingActs) / p.embeddingInFlight(m)
	}
	if s.OutputActs > 0 {
		output = float64(s.OutputActs) / p.outputInFlight(m)
	}
	return func(ps Pass) float64 {
		b := perChunk
		if ps.Chunk == 0 {
			b += embed
		}
		if ps.Chunk == p.VPP-1 {
			b += output
		}
		return b
	}
}

// staticMemory is what stage s holds for the whole step: model states,
// ZeRO-3 buffers, fixed overheads and the fragmentation of those tensors.
func staticMemory(s StageMemory, frag float64) hardware.Bytes {
	held := s.ModelStates() + s.buffers()
	return held + s.CUDAContext + s.NCCLBuffers + s.Workspace + hardware.Bytes(frag)*held
}

// fragmentationShare is the stage's fragmentation as a fraction of the
// tensors it allocates at its peak.
func fragmentationShare(s StageMemory) float64 {
	tensors := s.ModelStates() + s.buffers() + s.Activations()
	if tensors <= 0 {
		return 0
	}
	return float64(s.Fragmentation / tensors)
}
