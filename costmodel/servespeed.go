package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// ServeSpeed is the speed of one serving layout, from first principles:
// a roofline (Williams, Waterman and Patterson 2009, "Roofline: an
// insightful visual performance model") per pipeline stage, plus the
// tensor-parallel all-reduces and the pipeline hand-offs.
//
// Decode is memory-bound: each step reads every GPU's weight shard and
// the live KV cache of its batch once (Pope et al. 2022, "Efficiently
// Scaling Transformer Inference", sec. 2.1), so a step takes at least
// bytes / HBM bandwidth. Prefill is compute-bound: the prompt's FLOPs over
// the tensor-core peak. Both take the larger of the two times, per stage.
type ServeSpeed struct {
	// Batch is the sequences one replica decodes together.
	Batch int `json:"batch"`
	// Decode is one step of the whole batch at the full context (the
	// slowest step of a conversation); TimePerOutputToken is its time.
	Decode             ServeStep        `json:"decode"`
	TimePerOutputToken hardware.Seconds `json:"time_per_output_token_s"`
	// TokensPerSecondPerUser is 1/TimePerOutputToken; TokensPerSecond
	// counts every user on every replica.
	TokensPerSecondPerUser float64 `json:"tokens_per_s_per_user"`
	TokensPerSecond        float64 `json:"tokens_per_s"`
	// Prefill is the forward pass of one prompt of Context tokens alone;
	// TimeToFirstToken is its time.
	Prefill          ServeStep        `json:"prefill"`
	TimeToFirstToken hardware.Seconds `json:"time_to_first_token_s"`
	// Peak is the dense tensor-core peak the GEMMs run at (fp8 for fp8
	// weights on GPUs with fp8 tensor cores, bf16 otherwise) and
	// OpsPerByte its ratio to the HBM bandwidth (datasheet figures).
	Peak       hardware.FLOPRate `json:"peak_flop_per_s"`
	OpsPerByte float64           `json:"ops_per_byte"`
	// ComputeBoundBatch is the batch per replica at which a decode step's
	// compute time reaches its memory time at the context, with the
	// assumed efficiencies; 0 when it never does (the KV cache read grows
	// as fast as the compute). ComputeBoundBatchShort ignores the KV cache
	// and attention: the classic weights-only crossover of short contexts.
	ComputeBoundBatch      float64 `json:"compute_bound_batch"`
	ComputeBoundBatchShort float64 `json:"compute_bound_batch_short"`
}

// ServeStep is one forward step of a serving replica, summed over its pipeline
// stages (a token crosses them one after another).
type ServeStep struct {
	// Memory and Compute are the roofline's two times; each stage counts
	// the larger of its own two in Total.
	Memory  hardware.Seconds `json:"memory_s"`
	Compute hardware.Seconds `json:"compute_s"`
	// TensorParallel is the all-reduces (and the logits all-gather);
	// Pipeline the hand-offs between stages.
	TensorParallel hardware.Seconds `json:"tensor_parallel_s"`
	Pipeline       hardware.Seconds `json:"pipeline_s"`
	Total          hardware.Seconds `json:"total_s"`
	// BytesPerGPU and FLOPsPerGPU are what the most loaded GPU reads and
	// computes in the step.
	BytesPerGPU hardware.Bytes `json:"bytes_per_gpu"`
	FLOPsPerGPU hardware.FLOPs `json:"flops_per_gpu"`
	// MemoryBound says which roofline side dominates the step.
	MemoryBound bool `json:"memory_bound"`
}

// activationBytes is the width of an activation value sent between GPUs:
// engines keep activations in bf16 whatever the weight format.
const activationBytes = 2

// EstimateServeSpeed computes the speed of plan s for model m on cluster c.
func EstimateServeSpeed(m *Model, c hardware.Cluster, s ServePlan, a Assumptions) (ServeSpeed, error) {
	if err := validateServe(m, c, s, a); err != nil {
		return ServeSpeed{}, err
	}
	if s.splitExperts() {
		return ServeSpeed{}, fmt.Errorf("costmodel: attention dp=%d and ep=%d are priced under a load (EstimateServeLoad, planner serve), not by the single-step speed estimate", s.dp(), s.ep())
	}
	layout, err := (Plan{TP: s.TP, PP: s.PP, VPP: 1}).balanceLayers(m.Layers)
	if err != nil {
		return ServeSpeed{}, err
	}
	e := speedModel{m: m, c: c, s: s, a: a, layout: layout, peak: weightPeak(c.GPU, s.Weights)}
	v := ServeSpeed{Batch: s.UsersPerReplica(), Peak: e.peak, OpsPerByte: float64(e.peak) / float64(c.GPU.MemBandwidth)}
	v.Decode = e.step(v.Batch, s.Context, false)
	v.TimePerOutputToken = v.Decode.Total
	v.TokensPerSecondPerUser = 1 / float64(v.Decode.Total)
	v.TokensPerSecond = float64(s.Users) / float64(v.Decode.Total)
	v.Prefill = e.step(1, s.Context, true)
	v.TimeToFirstToken = v.Prefill.Total
	v.ComputeBoundBatch, v.ComputeBoundBatchShort = e.crossover()
	return v, nil
}

