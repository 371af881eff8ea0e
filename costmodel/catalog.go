package costmodel

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gpu-planner/planner/internal/names"
)

// hfConfigs are verbatim Hugging Face config.json files; their provenance
// is in hfconfigs/SOURCES.md.
//
//go:embed hfconfigs/*.json
var hfConfigs embed.FS

// fromHF names the catalog models that are read from an embedded
// config.json, so the catalog and the parser cannot disagree.
var fromHF = map[string]string{
	"llama3.1-8b":     "meta-llama__Llama-3.1-8B.json",
	"llama3.1-70b":    "meta-llama__Llama-3.1-70B.json",
	"llama3.1-405b":   "meta-llama__Llama-3.1-405B.json",
	"mixtral-8x7b":    "mistralai__Mixtral-8x7B-v0.1.json",
	"qwen2.5-72b":     "Qwen__Qwen2.5-72B.json",
	"qwen3-8b":        "Qwen__Qwen3-8B.json",
	"qwen3-32b":       "Qwen__Qwen3-32B.json",
	"qwen3-30b-a3b":   "Qwen__Qwen3-30B-A3B.json",
	"qwen3-235b-a22b": "Qwen__Qwen3-235B-A22B.json",
	"deepseek-v3":     "deepseek-ai__DeepSeek-V3.json",
	"gpt-oss-20b":     "openai__gpt-oss-20b.json",
	"gpt-oss-120b":    "openai__gpt-oss-120b.json",
	"gpt2-xl":         "openai-community__gpt2-xl.json",
	"llama4-scout":    "meta-llama__Llama-4-Scout-17B-16E-Instruct.json",
	"llama4-maverick": "meta-llama__Llama-4-Maverick-17B-128E-Instruct.json",
}

// modelAliases maps other spellings to catalog names. Llama 3 and 3.1
// share weight shapes; the 3.1 configs (128K context) stand for both.
var modelAliases = map[string]string{
	"llama3-8b":         "llama3.1-8b",
	"llama3-70b":        "llama3.1-70b",
	"llama3-405b":       "llama3.1-405b",
	"llama-3-8b":        "llama3.1-8b",
	"llama-3-70b":       "llama3.1-70b",
	"llama-3.1-8b":      "llama3.1-8b",
	"llama-3.1-70b":     "llama3.1-70b",
	"llama-3.1-405b":    "llama3.1-405b",
	"gpt3":              "gpt3-175b",
	"gpt-3-175b":        "gpt3-175b",
	"mixtral-8x7b-v0.1": "mixtral-8x7b",
	"mistral-7b-v0.1":   "mistral-7b",
	"deepseek-v3-671b":  "deepseek-v3",
	"llama-4-scout":     "llama4-scout",
	"llama-4-maverick":  "llama4-maverick",
}

// megatronGPT is the GPT shape of Megatron-LM's papers: LayerNorm, GeLU
// MLP of 4h, biases, dropout, learned positions, tied embeddings.
func megatronGPT(name, source string, layers, hidden, heads, vocab, seq int) *Model {
	return &Model{
		Name: name, Family: "gpt", Layers: layers, Hidden: hidden, Heads: heads, KVHeads: heads,
		HeadDim: hidden / heads, FFN: 4 * hidden, Vocab: vocab, MaxSeq: seq,
		Norm: LayerNorm, MLP: GeLU, Bias: true, Dropout: true, LearnedPositions: true, TiedEmbeddings: true,
		Source: source,
	}
}

const srcKorthikanti = "Korthikanti et al. 2022, arXiv:2205.05198, Table 3 (a, h, L; s = 2048, v = 51200)"

