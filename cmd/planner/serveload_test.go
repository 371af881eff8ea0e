package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/search"
)

// TestServeLoadDoneWhen: the example answers with GPUs, a layout
// and replicas that meet both targets, and the JSON carries the numbers.
func TestServeLoadDoneWhen(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-70b", "--gpu", "h100", "--input-tokens", "8192", "--output-tokens", "1024",
		"--ttft", "2s", "--tpot", "40ms", "--rate", "10"}
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "fewest GPUs that meet the targets:") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	code, js, errs := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		GPUs    int `json:"gpus"`
		Layouts []struct {
			TP, Replicas, GPUs int
			Latency            struct {
				TTFT  float64 `json:"ttft_s"`
				TPOT  float64 `json:"tpot_s"`
				Rate  float64 `json:"rate_per_s"`
				Cost  float64 `json:"gpu_seconds_per_token"`
				Slots int     `json:"kv_slots_per_replica"`
			} `json:"latency"`
		} `json:"layouts"`
		Assumptions struct {
			HBM float64 `json:"serve_hbm_efficiency"`
		} `json:"assumptions"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.GPUs < 8 || len(r.Layouts) == 0 || r.Assumptions.HBM == 0 {
		t.Fatalf("JSON %+v", r)
	}
	b := r.Layouts[0]
	if b.Latency.TTFT > 2 || b.Latency.TPOT > 0.04 || b.Replicas < 1 || b.GPUs != b.TP*b.Replicas || b.Latency.Rate < 9.99 || b.Latency.Cost <= 0 {
		t.Errorf("best layout %+v misses the targets or the load", b)
	}
	// 10 requests/s x 1024 tokens on b.GPUs GPUs: the cost is GPUs / tokens per second.
	if want := float64(b.GPUs) / (10 * 1024); !within(b.Latency.Cost, want, 1e-3) {
		t.Errorf("cost %.4g GPU-s per token, want %.4g", b.Latency.Cost, want)
	}
}

func within(got, want, tol float64) bool { return got >= want*(1-tol) && got <= want*(1+tol) }

// TestServeLoadBadInput: bad load flags exit 2 and name the value.
func TestServeLoadBadInput(t *testing.T) {
	base := []string{"serve", "--model", "llama3.1-70b"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "tgi"}, `unknown engine "tgi" (valid: sglang, trtllm, vllm)`},
		{[]string{"--concurrency", "4", "--rate", "2"}, "not both"},
		{[]string{"--context", "100", "--output-tokens", "1024"}, "--context 100 must exceed --output-tokens 1024"},
		{[]string{"--tp", "3"}, "tp=3"},
		{[]string{"--ttft", "-1s"}, "must not be negative"},
		{[]string{"--input-tokens", "0"}, "input tokens 0"},
		{[]string{"--engine", "vllm", "--memory-fraction", "1.5"}, "memory fraction 1.5"},
		{[]string{"--engine", "vllm", "--step-overhead-ms", "5000"}, "step overhead"},
		{[]string{"--dp-attention", "2"}, "--dp-attention 2 and --ep 0 apply to mixture-of-experts models"},
		{[]string{"--ep", "-1"}, "--ep -1 must not be negative"},
		{[]string{"--rate", "2", "--rounds", "10"}, "rounds 10 applies to a closed-loop load"},
		{[]string{"--concurrency", "8", "--rounds", "0.5"}, "rounds 0.5 is not 0"},
		{[]string{"--engine", "vllm", "--request-overhead-ms", "20000"}, "request overhead"},
	} {
		code, _, errs := runCLI(t, append(base, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestServeLoadAliases: --users is the concurrency and --context the
// input + output when the load flags leave them unset.
func TestServeLoadAliases(t *testing.T) {
	_, a, _ := runCLI(t, "serve", "--model", "llama3.1-8b", "--engine", "vllm", "--users", "8", "--context", "2048", "--output-tokens", "512", "--json")
	_, b, _ := runCLI(t, "serve", "--model", "llama3.1-8b", "--engine", "vllm", "--concurrency", "8", "--input-tokens", "1536", "--output-tokens", "512", "--json")
	if a != b || !strings.Contains(a, `"input_tokens": 1536`) {
		t.Errorf("aliases differ from the flags they stand for:\n%s", a)
	}
}

// TestValidateServing: the serving check runs and prints its tables and
// the points it does not score.
func TestValidateServing(t *testing.T) {
	code, out, errs := runCLI(t, "validate", "--serving", "--top", "3")
	if code != 0 || !strings.Contains(out, "accuracy (median |error|") || !strings.Contains(out, "not comparable (") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
}

// TestServeExpertLayout: --dp-attention and --ep lay out an MoE model
// DeepSeek-style (the layout names them, a replica spans tp x dp GPUs,
// the steady state is per dp rank); an ep that does not divide the
// experts exits 2 naming it.
func TestServeExpertLayout(t *testing.T) {
	base := []string{"serve", "--model", "deepseek-v3", "--gpu", "h200", "--weights-dtype", "fp8", "--engine", "trtllm",
		"--concurrency", "64", "--tp", "1"}
	code, out, errs := runCLI(t, append(base, "--dp-attention", "8", "--ep", "8")...)
	if code != 0 || !strings.Contains(out, "tp1-pp1-dp8-ep8 x 1 replica     8") || !strings.Contains(out, "per attention dp rank (8 per replica)") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, append(base, "--dp-attention", "8", "--ep", "7")...); code != 2 || !strings.Contains(errs, "ep 7 does not divide the 256 experts") {
		t.Errorf("--ep 7: exit %d, stderr %q; want exit 2 naming ep 7", code, errs)
	}
}

// TestServeLoadNothingMeets: targets no layout meets print every
// layout's miss and exit 1, as a search that finds nothing that fits,
// aggregated and disaggregated, with --json too.
func TestServeLoadNothingMeets(t *testing.T) {
	base := []string{"serve", "--model", "llama3.1-8b", "--gpu", "h100", "--input-tokens", "1024", "--output-tokens", "1024",
		"--ttft", "1ms", "--tpot", "1ms", "--rate", "10"}
	for _, extra := range [][]string{nil, {"--json"}, {"--disaggregated"}, {"--disaggregated", "--json"}} {
		code, out, errs := runCLI(t, append(base, extra...)...)
		if code != 1 || !strings.Contains(errs, "nothing fits") {
			t.Errorf("%v: exit %d, stderr %q, want 1 and nothing fits", extra, code, errs)
		}
		if len(extra) == 0 && !strings.Contains(out, "no layout of h100-sxm meets the targets") {
			t.Errorf("no miss reported:\n%s", out)
		}
	}
}

// TestServeLoadPastMaxSeq: a prompt and output longer than the model's
// max_position_embeddings are priced with a warning naming the limit.
func TestServeLoadPastMaxSeq(t *testing.T) {
	code, _, errs := runCLI(t, "serve", "--model", "llama3.1-8b", "--gpu", "h100", "--input-tokens", "200000", "--output-tokens", "10")
	if code != 0 || !strings.Contains(errs, "200010 exceed llama3.1-8b's maximum of 131072 tokens") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "serve", "--model", "llama3.1-8b", "--gpu", "h100", "--input-tokens", "100000", "--output-tokens", "10")
	if code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("within the limit: exit %d, stderr %q", code, errs)
	}
}

// TestServeLoadDecodeOnlyGraphs: --decode-only-graphs sets the engine's
// DecodeOnlyGraphs (steps with a prefill chunk pay their launches), so
// the time to first token grows, and the JSON says so.
func TestServeLoadDecodeOnlyGraphs(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-70b", "--gpu", "b200", "--input-tokens", "1024", "--output-tokens", "1024",
		"--concurrency", "32", "--tp", "4", "--json"}
	ttft := func(extra ...string) (float64, bool) {
		code, out, errs := runCLI(t, append(args, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var r struct {
			Engine struct {
				DecodeOnly bool `json:"decode_only_graphs"`
			} `json:"engine"`
			Layouts []struct {
				Latency struct {
					TTFT float64 `json:"ttft_s"`
				} `json:"latency"`
			} `json:"layouts"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Layouts) == 0 {
			t.Fatalf("%v: %s", err, out)
		}
		return r.Layouts[0].Latency.TTFT, r.Engine.DecodeOnly
	}
	graphed, on := ttft()
	eager, onNow := ttft("--decode-only-graphs")
	if on || !onNow || !(eager > graphed) {
		t.Errorf("TTFT %g s (decode-only %v) then %g s (decode-only %v): want the flag set and a slower first token", graphed, on, eager, onNow)
	}
}