// weightBytesPerParam is the stored bytes of one weight, its block or
// group scales included.
func weightBytesPerParam(d DType) float64 {
	switch d {
	case DTypeInt4:
		return d.Bytes() + int4ScaleBytesPerParam
	case DTypeNVFP4, DTypeMXFP4:
		return d.Bytes() + fp4ScaleBytesPerParam(d)
	case DTypeFP8Block:
		return d.Bytes() + fp8BlockScaleBytesPerParam
	}
	return d.Bytes()
}

// speedModel holds what every stage's time needs. nccl is NCCL's
// measured all-reduce for the tensor-parallel messages past the custom
// kernel's size (tpLink), looked up once: the load model sets it
// (hasNCCL), while the isolated step keeps the custom kernel's formula
// at every size, with which its FLOP share was fitted on TensorRT-LLM
// v0.5's first-token latencies.
type speedModel struct {
	m       *Model
	c       hardware.Cluster
	s       ServePlan
	a       Assumptions
	layout  Plan
	peak    hardware.FLOPRate
	nccl    scaleUpFit
	hasNCCL bool
}

// step is one forward step of batch sequences: decode (one new token each
// at context n) or prefill (n prompt tokens of one sequence).
func (e speedModel) step(batch, n int, prefill bool) ServeStep {
	var t ServeStep
	tokens := batch
	if prefill {
		tokens = n
	}
	for st := range e.s.PP {
		g := serveStage(e.m, e.s, e.layout, st)
		bytes, flops := e.stageWork(g, batch, n, prefill)
		mem := hardware.Seconds(bytes / (float64(e.c.GPU.MemBandwidth) * e.a.ServeHBMEfficiency))
		comp := hardware.Seconds(flops / (float64(e.peak) * e.a.ServeFLOPEfficiency))
		comm := e.tensorParallel(g, tokens, prefill)
		t.Memory += mem
		t.Compute += comp
		t.TensorParallel += comm
		t.Total += max(mem, comp) + comm
		if hardware.Bytes(bytes) > t.BytesPerGPU {
			t.BytesPerGPU, t.FLOPsPerGPU = hardware.Bytes(bytes), hardware.FLOPs(flops)
		}
		if st > 0 {
			t.Pipeline += serveSend(float64(tokens*e.m.Hidden*activationBytes), e.hop(st))
		}
	}
	t.Total += t.Pipeline
	t.MemoryBound = t.Memory >= t.Compute
	return t
}

// stageWork is the bytes one GPU of stage g reads from HBM and the FLOPs
// it computes in a step: the weights it uses, the KV cache it reads
// (decode) or writes (prefill), and its share of the model's FLOPs.
func (e speedModel) stageWork(g servingStage, batch, n int, prefill bool) (bytes, flops float64) {
	m, s := e.m, e.s
	tokens := batch
	if prefill {
		tokens = n
	}
	bytes = e.weightsRead(g, tokens) * weightBytesPerParam(s.Weights)
	bytes += float64(batch) * m.kvPerSequence(n, g.layers, g.sliding, s.TP, s.KV)
	logits := 2 * float64(m.Vocab) * float64(m.Hidden)
	var body float64
	if prefill {
		body = m.prefillFLOPs(n) - logits
	} else {
		body = float64(batch) * (m.decodeFLOPsPerToken(n) - logits)
	}
	flops = body * float64(g.layers) / float64(m.Layers) / float64(s.TP)
	if g.last {
		flops += float64(batch) * logits / float64(s.TP)
	}
	return bytes, flops
}