// builtin are the catalog models without a verbatim config.json.
var builtin = []*Model{
	megatronGPT("gpt3-175b", "Brown et al. 2020, arXiv:2005.14165, Table 2.1 (96 layers, d 12288, 96 heads, n_ctx 2048); BPE vocabulary 50257",
		96, 12288, 96, 50257, 2048),
	megatronGPT("megatron-22b", srcKorthikanti, 48, 6144, 64, 51200, 2048),
	megatronGPT("megatron-175b", srcKorthikanti, 96, 12288, 96, 51200, 2048),
	megatronGPT("megatron-530b", srcKorthikanti, 105, 20480, 128, 51200, 2048),
	megatronGPT("megatron-1t", srcKorthikanti, 128, 25600, 160, 51200, 2048),
	{
		Name: "mistral-7b", Family: "mistral", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
		FFN: 14336, Vocab: 32000, MaxSeq: 32768, Norm: RMSNorm, MLP: SwiGLU, SlidingWindow: 4096, SlidingLayers: 32,
		Source: "Mistral-7B-v0.1 config (litgpt litgpt/config.py 'Mistral-7B-{}v0.1'; mlc-llm preset 'mistral_7b'): 7,241,732,096 parameters",
	},
	{
		Name: "gemma2-9b", Family: "gemma2", Layers: 42, Hidden: 3584, Heads: 16, KVHeads: 8, HeadDim: 256,
		FFN: 14336, Vocab: 256000, MaxSeq: 8192, Norm: RMSNorm, MLP: SwiGLU, PostNorms: true, TiedEmbeddings: true,
		SlidingWindow: 4096, SlidingLayers: 21,
		Source: "google/gemma-2-9b config (Gemma2Config as transformers prints it, Retruth/deontic nlp_models/gemma2/README.md; Gemma Team 2024, arXiv:2408.00118, Table 1: 917,504,000 embedding + 8,324,201,984 other parameters)",
	},
}

var loadCatalog = sync.OnceValues(func() (map[string]*Model, error) {
	out := map[string]*Model{}
	for _, m := range builtin {
		out[m.Name] = m
	}
	for name, file := range fromHF {
		data, err := hfConfigs.ReadFile("hfconfigs/" + file)
		if err != nil {
			return nil, err
		}
		m, err := ParseHFConfig(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		m.Source = "Hugging Face config.json, " + file + " (provenance: costmodel/hfconfigs/SOURCES.md)"
		out[name] = m
	}
	return out, nil
})

// Models returns the catalog sorted by name. Each call returns fresh
// copies, so callers may modify them.
func Models() []*Model {
	cat := catalog()
	out := make([]*Model, 0, len(cat))
	for _, k := range slices.Sorted(maps.Keys(cat)) {
		out = append(out, cat[k].clone())
	}
	return out
}

// ModelNames returns the catalog names and aliases, sorted.
func ModelNames() []string {
	all := slices.Collect(maps.Keys(catalog()))
	all = append(all, slices.Collect(maps.Keys(modelAliases))...)
	slices.Sort(all)
	return all
}

func catalog() map[string]*Model {
	cat, err := loadCatalog()
	if err != nil {
		panic("costmodel: embedded catalog is broken: " + err.Error()) // a build defect, caught by tests
	}
	return cat
}

// LookupModel finds a catalog model by name or alias, ignoring case. An
// unknown name gives an error that lists the closest names.
func LookupModel(name string) (*Model, error) {
	key := names.Normalize(name)
	for alias, target := range modelAliases {
		if names.Normalize(alias) == key {
			key = names.Normalize(target)
		}
	}
	for k, m := range catalog() {
		if names.Normalize(k) == key {
			return m.clone(), nil
		}
	}
	hint := ""
	if c := names.Closest(name, ModelNames(), 4); len(c) > 0 {
		hint = "; closest: " + strings.Join(c, ", ")
	}
	return nil, fmt.Errorf("costmodel: unknown model %q (run `planner models` for the catalog, or give a config.json path%s)", name, hint)
}

func (m *Model) clone() *Model {
	c := *m
	if m.MoE != nil {
		e := *m.MoE
		c.MoE = &e
	}
	if m.MLA != nil {
		a := *m.MLA
		c.MLA = &a
	}
	return &c
}
