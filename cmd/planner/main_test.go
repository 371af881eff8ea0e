package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/internal/goldenfile"
)

// runCLI runs the CLI in-process from the repository root, so paths in
// the examples resolve as a user at the root would type them.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// testdata is the absolute path of this package's testdata folder, so
// tests that change directory still find it.
var testdata, _ = filepath.Abs("testdata")

// golden compares got with testdata/name.golden (or rewrites it with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join(testdata, name+".golden"), got)
}

var docExample = regexp.MustCompile(`(?m)^//\t\$ planner (.*)$`)

// TestDocExamples runs every `$ planner ...` line of the command's manual
// (doc.go) and compares its output with a golden file.
func TestDocExamples(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	examples := docExample.FindAllStringSubmatch(string(src), -1)
	if len(examples) < 6 {
		t.Fatalf("found %d examples in doc.go", len(examples))
	}
	t.Chdir("../..")
	for i, ex := range examples {
		args := strings.Fields(ex[1])
		code, out, errs := runCLI(t, args...)
		if code > exitFail || out == "" {
			t.Errorf("planner %s: exit %d, stderr %q", ex[1], code, errs)
			continue
		}
		if code != exitOK {
			out += fmt.Sprintf("(exit %d: %s)\n", code, strings.TrimSpace(errs))
		}
		golden(t, fmt.Sprintf("doc_%02d_%s", i+1, args[0]), "$ planner "+ex[1]+"\n"+out)
	}
}

func TestJSONIsRawAndDeterministic(t *testing.T) {
	args := []string{"estimate", "--model", "llama3-70b", "--gpus", "64", "--zero", "3", "--seq", "8192", "--recompute", "full", "--json"}
	code, a, _ := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	if code != 0 || a != b {
		t.Fatalf("exit %d; outputs equal %v", code, a == b)
	}
	if !strings.Contains(a, `"total_bytes": 43`) || strings.Contains(a, "GB") && !strings.Contains(a, `"hbm_quoted"`) {
		t.Errorf("JSON should carry raw integer bytes:\n%.400s", a)
	}
	golden(t, "estimate_json", a)
}

// TestPartialRecomputeGolden: an estimate under Megatron-LM's block
// recompute of 5 layers per stage (the Megatron-Bridge Llama 3 8B H100
// FP8 recipe's recompute_num_layers 5) prints the plan as full[block5],
// the checkpointed and kept layers, and the recompute of those 5 layers.
func TestPartialRecomputeGolden(t *testing.T) {
	code, out, errs := runCLI(t, "estimate", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--seq", "8192",
		"--zero", "1", "--precision", "fp8-cs", "--recompute", "full", "--recompute-method", "block", "--recompute-num-layers", "5")
	if code > exitFail {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"full[block5]", "5 checkpointed", "the forward of the first 5 layers of each", "--recompute full "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	golden(t, "estimate_block_recompute", out)
	for _, args := range [][]string{
		{"--recompute", "selective", "--recompute-num-layers", "2"},
		{"--recompute", "full", "--recompute-method", "block"},
		{"--recompute", "full", "--recompute-method", "blok", "--recompute-num-layers", "2"},
		{"--recompute", "full", "--recompute-num-layers", "0"},
		{"--recompute", "full", "--recompute-num-layers", "33"},
	} {
		code, _, errs := runCLI(t, append([]string{"estimate", "--model", "llama3-8b", "--gpus", "8"}, args...)...)
		if code != exitUsage || !strings.Contains(errs, "recompute") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the recompute", args, code, errs)
		}
	}
}