// weightsRead is the parameters one GPU of stage g streams from HBM for
// a step of tokens tokens. Embedding lookups read only the tokens' rows,
// so the embedding table counts only as the output projection it is
// when tied; each MoE layer reads the experts its tokens are routed to:
// E x (1 - (1 - k/E)^tokens) of E under uniform, independent routing
// (the state load-balancing losses push routers toward; Fedus et al.
// 2022, Switch Transformer, sec. 2.2), and with the experts split over
// ep ranks, those of the busiest rank, which the layer waits for
// (busiestRankExperts).
func (e speedModel) weightsRead(g servingStage, tokens int) float64 {
	m, t := e.m, e.s.TP
	p := m.layersParams(t, g.layers-g.moe, g.moe)
	if g.moe > 0 {
		k, n := float64(m.MoE.TopK), float64(m.MoE.Experts)
		if e.s.splitExperts() {
			// Every dp rank's tokens reach the experts, each active with
			// probability 1 - (1 - k/E)^(tokens x dp); the busiest of
			// the ep ranks' E/ep sets its GPUs' read.
			local := m.MoE.Experts / e.s.ep()
			active := busiestRankExperts(local, 1-math.Pow(1-k/n, float64(tokens)*float64(e.s.dp())), e.s.ep())
			p += m.splitExpertsParams(e.s, g.moe) - float64(g.moe)*(1-active/float64(local))*m.routedParams(e.s)
		} else {
			idle := n * math.Pow(1-k/n, float64(tokens))
			p -= float64(g.moe) * idle * m.expertParams(t)
		}
	}
	if g.last {
		p += m.finalNormParams() + float64(m.Vocab)*float64(m.Hidden)/float64(t)
	}
	return p
}

// tensorParallel is the communication of stage g over its TP group: two
// all-reduces per layer, after attention and after the MLP (Shoeybi et
// al. 2019, Megatron-LM, sec. 3), one for the vocabulary-parallel
// embedding on the first stage, and the all-gather of the logits of the
// tokens sampled on the last.
func (e speedModel) tensorParallel(g servingStage, tokens int, prefill bool) hardware.Seconds {
	t := e.s.TP
	if t <= 1 {
		return 0
	}
	l := e.tpLink()
	msg := float64(tokens * e.m.Hidden * activationBytes)
	n := 2 * g.layers
	if e.s.dp() > 1 {
		n -= g.moe // the MoE layers' outputs come back by the all-to-all (expertAllToAll)
	}
	if g.first {
		n++
	}
	time := hardware.Seconds(n) * serveAllReduce(t, msg, l)
	if g.last {
		sampled := tokens
		if prefill {
			sampled = 1
		}
		time += serveAllGather(t, float64(sampled*e.m.Vocab*activationBytes), l)
	}
	return time
}

// tpLink is the link of the tensor-parallel collectives: the network
// when the group spans nodes, else NVLink, with NCCL's measured
// all-reduce for the messages past the custom kernel's (hasNCCL).
func (e speedModel) tpLink() link {
	if e.s.TP > e.c.GPUsPerNode {
		return scaleOutLink(e.c, e.a)
	}
	l := scaleUpLink(e.c, e.a)
	l.nccl, l.hasNCCL = e.nccl, e.hasNCCL
	return l
}

// hop is the link between stage st-1 and stage st of a replica: the
// network when the two stages sit on different nodes (replicas start on
// node boundaries when they span nodes), NVLink otherwise.
func (e speedModel) hop(st int) link {
	per := e.c.GPUsPerNode
	w := e.s.stageGPUs()
	if (st-1)*w/per != st*w/per || w > per {
		return scaleOutLink(e.c, e.a)
	}
	return scaleUpLink(e.c, e.a)
}

// crossover solves for the decode batch b at which compute time equals
// memory time: b F / P = (W + b K) / M, so b = (W/M) / (F/P - K/M), with
// W the weight bytes one GPU of each stage reads per step (every expert,
// summed over the stages a token crosses), K the KV bytes of one sequence
// at the context on those GPUs, F the FLOPs of one token per GPU, P and
// M the achievable peak and bandwidth of one GPU. short drops K and the
// attention FLOPs: b = W P / (F M), where the weights' 2 FLOPs per
// parameter and token outweigh their bytes.
func (e speedModel) crossover() (atContext, short float64) {
	m, s := e.m, e.s
	var w, k float64
	for st := range s.PP {
		g := serveStage(m, s, e.layout, st)
		w += e.weightsRead(g, math.MaxInt32) * weightBytesPerParam(s.Weights)
		k += m.kvPerSequence(s.Context, g.layers, g.sliding, s.TP, s.KV)
	}
	P := float64(e.peak) * e.a.ServeFLOPEfficiency
	M := float64(e.c.GPU.MemBandwidth) * e.a.ServeHBMEfficiency
	t := float64(s.TP)
	f, f0 := m.decodeFLOPsPerToken(s.Context)/t, m.decodeFLOPsPerToken(0)/t
	short = w / M / (f0 / P)
	if d := f/P - k/M; d > 0 {
		atContext = w / M / d
	}
	return atContext, short
}
