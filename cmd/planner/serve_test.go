package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServeBadInput: every bad input to planner serve exits 2 with a
// message naming the value; none panics.
func TestServeBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--model is required"},
		{[]string{"serve", "--model", "llama3-70b", "--users", "0"}, "--users 0: serve at least one user"},
		{[]string{"serve", "--model", "llama3-70b", "--users", "-3"}, "--users -3"},
		{[]string{"serve", "--model", "llama3-70b", "--context", "0"}, "--context 0"},
		{[]string{"serve", "--model", "llama3-70b", "--context", "99999999999"}, "context=99999999999"},
		{[]string{"serve", "--model", "llama3-70b", "--weights-dtype", "int3"}, `unknown dtype "int3" (valid: bf16, fp8, int4, fp32, nvfp4, mxfp4, fp8-block)`},
		{[]string{"serve", "--model", "llama3-70b", "--kv-dtype", "int4"}, "KV dtype int4 is not supported"},
		{[]string{"serve", "--model", "llama3-70b", "--gpus", "12"}, "not a whole number of 8-GPU nodes"},
		{[]string{"serve", "--model", "llama3-70b", "--gpus", "-1"}, "--gpus -1"},
		{[]string{"serve", "--model", "llama3-70b", "--gpus-per-node", "16"}, "16 GPUs per node"},
		{[]string{"serve", "--model", "llama3-70b", "--block-size", "-16"}, "--block-size -16"},
		{[]string{"serve", "--model", "llama3-70b", "--decode-hbm-efficiency", "1.5"}, "serving HBM efficiency 1.5"},
		{[]string{"serve", "--model", "llama3-70b", "--allreduce-us", "-1"}, "--allreduce-us -1 is not in [0, 1e+06]"},
		{[]string{"serve", "--model", "llama3-70b", "--json", "--markdown"}, "--json and --markdown"},
		{[]string{"serve", "--model", "llama3-70b", "--top", "-1"}, "--top -1"},
		{[]string{"serve", "--model", "llama3-7b"}, "closest: llama3-70b"},
		{[]string{"serve", "--model", "llama3-70b", "--gpu", "h10"}, `unknown GPU "h10"`},
		{[]string{"serve", "--model", "llama3-70b", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("planner %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, errs, tt.want)
		}
	}
}

// TestServeContextWarning: a context beyond the model's trained maximum
// is a warning, not an error: the answer still comes, with a note.
func TestServeContextWarning(t *testing.T) {
	code, out, errs := runCLI(t, "serve", "--model", "llama3.1-8b", "--context", "200000", "--users", "1")
	if code != 0 || !strings.Contains(errs, "warning: --context 200000 exceeds llama3.1-8b's maximum of 131072") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "note: context 200000 exceeds the model's max_position_embeddings 131072") {
		t.Errorf("the answer lacks the note:\n%s", out)
	}
}

// TestServeCommandJSON: --json is raw base units, byte-identical run to run.
func TestServeCommandJSON(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-8b", "--context", "4096", "--users", "1", "--json"}
	code, a, errs := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	if code != 0 || a != b {
		t.Fatalf("exit %d (%s); outputs equal %v", code, errs, a == b)
	}
	var r struct {
		GPUs    int `json:"gpus"`
		Layouts []struct {
			Speed struct {
				TPOT float64 `json:"time_per_output_token_s"`
			} `json:"speed"`
			Memory struct {
				Memory struct {
					Total float64 `json:"total_bytes"`
				} `json:"memory"`
			} `json:"memory"`
		} `json:"layouts"`
	}
	if err := json.Unmarshal([]byte(a), &r); err != nil {
		t.Fatal(err)
	}
	if r.GPUs != 1 || len(r.Layouts) != 1 || r.Layouts[0].Speed.TPOT > 0.01 || r.Layouts[0].Memory.Memory.Total != 19097393408 {
		t.Errorf("JSON %+v", r)
	}
	golden(t, "serve_search_json", a)
}
