package costmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// hfConfig holds the config.json keys the planner reads. Pointers tell a
// missing key from a zero value. Unknown keys are ignored: config files
// carry many training and tokenizer settings that do not change the cost.
type hfConfig struct {
	ModelType string `json:"model_type"`

	HiddenSize        *int     `json:"hidden_size"`
	NumHiddenLayers   *int     `json:"num_hidden_layers"`
	NumAttentionHeads *int     `json:"num_attention_heads"`
	NumKeyValueHeads  *int     `json:"num_key_value_heads"`
	HeadDim           *int     `json:"head_dim"`
	IntermediateSize  *int     `json:"intermediate_size"`
	VocabSize         *int     `json:"vocab_size"`
	MaxPosition       *int     `json:"max_position_embeddings"`
	TieWordEmbeddings *bool    `json:"tie_word_embeddings"`
	AttentionBias     *bool    `json:"attention_bias"`
	MLPBias           *bool    `json:"mlp_bias"`
	HiddenAct         string   `json:"hidden_act"`
	HiddenActivation  string   `json:"hidden_activation"`
	SlidingPattern    *int     `json:"sliding_window_pattern"`
	SlidingWindow     *int     `json:"sliding_window"`
	UseSlidingWindow  *bool    `json:"use_sliding_window"`
	MaxWindowLayers   *int     `json:"max_window_layers"`
	LayerTypes        []string `json:"layer_types"`

	// GPT-2 names.
	NEmbd      *int     `json:"n_embd"`
	NLayer     *int     `json:"n_layer"`
	NHead      *int     `json:"n_head"`
	NInner     *int     `json:"n_inner"`
	NPositions *int     `json:"n_positions"`
	ResidPdrop *float64 `json:"resid_pdrop"`

	// Mixture of experts (Mixtral, Qwen3-MoE, DeepSeek-V3, gpt-oss).
	NumLocalExperts   *int   `json:"num_local_experts"`
	NumExperts        *int   `json:"num_experts"`
	NRoutedExperts    *int   `json:"n_routed_experts"`
	NumExpertsPerTok  *int   `json:"num_experts_per_tok"`
	MoEIntermediate   *int   `json:"moe_intermediate_size"`
	NSharedExperts    *int   `json:"n_shared_experts"`
	FirstKDense       *int   `json:"first_k_dense_replace"`
	MoELayerFreq      *int   `json:"moe_layer_freq"`
	DecoderSparseStep *int   `json:"decoder_sparse_step"`
	MLPOnlyLayers     []int  `json:"mlp_only_layers"`
	TopKMethod        string `json:"topk_method"`

	// Llama 4 (text_config) and Qwen2-MoE.
	TextConfig          json.RawMessage `json:"text_config"`
	InterleaveMoEStep   *int            `json:"interleave_moe_layer_step"`
	IntermediateSizeMLP *int            `json:"intermediate_size_mlp"`
	AttentionChunkSize  *int            `json:"attention_chunk_size"`
	SharedExpertFFN     *int            `json:"shared_expert_intermediate_size"`
	QuantizationConfig  *hfQuantization `json:"quantization_config"`

	// Multi-head latent attention (DeepSeek-V3).
	QLoRARank     *int `json:"q_lora_rank"`
	KVLoRARank    *int `json:"kv_lora_rank"`
	QKNopeHeadDim *int `json:"qk_nope_head_dim"`
	QKRopeHeadDim *int `json:"qk_rope_head_dim"`
	VHeadDim      *int `json:"v_head_dim"`
}

// HFModelTypes lists the Hugging Face model_type values ParseHFConfig reads.
var HFModelTypes = []string{"deepseek_v2", "deepseek_v3", "gemma2", "gemma3_text", "gpt2", "gpt_oss", "llama", "llama4", "mistral", "mixtral", "olmo2", "phi3", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}

