package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel/calibration"
)

func TestValidateJSON(t *testing.T) {
	code, a, errs := runCLI(t, "validate", "--json")
	_, b, _ := runCLI(t, "validate", "--json")
	if code != 0 || a != b {
		t.Fatalf("exit %d (%s); outputs equal %v", code, errs, a == b)
	}
	var out validationOut
	if err := json.Unmarshal([]byte(a), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows)+len(out.Skipped) != 83+239 || out.Original.Median > calibration.TargetMedian || len(out.Memory) != 1 {
		t.Errorf("%d rows + %d skipped, median %.3f, %d memory rows", len(out.Rows), len(out.Skipped), out.Original.Median, len(out.Memory))
	}
	if len(out.Groups) == 0 || out.LOSO.All.Rows != len(out.Rows) || len(out.Targets) < 6 || !out.Targets[0].Enforced {
		t.Errorf("groups %d, LOSO rows %d of %d, %d targets", len(out.Groups), out.LOSO.All.Rows, len(out.Rows), len(out.Targets))
	}
	mt := out.MemTable
	if len(mt.Rows) != mt.Measured+mt.OOM || mt.Measured < 9 || mt.Within < 2 || mt.Fit < 9 || mt.NotFit < 1 || len(mt.Skipped) == 0 {
		t.Errorf("memory table: %d rows, %d measured, %d within 10%%, %d of %d fit, %d of %d OOM do not, %d not modeled",
			len(mt.Rows), mt.Measured, mt.Within, mt.Fit, mt.Ran, mt.NotFit, mt.OOM, len(mt.Skipped))
	}
	for _, r := range mt.Rows {
		if (r.Error != nil) != (r.Measured > 0) || (r.Measured > 0 && r.Reason == "") {
			t.Errorf("memory row %s: measured %v, error %v, reason %q", r.RowID, r.Measured, r.Error, r.Reason)
		}
	}
}

// TestValidateReadsCSV: --csv reads a file with the same columns, and a
// missing or malformed file is bad input.
func TestValidateReadsCSV(t *testing.T) {
	data, err := os.ReadFile("../../costmodel/calibration/testdata/measured.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	path := filepath.Join(t.TempDir(), "two.csv")
	os.WriteFile(path, []byte(lines[0]+lines[23]+lines[24]), 0o644) // r0023, r0024
	code, out, errs := runCLI(t, "validate", "--csv", path)
	if code != 0 || !strings.Contains(out, "calibration set: 2 rows, 2 compared, 0 not modeled; from") || !strings.Contains(out, path) {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	for _, tt := range []struct{ file, want string }{
		{filepath.Join(t.TempDir(), "none.csv"), "no such file"},
		{writeTemp(t, "a,b\n1,2\n"), "lacks the columns"},
	} {
		if code, _, errs := runCLI(t, "validate", "--csv", tt.file); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want exit 2 and %q", tt.file, code, errs, tt.want)
		}
	}
}

func writeTemp(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEstimateStepFlags: the step-time flags change the estimate, and
// bad values are bad input.
func TestEstimateStepFlags(t *testing.T) {
	base := []string{"estimate", "--model", "llama3-70b", "--gpus", "16", "--tp", "8", "--sp", "--seq", "8192", "--recompute", "selective"}
	_, plain, _ := runCLI(t, base...)
	_, overlap, _ := runCLI(t, append(base, "--tp-comm-overlap")...)
	if plain == overlap || !strings.Contains(overlap, "tp on") {
		t.Error("--tp-comm-overlap changed nothing")
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rank-order", "tp-dp"}, `rank order "tp-dp"`},
		{[]string{"--gemm-efficiency", "1.5"}, "GEMM efficiency 1.5"},
		{[]string{"--sustained-clock", "-1"}, "sustained clock -1"},
	} {
		if code, _, errs := runCLI(t, append(base, tt.args...)...); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, errs)
		}
	}
}

// TestFrameworkFlag: --framework sets the preset's assumptions, prints
// each setting, yields to a flag of its own, and rejects an unknown
// name or a recipe the framework lacks with exit 2.
func TestFrameworkFlag(t *testing.T) {
	base := []string{"estimate", "--model", "llama3-8b", "--gpus", "8", "--tp", "2"}
	code, out, errs := runCLI(t, append(base, "--framework", "torchtitan-2024", "--tp-comm-overlap")...)
	out = strings.Join(strings.Fields(out), " ") // the assumption lines wrap
	if code != 0 || !strings.Contains(out, "framework preset torchtitan-2024") || !strings.Contains(out, "(fa2 kernel)") ||
		!strings.Contains(out, "unfused elementwise on") || !strings.Contains(out, "(overridden by --tp-comm-overlap)") ||
		!strings.Contains(out, "overlap: gradient reduce on, weight gather on, tp on") {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{{[]string{"--framework", "jax"}, `unknown framework "jax" (valid: deepspeed, megatron`},
		{[]string{"--framework", "deepspeed", "--precision", "mxfp8"}, "offers no mxfp8 recipe"}} {
		if code, _, errs := runCLI(t, append(base, tt.args...)...); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errs, tt.want)
		}
	}
	// Settings no flag overrides reach the estimate too: DeepSpeed ZeRO-1's
	// fp32 gradient partition at the step, the 2021 ZeRO-3's recompute
	// gather.
	for _, tt := range []struct {
		args []string
		want string
	}{{[]string{"estimate", "--model", "llama3.1-8b", "--gpu", "a100-80gb", "--gpus", "8", "--zero", "1", "--seq", "256",
		"--recompute", "full", "--framework", "deepspeed"}, "optimizer step: fp32 copy of the gradient"},
		{[]string{"estimate", "--model", "gpt3-175b", "--gpu", "a100-80gb", "--gpus", "384", "--zero", "3", "--seq", "2048",
			"--recompute", "full", "--precision", "fp16", "--framework", "deepspeed-zero3-2021"}, "zero-3: weight all-gather, recompute"}} {
		if code, out, errs := runCLI(t, tt.args...); code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want a line %q:\n%s", tt.args, code, errs, tt.want, out)
		}
	}
	code, out, _ = runCLI(t, "search", "--model", "llama3-8b", "--gpus", "8", "--framework", "megatron", "--top", "2")
	if code != 0 || !strings.Contains(out, "framework preset megatron") || !strings.Contains(out, "calibration rows on h100-sxm bf16") {
		t.Errorf("search exit %d:\n%s", code, out)
	}
}
