package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// ServePlan is a serving layout and load: TP x PP GPUs per model replica,
// Replicas copies, and Users concurrent sequences of Context tokens each
// (prompt plus generated tokens), spread evenly over the replicas.
type ServePlan struct {
	TP       int   `json:"tp"`
	PP       int   `json:"pp"`
	Replicas int   `json:"replicas"`
	Context  int   `json:"context"`
	Users    int   `json:"users"`
	Weights  DType `json:"weights_dtype"`
	KV       DType `json:"kv_dtype"`
	// BlockTokens is the size of a paged KV-cache block in tokens
	// (vLLM's block_size, 16 by default): a sequence holds whole blocks,
	// so the last one is partly empty. 0 sizes the cache to exactly
	// Context tokens per sequence.
	BlockTokens int `json:"kv_block_tokens"`
	// DP is the attention data-parallel ranks of a replica and EP the
	// expert-parallel ranks of its MoE layers (servedp.go; 0 or 1: none):
	// a stage spans TP x DP GPUs.
	DP int `json:"attention_dp,omitempty"`
	EP int `json:"ep,omitempty"`
}

// GPUs is the GPU count of the layout: tp x pp x dp x replicas.
func (s ServePlan) GPUs() int { return s.TP * s.PP * s.dp() * s.Replicas }

// UsersPerReplica is the sequences one replica (one dp rank of it with
// attention dp) holds (rounded up).
func (s ServePlan) UsersPerReplica() int { return (s.Users + s.Ranks() - 1) / s.Ranks() }

// ServeReport is the serving memory of one layout.
type ServeReport struct {
	Model       string           `json:"model"`
	Params      Params           `json:"params"`
	Cluster     hardware.Cluster `json:"cluster"`
	Plan        ServePlan        `json:"plan"`
	Assumptions Assumptions      `json:"assumptions"`
	// KVPerToken is the KV cache of one token over all layers, unsharded.
	KVPerToken hardware.Bytes `json:"kv_per_token_bytes"`
	// KVPerSequence is one sequence of Context tokens over all layers
	// (sliding-window layers keep at most their window).
	KVPerSequence hardware.Bytes `json:"kv_per_sequence_bytes"`
	// Memory is the inventory of the most loaded GPU with the plan's users.
	Memory Inventory `json:"memory"`
	// KVCapacityTokens is how many tokens of KV cache fit in the budget
	// left after weights and overheads, over all GPUs; MaxUsers how many
	// sequences of Context tokens that is.
	KVCapacityTokens float64 `json:"kv_capacity_tokens"`
	MaxUsers         int     `json:"max_users"`
	// WeightsFraction is the share of the GPU's memory the weights take.
	WeightsFraction float64 `json:"weights_fraction"`
	// Paging is the waste of the partly filled last KV block.
	Paging PagedKV `json:"paging"`
	// LongestContext is the longest sequence, in tokens, of which Users
	// fit in the budget (0 when the weights leave no room).
	LongestContext int      `json:"longest_context"`
	Notes          []string `json:"notes,omitempty"`
}

// kvPerTokenLayer is one layer's KV cache per token on one TP rank:
// 2 x kv_heads x head_dim values (keys and values, Pope et al. 2022,
// "Efficiently Scaling Transformer Inference", sec. 2), or for MLA the
// compressed latent plus the decoupled RoPE key, kv_lora_rank +
// qk_rope_head_dim = 576 values for DeepSeek-V3 (DeepSeek-V2 paper,
// arXiv:2405.04434, Table 1), which every TP rank keeps whole.
func (m *Model) kvPerTokenLayer(t int, d DType) float64 {
	if m.MLA != nil {
		return float64(m.MLA.KVLoRARank+m.MLA.QKRopeDim) * d.Bytes()
	}
	return 2 * m.kvPerRank(t) * float64(m.HeadDim) * d.Bytes()
}

// KVPerToken is the KV cache bytes of one token over all layers:
// 2 x layers x kv_heads x head_dim x bytes per value.
func (m *Model) KVPerToken(d DType) hardware.Bytes {
	return hardware.Bytes(float64(m.Layers) * m.kvPerTokenLayer(1, d))
}

// kvPerSequence is the KV cache of one sequence of n tokens over
// `layers` layers on one TP rank, of which `sliding` use a window.
func (m *Model) kvPerSequence(n, layers, sliding, t int, d DType) float64 {
	windowed := n
	if m.SlidingWindow > 0 {
		windowed = min(n, m.SlidingWindow)
	}
	return m.kvPerTokenLayer(t, d) * (float64(layers-sliding)*float64(n) + float64(sliding)*float64(windowed))
}