func TestServeJSON(t *testing.T) {
	code, out, errs := runCLI(t, "estimate", "--mode", "serve", "--model", "llama3.1-8b", "--gpus", "1", "--context", "4096", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	golden(t, "serve_json", out)
}

// TestActivationOffloadJSONFields: the estimate's JSON carries the plan's
// offloaded layers, the host and buffer bytes and the exposed copies.
func TestActivationOffloadJSONFields(t *testing.T) {
	code, out, errs := runCLI(t, "estimate", "--model", "llama3-8b", "--gpus", "8", "--zero", "1", "--offload-activations", "8", "--seq", "8192", "--json")
	if code > exitFail {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Plan struct {
			Layers int `json:"offload_activation_layers"`
		} `json:"plan"`
		Stages []struct {
			Host   float64 `json:"host_activations_bytes"`
			Buffer float64 `json:"activation_offload_buffer_bytes"`
		} `json:"stages"`
		Performance struct {
			Breakdown struct {
				Exposed float64 `json:"activation_offload_s"`
			} `json:"breakdown"`
		} `json:"performance"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Plan.Layers != 8 || len(r.Stages) != 1 || r.Stages[0].Buffer <= 0 || math.Abs(r.Stages[0].Host/r.Stages[0].Buffer-8) > 1e-9 {
		t.Errorf("plan layers %d, stages %+v: want 8, and 8 layers of the one-layer buffer on the host", r.Plan.Layers, r.Stages)
	}
	if r.Performance.Breakdown.Exposed <= 0 {
		t.Errorf("activation_offload_s %g, want > 0 (an H100 layer of 8,192 tokens copies slower than its forward over PCIe)", r.Performance.Breakdown.Exposed)
	}
}

// TestBadInput: every bad input exits 2 with a message naming the value.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"estimat"}, `unknown command "estimat"`},
		{[]string{"estimate"}, "--model is required"},
		{[]string{"estimate", "--model", "llama3-7b"}, `unknown model "llama3-7b"`},
		{[]string{"estimate", "--model", "llama3-7b"}, "closest: llama3-70b"},
		{[]string{"estimate", "--model", "llama3-70b", "--gpu", "h10"}, `unknown GPU "h10"`},
		{[]string{"estimate", "--model", "llama3-70b", "--tp", "3", "--gpus", "3"}, "tp=3 does not divide 64 attention heads"},
		{[]string{"estimate", "--model", "llama3-70b", "--gpus", "16", "--tp", "8", "--dp", "4"}, "tp*pp*cp*dp = 8*1*1*4 = 32, but --gpus/--nodes give 16 GPUs"},
		{[]string{"estimate", "--model", "llama3-70b", "--gpus", "12"}, "not a whole number of 8-GPU nodes"},
		{[]string{"estimate", "--model", "llama3-70b", "--zero", "4"}, "zero=4 is not a ZeRO stage"},
		{[]string{"estimate", "--model", "llama3-70b", "--recompute", "some"}, `unknown recompute "some" (valid: none, selective, full, opsac)`},
		{[]string{"estimate", "--model", "llama3-70b", "--recompute", "selective", "--recompute-modules", "core_attn,attn"}, `unknown recompute module "attn" (valid: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts)`},
		{[]string{"estimate", "--model", "llama3-70b", "--recompute", "full", "--recompute-modules", "mlp"}, "--recompute-modules mlp needs --recompute selective (got full)"},
		{[]string{"estimate", "--model", "llama3-8b", "--offload-activations", "32"}, "offload activations 32 is not in [0, 31]"},
		{[]string{"estimate", "--model", "llama3-8b", "--gpus", "2", "--pp", "2", "--offload-activations", "16"}, "offload activations 16 is not in [0, 15]"},
		{[]string{"estimate", "--model", "llama3-8b", "--offload-activations", "-1"}, "--offload-activations -1 is not a layer count"},
		{[]string{"estimate", "--model", "llama3-8b", "--packed-sample-tokens", "-1"}, "--packed-sample-tokens -1 is negative"},
		{[]string{"estimate", "--model", "llama3-8b", "--seq", "4096", "--packed-sample-tokens", "5000"}, "packed sample tokens 5000 is not in [1, seq=4096]"},
		{[]string{"estimate", "--model", "llama3-8b", "--packed-sample-tokens", "200", "--attn", "eager"}, "need fused attention with per-sample boundaries"},
		{[]string{"estimate", "--model", "llama3-8b", "--task", "lora", "--lora-targets", "q,qkv"}, "qkv is one adapter on the fused projection"},
		{[]string{"estimate", "--model", "llama3-8b", "--offload-activations", "4", "--recompute", "selective"}, "offload activations 4 needs recompute none (got selective)"},
		{[]string{"estimate", "--model", "llama3-70b", "--recompute", "selective", "--recompute-modules", ""}, "--recompute-modules is empty"},
		{[]string{"estimate", "--model", "llama3-70b", "--recompute", "selective", "--recompute-modules", "mla_up_proj"}, "mla_up_proj needs multi-latent attention"},
		{[]string{"explain-plan", "tp8-pp1-cp1-dp1-zero1-sp-selective[mlp-mb1"}, "selective[mlp: missing ]"},
		{[]string{"estimate", "--model", "llama3-70b", "--seq", "-5"}, "seq=-5"},
		{[]string{"estimate", "--model", "llama3-70b", "--tp", "-1"}, "--tp -1"},
		{[]string{"estimate", "--model", "llama3-70b", "--mbs", "99999999999"}, "--mbs 99999999999"},
		{[]string{"estimate", "--model", "llama3-70b", "--gbs", "3", "--gpus", "8"}, "gbs=3 is not a multiple"},
		{[]string{"estimate", "--model", "llama3-70b", "--hbm-fraction", "1.5"}, "HBM fraction 1.5"},
		{[]string{"estimate", "--model", "llama3-70b", "--precision", "fp8", "--gpu", "a100"}, "a100-80gb has no FP8"},
		{[]string{"estimate", "--model", "llama3-70b", "--mode", "infer"}, `--mode "infer"`},
		{[]string{"estimate", "--model", "llama3-70b", "--mode", "serve", "--users", "0"}, "--users 0: serve at least one user"},
		{[]string{"estimate", "--model", "llama3-70b", "--mode", "serve", "--kv-dtype", "int2"}, `unknown dtype "int2"`},
		{[]string{"estimate", "--model", "no/such/config.json"}, "no such file"},
		{[]string{"estimate", "--model", "llama3-70b", "--tp"}, "flag needs an argument"},
		{[]string{"estimate", "--model", "llama3-70b", "extra"}, `unexpected argument "extra"`},
		{[]string{"estimate", "--model", "llama3-70b", "--cp", "2", "--attn", "eager"}, "needs FlashAttention"},
		{[]string{"gpus", "--bogus"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("planner %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), code, errs, tt.want)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	if code, out, _ := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "estimate") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
	if code, _, errs := runCLI(t, "estimate", "-h"); code != 0 || !strings.Contains(errs, "--recompute") && !strings.Contains(errs, "-recompute") {
		t.Errorf("estimate -h: exit %d, %q", code, errs)
	}
}

// TestPackedSampleTokensPlanLine: --packed-sample-tokens reaches the
// plan, and the plan line names the statistic and the flag it came from.
func TestPackedSampleTokensPlanLine(t *testing.T) {
	code, out, errs := runCLI(t, "estimate", "--model", "llama3-8b", "--gpus", "8", "--task", "full", "--seq", "4096",
		"--packed-sample-tokens", "196", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"packed_sample_tokens": 196`) {
		t.Errorf("JSON plan without packed_sample_tokens 196")
	}
	code, out, errs = runCLI(t, "estimate", "--model", "llama3-8b", "--gpus", "8", "--task", "full", "--seq", "4096",
		"--packed-sample-tokens", "196")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "packed samples (attention within samples of E[len^2]/E[len] = 196 tokens, --packed-sample-tokens)") {
		t.Errorf("exit %d, stderr %q: plan line without the packed samples", code, errs)
	}
}
