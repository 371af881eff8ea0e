package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSearchSensitivity: --sensitivity prints one row per change and a
// verdict naming exactly the changes whose winner differs.
func TestSearchSensitivity(t *testing.T) {
	args := []string{"search", "--model", "llama3-70b", "--gpus", "64", "--top", "3", "--sensitivity"}
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, js, _ := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatal("--json failed")
	}
	var r struct {
		Sensitivity []struct {
			Change string `json:"change"`
			Stays  bool   `json:"winner_stays"`
			Winner string `json:"winner"`
		} `json:"sensitivity"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sensitivity) != 6 {
		t.Fatalf("%d sensitivity rows, want 6", len(r.Sensitivity))
	}
	var changed []string
	for _, s := range r.Sensitivity {
		if !strings.Contains(out, s.Change) {
			t.Errorf("text lacks the row %q", s.Change)
		}
		if !s.Stays {
			changed = append(changed, s.Change)
		}
	}
	want := "the winner stays the winner under every change"
	if len(changed) > 0 {
		want = "the winner changes under: " + strings.Join(changed, "; ")
	}
	if !strings.Contains(out, want) {
		t.Errorf("text lacks the verdict %q", want)
	}
}