// EstimateServe computes the per-GPU serving memory and the KV capacity
// of plan s for model m on cluster c.
func EstimateServe(m *Model, c hardware.Cluster, s ServePlan, a Assumptions) (*ServeReport, error) {
	if err := validateServe(m, c, s, a); err != nil {
		return nil, err
	}
	layout, err := (Plan{TP: s.TP, PP: s.PP, VPP: 1}).balanceLayers(m.Layers)
	if err != nil {
		return nil, err
	}
	r := &ServeReport{Model: m.Name, Params: m.Params(), Cluster: c, Plan: s, Assumptions: a,
		KVPerToken: m.KVPerToken(s.KV)}
	r.KVPerSequence = hardware.Bytes(m.kvPerSequence(s.Context, m.Layers, m.SlidingLayers, 1, s.KV))
	r.Paging = m.PagedKV(s.Context, s.BlockTokens, s.KV)
	budget := hardware.Bytes(a.HBMFraction) * c.GPU.HBM
	capacity := math.Inf(1)
	r.LongestContext = maxSeq
	for st := range s.PP {
		lines, perSeq := serveStageLines(m, s, a, layout, st)
		inv := newInventory(lines, c.GPU.HBM, a.HBMFraction)
		if st == 0 || inv.Total > r.Memory.Total {
			r.Memory = inv
		}
		free := budget - (inv.Total - inv.Group(GroupKV))
		capacity = min(capacity, float64(free)/perSeq)
		r.LongestContext = min(r.LongestContext, m.longestContext(s, serveStage(m, s, layout, st), float64(free)))
	}
	r.MaxUsers = int(max(math.Floor(capacity), 0)) * s.Ranks()
	r.KVCapacityTokens = max(capacity, 0) * float64(s.Context) * float64(s.Ranks())
	r.WeightsFraction = float64(r.Memory.Group(GroupStates)) / float64(c.GPU.HBM)
	r.Notes = serveNotes(m, s, r)
	return r, nil
}

func validateServe(m *Model, c hardware.Cluster, s ServePlan, a Assumptions) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if err := a.Validate(); err != nil {
		return err
	}
	for _, d := range []struct {
		name   string
		v, max int
	}{{"tp", s.TP, hardware.MaxGPUs}, {"pp", s.PP, hardware.MaxGPUs}, {"replicas", s.Replicas, hardware.MaxGPUs},
		{"context", s.Context, maxSeq}, {"users", s.Users, 1 << 30}, {"kv block tokens", max(s.BlockTokens, 1), maxBlockTokens}} {
		if d.v < 1 || d.v > d.max {
			return fmt.Errorf("costmodel: %s=%d is not in [1, %d]", d.name, d.v, d.max)
		}
	}
	if err := validateExperts(m, s); err != nil {
		return err
	}
	if s.GPUs() != c.GPUs() {
		if s.dp() > 1 {
			return fmt.Errorf("costmodel: tp*pp*dp*replicas = %d*%d*%d*%d = %d, but the cluster has %d GPUs", s.TP, s.PP, s.dp(), s.Replicas, s.GPUs(), c.GPUs())
		}
		return fmt.Errorf("costmodel: tp*pp*replicas = %d*%d*%d = %d, but the cluster has %d GPUs", s.TP, s.PP, s.Replicas, s.GPUs(), c.GPUs())
	}
	if s.Weights > DTypeFP8Block || s.Weights < 0 || s.KV > DTypeFP32 || s.KV < 0 || s.KV == DTypeInt4 {
		return fmt.Errorf("costmodel: weights dtype %v / KV dtype %v is not supported (weights: bf16, fp8, fp8-block, int4, fp32, nvfp4, mxfp4; KV: bf16, fp8, fp32)", s.Weights, s.KV)
	}
	return (Plan{TP: s.TP}).checkHeads(m)
}

// maxBlockTokens bounds the KV block size: far above any engine's (vLLM
// allows up to 256), low enough to keep the arithmetic exact.
const maxBlockTokens = 1 << 16

// int4ScaleBytesPerParam is the fp16 scale of every 128 int4 weights
// (GPTQ/AWQ group size 128; Frantar et al. 2023, arXiv:2210.17323).
const int4ScaleBytesPerParam = 2.0 / 128

// servingStage is what one pipeline stage of a serving replica holds.
type servingStage struct {
	index, layers, moe, sliding int
	// params on one GPU: the stage's layers, plus the embedding on the
	// first stage and the final norm and output layer on the last.
	params float64
	first  bool
	last   bool
}

// serveStage describes stage st of layout (the plan after balanceLayers).
func serveStage(m *Model, s ServePlan, layout Plan, st int) servingStage {
	layers, moe := layout.stageLayers(m.kinds(), st)
	g := servingStage{index: st, layers: layers, moe: moe, first: st == 0, last: st == s.PP-1,
		params:  m.layersParams(s.TP, layers-moe, moe) + m.splitExpertsParams(s, moe),
		sliding: int(math.Round(float64(m.SlidingLayers) * float64(layers) / float64(m.Layers)))}
	if g.first {
		g.params += m.embeddingParams(s.TP)
	}
	if g.last {
		g.params += m.finalNormParams() + m.outputParams(s.TP, s.PP > 1)
	}
	return g
}

