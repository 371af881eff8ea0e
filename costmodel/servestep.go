package costmodel

import (
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// BatchStep is one step of a continuously batched replica (Yu et al.
// 2022, "Orca: A Distributed Serving System for Transformer-Based
// Generative Models", OSDI, sec. 3: iteration-level scheduling): every
// decoding sequence adds one token, and a prefill chunk may join.
type BatchStep struct {
	// Linear is the weight GEMMs: max(weight bytes / HBM + LinearLaunch,
	// FLOPs / peak) per stage, the tokens of decode and prefill sharing
	// one weight read. LinearLaunch is LinearCalls x GEMMLaunch, the
	// calls' fixed GPU time, part of Linear where the weight read bounds
	// the stage.
	Linear       hardware.Seconds `json:"linear_s"`
	LinearCalls  int              `json:"linear_calls"`
	LinearLaunch hardware.Seconds `json:"linear_launch_s"`
	// DecodeAttention reads every decoding sequence's KV cache once.
	DecodeAttention hardware.Seconds `json:"decode_attention_s"`
	// PrefillAttention is the chunk's attention FLOPs.
	PrefillAttention hardware.Seconds `json:"prefill_attention_s"`
	// Communication is the tensor-parallel all-reduces and the pipeline
	// hand-offs; Overhead the engine's fixed per-step cost (and kernel
	// launches without CUDA graphs).
	Communication hardware.Seconds `json:"communication_s"`
	Overhead      hardware.Seconds `json:"overhead_s"`
	Total         hardware.Seconds `json:"total_s"`
}

// batchModel prices the steps of one replica under an engine.
type batchModel struct {
	speedModel
	eng Engine
	// launch is the GPU's weight GEMM launch (GEMMLaunch).
	launch hardware.Seconds
}

// newBatchModel checks the plan and builds the step model of s.
func newBatchModel(m *Model, c hardware.Cluster, s ServePlan, eng Engine, a Assumptions) (batchModel, error) {
	if err := validateServe(m, c, s, a); err != nil {
		return batchModel{}, err
	}
	if err := eng.Validate(); err != nil {
		return batchModel{}, err
	}
	layout, err := (Plan{TP: s.TP, PP: s.PP, VPP: 1}).balanceLayers(m.Layers)
	if err != nil {
		return batchModel{}, err
	}
	e := speedModel{m: m, c: c, s: s, a: a, layout: layout, peak: weightPeak(c.GPU, s.Weights)}
	e.nccl, e.hasNCCL = ncclAllReduce(c.GPU)
	return batchModel{speedModel: e, eng: eng, launch: GEMMLaunch(c.GPU)}, nil
}

// step is one engine step: batch decoding sequences whose caches hold
// ctx tokens on average, plus chunk prefill tokens of a prompt of prompt
// tokens. A chunk at offset o attends to o + chunk/2 keys per token on
// average; over the chunks of a prompt the offsets average to
// (prompt - chunk)/2, so a chunk costs chunk x prompt/2 keys per layer.
func (b batchModel) step(batch, ctx float64, chunk, prompt int) BatchStep {
	var t BatchStep
	tokens := batch + float64(chunk)
	M := float64(b.c.GPU.MemBandwidth) * b.a.ServeHBMEfficiency
	gemm, moe, attention := b.a.computeShares(b.s.Weights)
	P, Pmoe := float64(b.peak)*gemm, float64(b.peak)*moe
	if b.m.MoE != nil {
		Pmoe *= expertWidthShare(b.m.MoE.ExpertFFN, b.s.expertTP())
	}
	P16 := float64(b.c.GPU.PeakBF16) * b.c.GPU.Sustained() * attention
	perKey := b.m.attentionFLOPsPerKey()
	for st := range b.s.PP {
		g := serveStage(b.m, b.s, b.layout, st)
		share := float64(g.layers) / float64(b.m.Layers) / float64(b.s.TP)
		wBytes := b.weightsRead(g, int(math.Ceil(tokens))) * weightBytesPerParam(b.s.Weights)
		all, routed := b.linearFLOPs(g, batch, chunk), b.routedFLOPs(g, batch, chunk)
		calls := b.m.gemmCalls(g)
		launch := hardware.Seconds(calls) * b.launch
		t.LinearCalls += calls
		t.LinearLaunch += launch
		t.Linear += max(hardware.Seconds(wBytes/M)+launch, hardware.Seconds((all-routed)/P+routed/Pmoe))
		kv := batch * b.kvBytes(g, ctx) * b.eng.kvReadScale(b.s.KV)
		t.DecodeAttention += hardware.Seconds(max(kv/M, batch*perKey*b.m.attendedKeys(int(ctx))*share/P16))
		t.PrefillAttention += hardware.Seconds(float64(chunk) * perKey * b.m.attendedKeys(prompt/2) * share / P16)
		t.Communication += b.tensorParallel(g, int(math.Ceil(tokens)), false) + b.expertAllToAll(g.moe, tokens)
		if st > 0 {
			t.Communication += serveSend(tokens*float64(b.m.Hidden*activationBytes), b.hop(st))
		}
	}
	t.Overhead = b.eng.StepOverhead
	if !b.eng.CUDAGraphs || (b.eng.DecodeOnlyGraphs && chunk > 0) {
		t.Overhead += KernelLaunch * hardware.Seconds(kernelsPerLayer*b.m.Layers/b.s.PP)
	}
	t.Total = t.Linear + t.DecodeAttention + t.PrefillAttention + t.Communication + t.Overhead
	return t
}

// linearFLOPs is one GPU's weight FLOPs in a step of stage g: 2 per
// active parameter and token of the stage's layers, and the logits of
// the sampled tokens (every decoding sequence, and the prompt's last
// token) on the last stage.
func (b batchModel) linearFLOPs(g servingStage, batch float64, chunk int) float64 {
	m := b.m
	logits := 2 * float64(m.Vocab) * float64(m.Hidden)
	perToken := (m.decodeFLOPsPerToken(0) - logits) * float64(g.layers) / float64(m.Layers) / float64(b.s.TP)
	f := (batch + float64(chunk)) * perToken
	if g.last {
		f += (batch + float64(min(chunk, 1))) * logits / float64(b.s.TP)
	}
	return f
}

// routedFLOPs is the part of linearFLOPs that the routed experts of
// stage g's MoE layers take, split over the GPUs as linearFLOPs splits
// every layer: their share of a token's layer FLOPs.
func (b batchModel) routedFLOPs(g servingStage, batch float64, chunk int) float64 {
	m := b.m
	if g.moe == 0 {
		return 0
	}
	logits := 2 * float64(m.Vocab) * float64(m.Hidden)
	perToken := (m.decodeFLOPsPerToken(0) - logits) * float64(g.layers) / float64(m.Layers) / float64(b.s.TP)
	share := m.routedFLOPsPerToken() * float64(g.moe) / ((m.decodeFLOPsPerToken(0) - logits) * float64(g.layers) / float64(m.Layers))
	return (batch + float64(chunk)) * perToken * min(share, 1)
}

// kvBytes is the KV cache of one sequence of n tokens on one GPU of
// stage g, interpolated between whole tokens.
func (b batchModel) kvBytes(g servingStage, n float64) float64 {
	lo := math.Floor(n)
	a := b.m.kvPerSequence(int(lo), g.layers, g.sliding, b.s.TP, b.s.KV)
	z := b.m.kvPerSequence(int(lo)+1, g.layers, g.sliding, b.s.TP, b.s.KV)
	return a + (z-a)*(n-lo)
}
