package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// hubID matches a Hugging Face model id, "org/name", as the hub spells
// them: letters, digits, '-', '_' and '.', the first character neither
// '.' nor '-'.
var hubID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// isHubID reports whether spec names a hub model rather than a file: it
// has the org/name shape, no .json suffix, and no such file exists.
func isHubID(spec string) bool {
	if !hubID.MatchString(spec) || strings.HasSuffix(strings.ToLower(spec), ".json") {
		return false
	}
	_, err := os.Stat(spec)
	return errors.Is(err, os.ErrNotExist)
}

// hubCacheDir is the Hugging Face hub cache, as huggingface_hub finds it:
// $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
func hubCacheDir() string {
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		return filepath.Join(d, "hub")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "huggingface", "hub")
}

// cachedHubConfig finds id's config.json in the hub cache
// (models--org--name/snapshots/<revision>/config.json): the revision
// refs/main names, else the last snapshot by name, so the choice is
// deterministic. It returns "" when none is cached.
func cachedHubConfig(id string) string {
	root := filepath.Join(hubCacheDir(), "models--"+strings.ReplaceAll(id, "/", "--"))
	if ref, err := os.ReadFile(filepath.Join(root, "refs", "main")); err == nil {
		p := filepath.Join(root, "snapshots", strings.TrimSpace(string(ref)), "config.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	found, _ := filepath.Glob(filepath.Join(root, "snapshots", "*", "config.json"))
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found)
	return found[len(found)-1]
}

// hubTimeout bounds a config download.
const hubTimeout = 20 * time.Second

// downloadHubConfig fetches id's config.json from $HF_ENDPOINT (default
// https://huggingface.co) at revision main, with $HF_TOKEN as a bearer
// token for gated models. A missing model is bad input; a network that
// cannot be reached is a runtime failure, said plainly.
func downloadHubConfig(id string) ([]byte, error) {
	endpoint := strings.TrimSuffix(os.Getenv("HF_ENDPOINT"), "/")
	if endpoint == "" {
		endpoint = "https://huggingface.co"
	}
	url := endpoint + "/" + id + "/resolve/main/config.json"
	ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, badInput(err)
	}
	if tok := os.Getenv("HF_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("model %s is not in the Hugging Face cache (%s) and %s cannot be reached: %v; "+
			"download it, set HF_HOME, or pass a config.json path", id, hubCacheDir(), endpoint, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, badInputf("model %s: %s answered %s; a gated model needs HF_TOKEN with access to it", id, endpoint, resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		return nil, badInputf("model %s: no such model on %s (404), nor in the cache %s", id, endpoint, hubCacheDir())
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("model %s: %s answered %s", id, endpoint, resp.Status)
	}
	return hardware.ReadAll(resp.Body, "config.json of "+id)
}

// loadHubModel reads a hub model's config.json from the cache, or
// downloads it.
func loadHubModel(id string) (*costmodel.Model, error) {
	if p := cachedHubConfig(id); p != "" {
		f, err := os.Open(p)
		if err != nil {
			return nil, badInput(err)
		}
		defer f.Close()
		m, err := costmodel.ParseHFConfig(f, id)
		return m, badInput(err)
	}
	b, err := downloadHubConfig(id)
	if err != nil {
		return nil, err
	}
	m, err := costmodel.ParseHFConfig(bytes.NewReader(b), id)
	return m, badInput(err)
}
