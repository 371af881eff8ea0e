package costmodel

import "fmt"

// Norm is the normalization layer of a transformer block.
type Norm int

const (
	// LayerNorm has a weight and a bias of width h (GPT-2/3, BLOOM).
	LayerNorm Norm = iota
	// RMSNorm has a weight of width h only (Llama, Mistral, Qwen, DeepSeek).
	RMSNorm
)

// String names the norm.
func (n Norm) String() string {
	if n == RMSNorm {
		return "rmsnorm"
	}
	return "layernorm"
}

// MarshalText writes the norm's name.
func (n Norm) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// MLPKind is the feed-forward block of a transformer layer.
type MLPKind int

const (
	// GeLU is the two-matrix MLP h -> f -> h with a GeLU between.
	GeLU MLPKind = iota
	// SwiGLU is the gated three-matrix MLP: down(silu(gate(x)) * up(x))
	// (Shazeer 2020, "GLU Variants Improve Transformer").
	SwiGLU
)

// String names the MLP.
func (k MLPKind) String() string {
	if k == SwiGLU {
		return "swiglu"
	}
	return "gelu"
}

// MarshalText writes the MLP's name.
func (k MLPKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Model is a decoder-only transformer, described by the dimensions that
// determine its parameters, FLOPs, activations and KV cache.
type Model struct {
	Name string `json:"name"`
	// Family is the Hugging Face model_type or "gpt" for Megatron's GPT.
	Family  string `json:"family"`
	Layers  int    `json:"layers"`
	Hidden  int    `json:"hidden"`
	Heads   int    `json:"heads"`
	KVHeads int    `json:"kv_heads"`
	HeadDim int    `json:"head_dim"`
	// FFN is the dense MLP's inner width (per gate for SwiGLU).
	FFN    int `json:"ffn"`
	Vocab  int `json:"vocab"`
	MaxSeq int `json:"max_seq"`

	Norm Norm    `json:"norm"`
	MLP  MLPKind `json:"mlp"`
	// Bias: every linear layer has a bias (GPT-2/3). QKVBias: only the
	// query, key and value projections do (Qwen2).
	Bias    bool `json:"bias"`
	QKVBias bool `json:"qkv_bias"`
	// QKNorm: RMSNorm on queries and keys per head (Qwen3, Gemma 3).
	QKNorm bool `json:"qk_norm"`
	// PostNorms: a second norm after attention and after the MLP of each
	// layer, four per layer (Gemma 2 and 3's post_attention_layernorm and
	// post_feedforward_layernorm beside the two pre-norms).
	PostNorms bool `json:"post_norms,omitempty"`
	// QKNormFull: the query and key norms span the whole projection
	// (heads x head_dim and kv_heads x head_dim weights, OLMo 2's q_norm
	// and k_norm) rather than one head_dim weight shared by the heads.
	QKNormFull bool `json:"qk_norm_full,omitempty"`
	// AttnSinks: one learned sink logit per head (gpt-oss).
	AttnSinks bool `json:"attn_sinks"`
	// Dropout: training applies dropout after attention, the MLP and the
	// embedding, and inside attention, storing 1-byte masks (GPT-3,
	// Megatron). Llama-style models train without dropout.
	Dropout bool `json:"dropout"`
	// LearnedPositions: a MaxSeq x Hidden position table (GPT-2/3).
	LearnedPositions bool `json:"learned_positions"`
	// TiedEmbeddings: the output layer reuses the input embedding.
	TiedEmbeddings bool `json:"tied_embeddings"`
	// SlidingWindow is the attention window of the SlidingLayers layers
	// that use one (0: none). Those layers keep at most that many tokens
	// of KV cache.
	SlidingWindow int `json:"sliding_window,omitempty"`
	SlidingLayers int `json:"sliding_layers,omitempty"`

	MoE *MoE `json:"moe,omitempty"`
	MLA *MLA `json:"mla,omitempty"`

	// Checkpoint is the format the published checkpoint stores its
	// weights in, the serving default for --weights-dtype: config.json's
	// quantization_config (hfQuantization.checkpoint; gpt-oss mxfp4,
	// DeepSeek-V3 fp8 with 128 x 128 blocks), bf16 without one.
	// CheckpointNote says what it was read from, blank for bf16.
	Checkpoint     DType  `json:"checkpoint_dtype"`
	CheckpointNote string `json:"checkpoint_note,omitempty"`

	// Source says where the dimensions come from.
	Source string `json:"source"`
}

// MoE describes mixture-of-experts MLP layers.
type MoE struct {
	// Experts routed per MoE layer, and TopK of them per token.
	Experts int `json:"experts"`
	TopK    int `json:"top_k"`
	// ExpertFFN is each routed expert's inner width.
	ExpertFFN int `json:"expert_ffn"`
	// Shared experts run on every token, each of width SharedFFN.
	Shared    int `json:"shared"`
	SharedFFN int `json:"shared_ffn"`
	// SharedGate: a sigmoid gate (a 1 x h linear) scales the shared
	// experts' output (Qwen2-MoE's shared_expert_gate).
	SharedGate bool `json:"shared_gate,omitempty"`
	// DenseLayers is the number of leading layers with a dense MLP of
	// width Model.FFN instead (DeepSeek-V3's first_k_dense_replace).
	DenseLayers int `json:"dense_layers"`
	// Step interleaves MoE and dense layers after those: layer i (from
	// 0) is an MoE layer when (i+1) is a multiple of Step (Llama 4
	// Maverick's interleave_moe_layer_step 2: every second layer); 0 or
	// 1 makes every layer after DenseLayers an MoE layer.
	Step int `json:"moe_step,omitempty"`
	// RouterBias: the router has a per-expert bias (DeepSeek-V3's
	// e_score_correction_bias, gpt-oss's router bias).
	RouterBias bool `json:"router_bias"`
	// ExpertBias: expert linears have biases (gpt-oss).
	ExpertBias bool `json:"expert_bias"`
}

// MLA describes multi-head latent attention (DeepSeek-V2/V3): queries and
// keys/values pass through low-rank latents, and the KV cache stores only
// the compressed latent plus the decoupled RoPE key.
type MLA struct {
	QLoRARank  int `json:"q_lora_rank"` // 0: queries are projected directly
	KVLoRARank int `json:"kv_lora_rank"`
	QKNopeDim  int `json:"qk_nope_head_dim"`
	QKRopeDim  int `json:"qk_rope_head_dim"`
	VDim       int `json:"v_head_dim"`
}

// MoELayers is the number of layers whose MLP is a mixture of experts.
func (m *Model) MoELayers() int {
	if m.MoE == nil {
		return 0
	}
	return m.kinds().moe(0, m.Layers)
}

// maxDim bounds every dimension: far above any model built, low enough
// that products of dimensions stay exact in float64 and int64.
const maxDim = 1 << 24

// Validate checks that the dimensions describe a buildable model.
func (m *Model) Validate() error {
	dims := []struct {
		name string
		v    int
	}{{"layers", m.Layers}, {"hidden", m.Hidden}, {"heads", m.Heads}, {"kv_heads", m.KVHeads},
		{"head_dim", m.HeadDim}, {"ffn", m.FFN}, {"vocab", m.Vocab}, {"max_seq", m.MaxSeq}}
	for _, d := range dims {
		if d.v < 1 || d.v > maxDim {
			return fmt.Errorf("costmodel: model %s: %s = %d is not in [1, %d]", m.Name, d.name, d.v, maxDim)
		}
	}
	if m.Heads%m.KVHeads != 0 {
		return fmt.Errorf("costmodel: model %s: %d attention heads are not a multiple of %d KV heads", m.Name, m.Heads, m.KVHeads)
	}
	if m.SlidingWindow < 0 || m.SlidingLayers < 0 || m.SlidingLayers > m.Layers {
		return fmt.Errorf("costmodel: model %s: sliding window %d on %d layers: the window must not be negative and the layers must be in [0, %d]",
			m.Name, m.SlidingWindow, m.SlidingLayers, m.Layers)
	}
	if err := m.MoE.validate(m); err != nil {
		return err
	}
	return m.MLA.validate(m)
}

func (e *MoE) validate(m *Model) error {
	if e == nil {
		return nil
	}
	switch {
	case e.Experts < 1 || e.Experts > maxDim:
		return fmt.Errorf("costmodel: model %s: %d experts is not in [1, %d]", m.Name, e.Experts, maxDim)
	case e.TopK < 1 || e.TopK > e.Experts:
		return fmt.Errorf("costmodel: model %s: top-k %d is not in [1, %d experts]", m.Name, e.TopK, e.Experts)
	case e.ExpertFFN < 1 || e.ExpertFFN > maxDim:
		return fmt.Errorf("costmodel: model %s: expert FFN %d is not in [1, %d]", m.Name, e.ExpertFFN, maxDim)
	case e.Shared < 0 || e.Shared > maxDim || (e.Shared > 0 && (e.SharedFFN < 1 || e.SharedFFN > maxDim)):
		return fmt.Errorf("costmodel: model %s: %d shared experts of width %d is invalid", m.Name, e.Shared, e.SharedFFN)
	case e.DenseLayers < 0 || e.DenseLayers > m.Layers:
		return fmt.Errorf("costmodel: model %s: %d dense layers is not in [0, %d]", m.Name, e.DenseLayers, m.Layers)
	case e.Step < 0 || e.Step > m.Layers:
		return fmt.Errorf("costmodel: model %s: MoE step %d is not in [0, %d layers]", m.Name, e.Step, m.Layers)
	}
	return nil
}

func (a *MLA) validate(m *Model) error {
	if a == nil {
		return nil
	}
	for _, d := range []int{a.KVLoRARank, a.QKNopeDim, a.QKRopeDim, a.VDim} {
		if d < 1 || d > maxDim {
			return fmt.Errorf("costmodel: model %s: MLA dimensions %+v must be in [1, %d]", m.Name, *a, maxDim)
		}
	}
	if a.QLoRARank < 0 || a.QLoRARank > maxDim {
		return fmt.Errorf("costmodel: model %s: MLA q_lora_rank = %d is not in [0, %d] (0: queries projected directly)", m.Name, a.QLoRARank, maxDim)
	}
	return nil
}