// TestServeBurstStallItemized: a finite closed loop (--rounds) on an
// engine without mixed prefill prints the opening burst's stall as a
// term of TPOT, and the JSON carries the stall, the burst's steps (its
// requests' mean and its last) and a TPOT above the stall's share.
func TestServeBurstStallItemized(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-8b", "--gpu", "h100", "--engine", "sglang", "--tp", "1",
		"--concurrency", "32", "--input-tokens", "2048", "--output-tokens", "256", "--rounds", "10"}
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "x opening-burst stall") || !strings.Contains(out, "/ 255 later tokens") {
		t.Fatalf("exit %d (%s): no burst stall in TPOT:\n%s", code, errs, out)
	}
	code, js, errs := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Layouts []struct {
			Latency struct {
				TPOT   float64 `json:"tpot_s"`
				Stall  float64 `json:"burst_stall_s"`
				Share  float64 `json:"burst_share"`
				Steps  float64 `json:"burst_steps"`
				Last   float64 `json:"burst_last_steps"`
				Decode struct {
					Total float64 `json:"total_s"`
				} `json:"decode_step"`
			} `json:"latency"`
		} `json:"layouts"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || len(r.Layouts) == 0 {
		t.Fatalf("JSON: %v %s", err, js)
	}
	l := r.Layouts[0].Latency
	if l.Stall <= 0 || l.Last <= l.Steps || l.TPOT <= l.Share*l.Stall/255 {
		t.Errorf("burst stall %g s over steps %g to %g, TPOT %g s", l.Stall, l.Steps, l.Last, l.TPOT)
	}
}

// TestServeLoadMixedPrefill: SGLang runs a prefill batch alone by
// default, a step of its own the decodes wait for; --mixed-prefill (its
// --enable-mixed-chunk) puts the chunk into the decodes' step, and the
// text and the JSON say which.
func TestServeLoadMixedPrefill(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-8b", "--gpu", "h100", "--engine", "sglang", "--tp", "1",
		"--concurrency", "32", "--input-tokens", "2048", "--output-tokens", "256"}
	for _, c := range []struct {
		extra []string
		text  string
		mixed bool
	}{
		{nil, "2048-token prefill chunk runs alone in a step of", false},
		{[]string{"--mixed-prefill"}, "a step with a 2048-token prefill chunk takes", true},
	} {
		code, out, errs := runCLI(t, append(args, c.extra...)...)
		if code != 0 || !strings.Contains(out, c.text) {
			t.Errorf("%v: exit %d (%s), want %q in:\n%s", c.extra, code, errs, c.text, out)
		}
		code, js, errs := runCLI(t, append(append(args, c.extra...), "--json")...)
		var r struct {
			Engine struct {
				Mixed bool `json:"mixed_prefill"`
			} `json:"engine"`
		}
		if code != 0 || json.Unmarshal([]byte(js), &r) != nil || r.Engine.Mixed != c.mixed {
			t.Errorf("%v: exit %d (%s), engine.mixed_prefill %v, want %v", c.extra, code, errs, r.Engine.Mixed, c.mixed)
		}
	}
}

// TestServeLoadFrontend: --frontend dynamo prints Dynamo's front end on
// the engine line, carries it in the JSON and adds its overhead to
// every layout's TTFT; an unknown front end exits 2 naming the valid ones.
func TestServeLoadFrontend(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-8b", "--gpu", "h100", "--engine", "trtllm", "--tp", "1",
		"--concurrency", "32", "--input-tokens", "2048", "--output-tokens", "256", "--json"}
	type answer struct {
		Engine struct {
			Frontend string  `json:"frontend"`
			Overhead float64 `json:"frontend_overhead_s"`
		} `json:"engine"`
		Layouts []struct {
			Latency struct {
				TTFT float64 `json:"ttft_s"`
				TPOT float64 `json:"tpot_s"`
			} `json:"latency"`
		} `json:"layouts"`
	}
	var native, dynamo answer
	for _, c := range []struct {
		extra []string
		into  *answer
	}{{nil, &native}, {[]string{"--frontend", "dynamo"}, &dynamo}} {
		code, js, errs := runCLI(t, append(args, c.extra...)...)
		if code != 0 || json.Unmarshal([]byte(js), c.into) != nil || len(c.into.Layouts) != 1 {
			t.Fatalf("%v: exit %d (%s): %s", c.extra, code, errs, js)
		}
	}
	want := float64(costmodel.FrontendOverheads[costmodel.FrontendDynamo])
	if native.Engine.Frontend != "" || dynamo.Engine.Frontend != "dynamo" || dynamo.Engine.Overhead != want {
		t.Errorf("engine front end: native %+v, dynamo %+v; want dynamo at %g s", native.Engine, dynamo.Engine, want)
	}
	n, d := native.Layouts[0].Latency, dynamo.Layouts[0].Latency
	if math.Abs(d.TTFT-n.TTFT-want) > 1e-9 || d.TPOT != n.TPOT {
		t.Errorf("TTFT %g behind Dynamo, %g native (want %g more); TPOT %g and %g", d.TTFT, n.TTFT, want, d.TPOT, n.TPOT)
	}
	code, out, _ := runCLI(t, append(args[:len(args)-1], "--frontend", "dynamo")...)
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), fmt.Sprintf("+ %v behind the dynamo front end", costmodel.FrontendOverheads[costmodel.FrontendDynamo])) {
		t.Errorf("text answer (exit %d) does not name the front end:\n%s", code, out)
	}
	code, _, errs := runCLI(t, append(args, "--frontend", "nginx")...)
	if code != 2 || !strings.Contains(errs, `"nginx"`) || !strings.Contains(errs, "valid: dynamo, native") {
		t.Errorf("--frontend nginx: exit %d, %s", code, errs)
	}
}

// TestServeOverheadSource: the assumptions say the engine's overheads
// are the fitted ones only when they are, give the fitted ones beside
// overrides, and name the front end's as fitted too.
func TestServeOverheadSource(t *testing.T) {
	base := []string{"serve", "--model", "llama3.1-8b", "--gpu", "h100", "--concurrency", "8"}
	v := costmodel.Engines["vllm"]
	given := fmt.Sprintf("step and request overheads as given (fitted on measured-serving.csv: %v and %v)", v.StepOverhead, v.RequestOverhead)
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{nil, "its step and request overheads fitted on measured-serving.csv (planner validate --serving)"},
		{[]string{"--step-overhead-ms", "1"}, given},
		{[]string{"--request-overhead-ms", "5", "--disaggregated"}, given},
		{[]string{"--frontend", "dynamo"}, "its step and request overheads, and the dynamo front end's, fitted on measured-serving.csv"},
		{[]string{"--frontend", "dynamo", "--step-overhead-ms", "1"}, given + "; the dynamo front end's fitted on measured-serving.csv"},
	} {
		code, out, errs := runCLI(t, append(base, c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errs)
		}
		if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, c.want) {
			t.Errorf("%v: output lacks %q", c.extra, c.want)
		}
	}
}

// TestLoadAnswerLine checks the serve headline's wording with and
// without latency targets and its count of GPUs.
func TestLoadAnswerLine(t *testing.T) {
	one := []search.LoadLayout{{Layout: "tp1-pp1 x 1 replica", GPUs: 1}}
	for _, tc := range []struct {
		r    search.LoadResult
		want string
	}{
		{search.LoadResult{ServeContext: search.ServeContext{GPU: "b200"}, GPUs: 1, Layouts: one},
			"fewest GPUs that serve this load (no latency targets given): 1 b200; cheapest: tp1-pp1 x 1 replica on 1 GPU; 1 layout does"},
		{search.LoadResult{ServeContext: search.ServeContext{GPU: "b200", TPOT: 0.03}, GPUs: 1, Layouts: one},
			"fewest GPUs that meet the targets: 1 b200; cheapest: tp1-pp1 x 1 replica on 1 GPU; 1 layout meets them"},
		{search.LoadResult{ServeContext: search.ServeContext{GPU: "b200", TTFT: 0.5}},
			"no layout of b200 meets the targets at this load"},
		{search.LoadResult{ServeContext: search.ServeContext{GPU: "b200"}},
			"no layout of b200 serves this load without overload"},
	} {
		if got := loadAnswerLine(&tc.r); !strings.HasPrefix(got, tc.want) {
			t.Errorf("loadAnswerLine = %q, want it to start %q", got, tc.want)
		}
	}
}

// TestServeCheckpointWeights: without --weights-dtype, gpt-oss-120b is
// served in the mxfp4 of its checkpoint and fits one H100, and says
// where the format comes from; --weights-dtype bf16 overrides it, and
// then the 234 GB of bf16 weights need more than one GPU.
func TestServeCheckpointWeights(t *testing.T) {
	args := []string{"serve", "--model", "gpt-oss-120b", "--gpu", "h100", "--input-tokens", "1024", "--output-tokens", "1024", "--concurrency", "4"}
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, `weights mxfp4 (the checkpoint's: config.json quantization_config quant_method "mxfp4")`) ||
		!strings.Contains(out, "cheapest: tp1-pp1 x 1") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, append(args, "--weights-dtype", "bf16")...)
	if code != 0 || !strings.Contains(out, "weights bf16, KV cache") || strings.Contains(out, "checkpoint's") || strings.Contains(out, "cheapest: tp1-pp1 x") {
		t.Fatalf("--weights-dtype bf16: exit %d (%s):\n%s", code, errs, out)
	}
}
