package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// llamaConfig is a small llama config.json.
const llamaConfig = `{"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
 "num_key_value_heads": 8, "intermediate_size": 4096, "vocab_size": 32000, "max_position_embeddings": 4096,
 "hidden_act": "silu", "tie_word_embeddings": false}`

// TestHubIDFromCache: an org/name model id is read from the Hugging Face
// cache under HF_HOME, the snapshot refs/main names winning over others.
func TestHubIDFromCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1") // nothing listens: the cache must answer
	root := filepath.Join(home, "hub", "models--acme--tiny-llama")
	for rev, layers := range map[string]string{"aaa": "4", "zzz": "6"} {
		dir := filepath.Join(root, "snapshots", rev)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := strings.Replace(llamaConfig, `"num_hidden_layers": 4`, `"num_hidden_layers": `+layers, 1)
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := loadModel("acme/tiny-llama"); err != nil || m.Layers != 6 {
		t.Fatalf("without refs/main: %v layers, %v; want the last snapshot's 6", layersOf(m), err)
	}
	if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "refs", "main"), []byte("aaa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := loadModel("acme/tiny-llama"); err != nil || m.Layers != 4 {
		t.Fatalf("with refs/main: %v layers, %v; want refs/main's 4", layersOf(m), err)
	}
}

// TestHubIDDownload: an id not in the cache is fetched from HF_ENDPOINT
// with HF_TOKEN as a bearer token; a missing model and a gated one are
// bad input naming the id; an unreachable hub says so.
func TestHubIDDownload(t *testing.T) {
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_HUB_CACHE", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/acme/gated/resolve/main/config.json" && r.Header.Get("Authorization") != "Bearer secret":
			http.Error(w, "gated", http.StatusUnauthorized)
		case strings.HasSuffix(r.URL.Path, "/resolve/main/config.json") && !strings.HasPrefix(r.URL.Path, "/acme/missing/"):
			_, _ = w.Write([]byte(llamaConfig))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_TOKEN", "")
	if m, err := loadModel("acme/open-llama"); err != nil || m.Layers != 4 {
		t.Fatalf("download: %v layers, %v", layersOf(m), err)
	}
	if _, err := loadModel("acme/gated"); err == nil || !strings.Contains(err.Error(), "HF_TOKEN") || !isBadInput(err) {
		t.Errorf("gated without a token: %v", err)
	}
	t.Setenv("HF_TOKEN", "secret")
	if _, err := loadModel("acme/gated"); err != nil {
		t.Errorf("gated with the token: %v", err)
	}
	if _, err := loadModel("acme/missing"); err == nil || !strings.Contains(err.Error(), "acme/missing") || !isBadInput(err) {
		t.Errorf("missing model: %v", err)
	}
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
	if _, err := loadModel("acme/offline"); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("offline: %v", err)
	}
}

// layersOf is m's layer count, or -1 for no model.
func layersOf(m *costmodel.Model) int {
	if m == nil {
		return -1
	}
	return m.Layers
}

// isBadInput reports whether err exits 2.
func isBadInput(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