// ParseHFConfig reads a Hugging Face config.json. name labels the model
// (for example the file's base name). A missing field, an unsupported
// model_type or a dimension out of range is an error that names it.
func ParseHFConfig(r io.Reader, name string) (*Model, error) {
	var c hfConfig
	b, err := hardware.ReadAll(r, "config.json "+name)
	if err != nil {
		return nil, fmt.Errorf("costmodel: %w", err)
	}
	if err := hardware.DecodeOne(b, &c, false); err != nil {
		return nil, fmt.Errorf("costmodel: config.json %s: %w", name, err)
	}
	if !slices.Contains(HFModelTypes, c.ModelType) {
		return nil, fmt.Errorf("costmodel: config.json %s: unsupported model_type %q (supported: %s)",
			name, c.ModelType, strings.Join(HFModelTypes, ", "))
	}
	if err := c.textConfig(name); err != nil {
		return nil, err
	}
	r2 := &reader{c: &c, name: name}
	var m *Model
	if c.ModelType == "gpt2" {
		m = r2.gpt2()
	} else {
		m = r2.decoder()
	}
	if r2.err != nil {
		return nil, r2.err
	}
	m.Name, m.Family = name, c.ModelType
	m.Checkpoint, m.CheckpointNote = c.QuantizationConfig.checkpoint()
	m.Source = "Hugging Face config.json (" + name + ")"
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// reader collects the first error while fields are read, so the mapping
// functions stay flat.
type reader struct {
	c    *hfConfig
	name string
	err  error
}

// req returns *v, recording an error naming key when it is missing.
func (r *reader) req(key string, v *int) int {
	if v == nil {
		if r.err == nil {
			r.err = fmt.Errorf("costmodel: config.json %s (model_type %s): missing field %q", r.name, r.c.ModelType, key)
		}
		return 0
	}
	return *v
}

func opt(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

func optBool(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

// gpt2 maps GPT-2's config: LayerNorm, GeLU MLP of n_inner (4h by
// default), biases, learned positions, tied embeddings, dropout.
func (r *reader) gpt2() *Model {
	c := r.c
	h, heads := r.req("n_embd", c.NEmbd), r.req("n_head", c.NHead)
	m := &Model{
		Layers: r.req("n_layer", c.NLayer), Hidden: h, Heads: heads, KVHeads: heads,
		FFN: opt(c.NInner, 4*h), Vocab: r.req("vocab_size", c.VocabSize), MaxSeq: r.req("n_positions", c.NPositions),
		Norm: LayerNorm, MLP: GeLU, Bias: true, LearnedPositions: true,
		TiedEmbeddings: optBool(c.TieWordEmbeddings, true),
		Dropout:        c.ResidPdrop == nil || *c.ResidPdrop > 0,
	}
	if heads > 0 {
		m.HeadDim = h / heads
	}
	return m
}

// decoder maps the Llama family and its relatives: RMSNorm, SwiGLU, RoPE,
// grouped-query attention, no dropout, plus each type's extras.
func (r *reader) decoder() *Model {
	c := r.c
	h, heads := r.req("hidden_size", c.HiddenSize), r.req("num_attention_heads", c.NumAttentionHeads)
	m := &Model{
		Layers: r.req("num_hidden_layers", c.NumHiddenLayers), Hidden: h, Heads: heads,
		KVHeads: opt(c.NumKeyValueHeads, heads), Vocab: r.req("vocab_size", c.VocabSize),
		MaxSeq: r.req("max_position_embeddings", c.MaxPosition), Norm: RMSNorm, MLP: SwiGLU,
		TiedEmbeddings: optBool(c.TieWordEmbeddings, false),
	}
	if heads > 0 {
		m.HeadDim = opt(c.HeadDim, h/heads)
	}
	if isGemma(c.ModelType) {
		r.gemma(m)
	} else if c.HiddenAct != "" && c.HiddenAct != "silu" && c.HiddenAct != "swiglu" {
		r.fail("hidden_act %q (only silu gated MLPs are modelled for %s)", c.HiddenAct, c.ModelType)
	}
	switch c.ModelType {
	case "mixtral", "qwen3_moe", "gpt_oss":
		m.FFN = opt(c.IntermediateSize, opt(c.MoEIntermediate, 1))
	case "llama4":
		m.FFN = r.req("intermediate_size_mlp", c.IntermediateSizeMLP)
	default:
		m.FFN = r.req("intermediate_size", c.IntermediateSize)
	}
	m.QKVBias = c.ModelType == "qwen2" || c.ModelType == "qwen2_moe" || optBool(c.AttentionBias, false) && c.ModelType != "gpt_oss"
	m.QKNorm = m.QKNorm || c.ModelType == "qwen3" || c.ModelType == "qwen3_moe" || c.ModelType == "olmo2"
	// OLMo 2 normalizes after attention and after the MLP instead of
	// before (post_attention_layernorm, post_feedforward_layernorm): two
	// norms per layer all the same, and q_norm/k_norm over the whole
	// projections (transformers models/olmo2/modeling_olmo2.py).
	m.QKNormFull = c.ModelType == "olmo2"
	if optBool(c.MLPBias, false) {
		r.fail("mlp_bias true is not modelled")
	}
	r.sliding(m)
	r.moe(m)
	r.mla(m)
	r.llama4(m)
	if c.ModelType == "gpt_oss" && m.MoE != nil {
		m.Bias, m.AttnSinks = true, true // attention biases on q, k, v and o; one sink per head
		m.MoE.RouterBias, m.MoE.ExpertBias = true, true
	}
	return m
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("costmodel: config.json %s (model_type %s): "+format, append([]any{r.name, r.c.ModelType}, args...)...)
	}
}

// sliding reads the sliding-window attention layers as Hugging Face
// transformers' modeling code applies them for each model_type: a config
// that lists layer_types (gpt-oss, newer configs of every family) names
// each layer; Gemma 2 windows the even layers and Gemma 3 all but every
// sliding_window_pattern-th (6 by default); Mistral, Mixtral and Phi-3
// window every layer (Phi3Attention passes sliding_window); Qwen2, Qwen3 and
// Qwen3-MoE only with use_sliding_window true (false by default), on the
// layers from max_window_layers on; Llama and DeepSeek-V3 ignore the key.
func (r *reader) sliding(m *Model) {
	c := r.c
	if c.SlidingWindow == nil || *c.SlidingWindow <= 0 {
		return
	}
	switch {
	case len(c.LayerTypes) > 0:
		for _, t := range c.LayerTypes {
			if t == "sliding_attention" {
				m.SlidingLayers++
			}
		}
	case c.ModelType == "gemma2" || c.ModelType == "gemma3_text":
		m.SlidingLayers = gemmaSlidingLayers(c.ModelType, m.Layers, opt(c.SlidingPattern, 6))
	case c.ModelType == "mistral" || c.ModelType == "mixtral" || c.ModelType == "phi3":
		m.SlidingLayers = m.Layers
	case c.ModelType == "qwen2" || c.ModelType == "qwen3" || c.ModelType == "qwen3_moe":
		if optBool(c.UseSlidingWindow, false) {
			m.SlidingLayers = m.Layers - min(max(opt(c.MaxWindowLayers, m.Layers), 0), m.Layers)
		}
	}
	if m.SlidingLayers > 0 {
		m.SlidingWindow = *c.SlidingWindow
	}
}

func (r *reader) moe(m *Model) {
	c := r.c
	experts := c.NumLocalExperts
	if experts == nil {
		experts = c.NumExperts
	}
	if experts == nil {
		experts = c.NRoutedExperts
	}
	if experts == nil {
		if moeTypes[c.ModelType] {
			r.req("num_local_experts", nil)
		}
		return
	}
	e := &MoE{Experts: *experts, TopK: r.req("num_experts_per_tok", c.NumExpertsPerTok)}
	switch c.ModelType {
	case "qwen3_moe", "deepseek_v3", "deepseek_v2", "qwen2_moe":
		e.ExpertFFN = r.req("moe_intermediate_size", c.MoEIntermediate)
	default:
		e.ExpertFFN = r.req("intermediate_size", c.IntermediateSize)
	}
	if s := opt(c.NSharedExperts, 0); s > 0 {
		e.Shared, e.SharedFFN = s, e.ExpertFFN
	}
	e.DenseLayers = opt(c.FirstKDense, 0)
	e.RouterBias = c.TopKMethod == "noaux_tc"
	r.sharedAndStep(e)
	m.MoE = e
}

func (r *reader) mla(m *Model) {
	c := r.c
	if c.KVLoRARank == nil {
		if c.ModelType == "deepseek_v3" || c.ModelType == "deepseek_v2" {
			r.req("kv_lora_rank", nil)
		}
		return
	}
	m.MLA = &MLA{
		QLoRARank: opt(c.QLoRARank, 0), KVLoRARank: *c.KVLoRARank,
		QKNopeDim: r.req("qk_nope_head_dim", c.QKNopeHeadDim),
		QKRopeDim: r.req("qk_rope_head_dim", c.QKRopeHeadDim),
		VDim:      r.req("v_head_dim", c.VHeadDim),
	}
	m.HeadDim = m.MLA.QKNopeDim + m.MLA.QKRopeDim
	m.KVHeads = m.Heads
}
