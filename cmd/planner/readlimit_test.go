package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadLimit: an endless or oversized input stops at the read limit and
// says so.
func TestReadLimit(t *testing.T) {
	big := writeTempFile(t, "config.json", `{"model_type": "llama", "x": "`+strings.Repeat("a", 5<<20)+`"}`)
	for _, args := range [][]string{
		{"validate", "--csv", "/dev/zero"},
		{"estimate", "--model", big},
		{"estimate", "--model", "llama3-8b", "--gpu", writeTempFile(t, "g.json", strings.Repeat(" ", 5<<20))},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "larger than the 4 MiB limit") {
			t.Errorf("planner %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
	}
}

// TestTrailingData: a config.json or GPU file with anything after its
// object is refused with the trailing text quoted.
func TestTrailingData(t *testing.T) {
	cfg, err := os.ReadFile("../../costmodel/hfconfigs/meta-llama__Llama-3.1-8B.json")
	if err != nil {
		t.Fatal(err)
	}
	gpu := `{"name": "g", "hbm_gib": 80, "bf16_tflops": 989, "mem_bandwidth_gb_per_s": 3350, "scale_up_gb_per_s_per_direction": 450, "scale_up_domain": 8}`
	for _, args := range [][]string{
		{"estimate", "--model", writeTempFile(t, "config.json", string(cfg)+"}garbage")},
		{"estimate", "--model", "llama3-8b", "--gpu", writeTempFile(t, "g.json", gpu+"]")},
		{"estimate", "--model", "llama3-8b", "--gpu", writeTempFile(t, "g.json", gpu+" {}")},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "trailing data") {
			t.Errorf("planner %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
	}
}
