package costmodel

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestParamsMatchPublished checks the parameter count of every embedded
// config.json against the totals in hfconfigs/SOURCES.md, which were
// checked there against the publishers' figures (Llama 3.1 8.03B, 70.55B,
// 405.85B; DeepSeek-V3 671B total, 37B active; Mixtral 46.7B/12.9B; ...).
// TestLlama4Params checks Llama 4's text models against Meta's rounded
// totals (ai.meta.com/blog/llama-4-multimodal-intelligence: Scout 17B
// active of 109B, Maverick 17B active of 400B), whose total for Scout
// includes the vision encoder (about 0.8B): the text model counts
// 107,769,861,120 and 400,711,848,960, 17.17B and 17.18B active.
func TestLlama4Params(t *testing.T) {
	tests := []struct {
		name             string
		total, active    float64
		totalTol, actTol float64
	}{
		{"llama4-scout", 109e9, 17e9, 0.015, 0.015},
		{"llama4-maverick", 400e9, 17e9, 0.002, 0.015},
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		p := m.Params()
		if !within(p.Total, tt.total, tt.totalTol) || !within(p.Active, tt.active, tt.actTol) {
			t.Errorf("%s: %.4gB total, %.4gB active; published %.0fB, %.0fB", tt.name, p.Total/1e9, p.Active/1e9, tt.total/1e9, tt.active/1e9)
		}
	}
	mav, _ := LookupModel("llama4-maverick")
	if mav.MoELayers() != 24 || mav.MoE.Shared != 1 {
		t.Errorf("maverick: %d MoE layers, %d shared experts; want 24 (every second layer) and 1", mav.MoELayers(), mav.MoE.Shared)
	}
}

func TestParamsMatchPublished(t *testing.T) {
	tests := []struct {
		name          string
		total, active float64
	}{
		{"llama3.1-8b", 8_030_261_248, 8_030_261_248},
		{"llama3.1-70b", 70_553_706_496, 70_553_706_496},
		{"llama3.1-405b", 405_853_388_800, 405_853_388_800},
		{"deepseek-v3", 671_026_419_200, 37_552_297_472},
		{"mixtral-8x7b", 46_702_792_704, 12_879_925_248},
		{"qwen2.5-72b", 72_706_203_648, 72_706_203_648},
		{"qwen3-8b", 8_190_735_360, 8_190_735_360},
		{"qwen3-32b", 32_762_123_264, 32_762_123_264},
		{"qwen3-30b-a3b", 30_532_122_624, 3_353_032_704},
		{"qwen3-235b-a22b", 235_093_634_560, 22_190_763_520},
		{"gpt-oss-120b", 116_829_156_672, 5_711_982_912},
		{"gpt-oss-20b", 20_914_757_184, 4_187_440_704},
		{"gpt2-xl", 1_557_611_200, 1_557_611_200},
		{"llama4-scout", 107_769_861_120, 17_172_894_720},
		{"llama4-maverick", 400_711_848_960, 17_184_691_200},
		// Mistral 7B: 7,241,732,096 (hfconfigs/SOURCES.md, from litgpt's dims).
		{"mistral-7b", 7_241_732_096, 7_241_732_096},
		// Gemma 2 9B: 917,504,000 embedding + 8,324,201,984 non-embedding
		// parameters (Gemma Team 2024, arXiv:2408.00118, Table 1): tied
		// embeddings 256000 x 3584 and 42 layers of four norms, q/k/v/o at
		// head_dim 256 and a gated MLP of 14336.
		{"gemma2-9b", 9_241_705_984, 9_241_705_984},
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		p := m.Params()
		if p.Total != tt.total || p.Active != tt.active {
			t.Errorf("%s: params %.0f total, %.0f active; want %.0f, %.0f", tt.name, p.Total, p.Active, tt.total, tt.active)
		}
	}
}

// TestMegatronParams checks the GPT shapes against the sizes Megatron's
// papers print: Narayanan et al. 2021 Table 1 (529.6B, 1008.0B) and
// Table 2 (174.6B for the GPT-3 shape), to the 0.1B they are rounded to.
func TestMegatronParams(t *testing.T) {
	tests := []struct {
		name string
		want float64
	}{{"megatron-530b", 529.6e9}, {"megatron-1t", 1008.0e9}, {"gpt3-175b", 174.6e9}}
	for _, tt := range tests {
		m, _ := LookupModel(tt.name)
		if got := m.Params().Total; math.Abs(got-tt.want) > 0.05e9 {
			t.Errorf("%s: %.2fB params, want %.1fB", tt.name, got/1e9, tt.want/1e9)
		}
	}
}

// TestEmbeddedConfigsParse parses every embedded config.json directly,
// so a file added to hfconfigs/ is checked even before it is in the catalog.
func TestEmbeddedConfigsParse(t *testing.T) {
	files, _ := filepath.Glob("hfconfigs/*.json")
	if len(files) < 13 {
		t.Fatalf("found %d embedded configs, want at least 13", len(files))
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseHFConfig(r, filepath.Base(f))
		r.Close()
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if p := m.Params(); p.Active > p.Total || p.Total <= 0 {
			t.Errorf("%s: params %+v", f, p)
		}
	}
}

func TestTPShardsParams(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	p1 := m.layerParams(1, false)
	p8 := m.layerParams(8, false)
	norms := 2 * float64(m.Hidden)
	// Everything but the two RMSNorm weights splits eight ways.
	if got, want := p8, (p1-norms)/8+norms; math.Abs(got-want) > 0.5 {
		t.Errorf("tp=8 layer params %.0f, want %.0f", got, want)
	}
}
