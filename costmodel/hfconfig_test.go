package costmodel

import (
	"os"
	"strings"
	"testing"
)

func TestHFConfigErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"unknown type", `{"model_type": "bert", "hidden_size": 768}`, `unsupported model_type "bert"`},
		{"missing layers", `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096}`, `missing field "num_hidden_layers"`},
		{"missing gpt2 field", `{"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "vocab_size": 50257, "n_positions": 1024}`, `missing field "n_head"`},
		{"missing experts per token", `{"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 4096, "num_local_experts": 8}`, `missing field "num_experts_per_tok"`},
		{"wrong type", `{"model_type": "llama", "hidden_size": "big"}`, `hidden_size`},
		{"not json", `model_type: llama`, `invalid character`},
		{"negative dimension", `{"model_type": "llama", "hidden_size": -4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096}`, `hidden = -4096`},
		{"heads not multiple of kv", `{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "num_key_value_heads": 5, "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096}`, `not a multiple of 5 KV heads`},
		{"gelu llama", `{"model_type": "llama", "hidden_act": "gelu", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096}`, `hidden_act "gelu"`},
	}
	for _, tt := range tests {
		_, err := ParseHFConfig(strings.NewReader(tt.json), "test")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// TestHFConfigMatchesCatalog: a user passing the config.json path gets the
// same model as the catalog name.
func TestHFConfigMatchesCatalog(t *testing.T) {
	f, err := os.Open("hfconfigs/meta-llama__Llama-3.1-70B.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseHFConfig(f, "x")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := LookupModel("llama3.1-70b")
	m.Name, m.Source = c.Name, c.Source
	if *m != *c {
		t.Errorf("parsed %+v\ncatalog %+v", *m, *c)
	}
}

// FuzzParseHFConfig: no input panics, and what parses is a valid model
// whose parameter count is positive and finite.
func FuzzParseHFConfig(f *testing.F) {
	files, _ := hfConfigs.ReadDir("hfconfigs")
	for _, e := range files {
		data, _ := hfConfigs.ReadFile("hfconfigs/" + e.Name())
		f.Add(data)
	}
	f.Add([]byte(`{"model_type": "gpt2", "n_embd": 8, "n_layer": 1, "n_head": 2, "vocab_size": 3, "n_positions": 4}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseHFConfig(strings.NewReader(string(data)), "fuzz")
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("parsed model does not validate: %v", err)
		}
		p := m.Params()
		if !(p.Total > 0) || p.Active > p.Total || p.Total > 1e30 {
			t.Fatalf("params %+v", p)
		}
		_ = m.KVPerToken(DTypeBF16)
	})
}

// TestModelValidateNamesValue: the dimension checks beyond the plain
// ranges name the bad value and what would be valid.
func TestModelValidateNamesValue(t *testing.T) {
	mla, err := LookupModel("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	mla.MLA.QLoRARank = -1
	sliding, err := LookupModel("llama3-8b")
	if err != nil {
		t.Fatal(err)
	}
	sliding.SlidingWindow, sliding.SlidingLayers = 4096, 40
	for _, tt := range []struct {
		m    *Model
		want string
	}{{mla, "q_lora_rank = -1 is not in [0, "}, {sliding, "4096 on 40 layers: the window must not be negative and the layers must be in [0, 32]"}} {
		if err := tt.m.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.m.Name, err, tt.want)
		}
	}
}