// serveStageLines itemizes one pipeline stage of a serving replica and
// returns the KV bytes of one sequence on it, whole blocks included.
func serveStageLines(m *Model, s ServePlan, a Assumptions, layout Plan, st int) ([]Line, float64) {
	g := serveStage(m, s, layout, st)
	layers, params := g.layers, g.params
	perSeq := m.kvPerSequence(s.Context, layers, g.sliding, s.TP, s.KV)
	paged := m.kvPerSequenceBlocks(s.Context, s.BlockTokens, layers, g.sliding, s.TP, s.KV)
	users := s.UsersPerReplica()
	lines := []Line{
		{Name: "weights (" + s.Weights.String() + ")", Group: GroupStates, Bytes: hardware.Bytes(params * s.Weights.Bytes()),
			Formula: fmt.Sprintf("%s x %s params/GPU (stage %d of pp=%d, %s)", perParam(s.Weights.Bytes()), FormatCount(params), st, s.PP, s.stageLayout()),
			Source:  "parameters from the model's dimensions"},
	}
	if s.Weights.IsFP4() || s.Weights == DTypeFP8Block {
		lines = append(lines, blockScalesLine(s.Weights, params))
	}
	if s.Weights == DTypeInt4 {
		lines = append(lines, Line{Name: "int4 group scales", Group: GroupStates, Bytes: hardware.Bytes(params * int4ScaleBytesPerParam),
			Formula: "one fp16 scale per 128 weights (GPTQ/AWQ group size 128)", Source: "Frantar et al. 2023, GPTQ (arXiv:2210.17323)"})
	}
	lines = append(lines,
		Line{Name: "KV cache (" + s.KV.String() + ")", Group: GroupKV, Bytes: hardware.Bytes(perSeq * float64(users)),
			Formula: fmt.Sprintf("%s x %d tokens x %v per token on this GPU (%d layers)",
				hardware.Plural(users, "sequence", "sequences"), s.Context, hardware.Bytes(m.kvPerTokenLayer(s.TP, s.KV)*float64(layers)), layers),
			Source: "2 x layers x kv_heads x head_dim x bytes (Pope et al. 2022)"},
		Line{Name: "KV block padding", Group: GroupKV, Bytes: hardware.Bytes((paged - perSeq) * float64(users)),
			Formula: fmt.Sprintf("%s x the empty part of the last %d-token block (%d tokens at context %d)",
				hardware.Plural(users, "sequence", "sequences"), s.BlockTokens, paddingTokens(s.Context, s.BlockTokens), s.Context),
			Source: srcPaged},
		Line{Name: "activation workspace", Group: GroupOverheads, Bytes: a.ServeWorkspace, Formula: "fixed per process", Source: srcAssumed},
		Line{Name: "CUDA context", Group: GroupOverheads, Bytes: a.CUDAContext, Formula: "fixed per process", Source: srcAssumed},
	)
	if groups := boolIndex(s.stageGPUs() > 1) + boolIndex(s.PP > 1); groups > 0 {
		bytes := a.ncclComm(group{size: s.stageGPUs(), local: s.stageGPUs()}) + a.ncclComm(group{size: s.PP, local: 1})
		lines = append(lines, Line{Name: "NCCL buffers", Group: GroupOverheads, Bytes: bytes,
			Formula: a.ncclFormula(bytes, groups), Source: a.ncclSource()})
	}
	return lines, paged
}

func serveNotes(m *Model, s ServePlan, r *ServeReport) []string {
	var out []string
	if s.Context > m.MaxSeq {
		out = append(out, fmt.Sprintf("context %d exceeds the model's max_position_embeddings %d", s.Context, m.MaxSeq))
	}
	switch fixed := r.Memory.Total - r.Memory.Group(GroupKV); {
	case fixed > r.Memory.Budget:
		out = append(out, fmt.Sprintf("weights and overheads alone (%v per GPU) exceed the %v budget", fixed, r.Memory.Budget))
	case r.MaxUsers < s.Users:
		out = append(out, fmt.Sprintf("weights fit, users do not: %d users of %d tokens need more KV cache than the %d sequences that fit",
			s.Users, s.Context, r.MaxUsers))
	}
	switch {
	case m.MoE != nil && s.splitExperts():
		out = append(out, fmt.Sprintf("the routed experts are split over ep=%d ranks (%d per GPU group); attention is replicated over dp=%d ranks, each with its own requests and KV cache",
			s.ep(), m.MoE.Experts/s.ep(), s.dp()))
	case m.MoE != nil:
		out = append(out, "all experts are held on every replica (no expert parallelism)")
	}
	if m.MLA != nil && s.TP > 1 {
		out = append(out, "MLA's latent KV cache is replicated on every tensor-parallel rank")
	}
	return out
}
