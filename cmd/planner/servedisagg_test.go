package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// disaggExample is the README's disaggregated question.
var disaggExample = []string{"serve", "--model", "llama3.1-70b", "--gpu", "h100", "--input-tokens", "8192", "--output-tokens", "1024",
	"--ttft", "2s", "--tpot", "40ms", "--rate", "10", "--disaggregated"}

// TestServeDisaggGolden: the text and the JSON of the example, against
// golden files; the JSON carries both pools, the transfer and the
// aggregated answer, and the best deployment meets the targets.
func TestServeDisaggGolden(t *testing.T) {
	code, out, errs := runCLI(t, disaggExample...)
	if code != 0 || !strings.Contains(out, "fewest GPUs that meet the targets disaggregated:") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	golden(t, "serve_disagg", out)
	code, js, errs := runCLI(t, append(disaggExample, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "serve_disagg_json", js)
	var r struct {
		GPUs        int `json:"gpus"`
		Saved       int `json:"gpus_saved"`
		Deployments []struct {
			GPUs    int `json:"gpus"`
			Latency struct {
				TTFT     float64 `json:"ttft_s"`
				TPOT     float64 `json:"tpot_s"`
				KV       float64 `json:"kv_transfer_s"`
				Rate     float64 `json:"rate_per_s"`
				Prefill  pool    `json:"prefill"`
				Decode   pool    `json:"decode"`
				Transfer struct {
					Bytes float64 `json:"bytes"`
				} `json:"kv_transfer"`
			} `json:"latency"`
		} `json:"deployments"`
		Aggregated struct {
			GPUs int `json:"gpus"`
		} `json:"aggregated"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Deployments) == 0 || r.Aggregated.GPUs == 0 || r.Saved != r.Aggregated.GPUs-r.GPUs {
		t.Fatalf("JSON %+v", r)
	}
	b := r.Deployments[0].Latency
	if b.TTFT > 2 || b.TPOT > 0.04 || b.KV <= 0 || b.Rate != 10 || b.Transfer.Bytes != 8192*327680 ||
		r.Deployments[0].GPUs != b.Prefill.Workers*b.Prefill.GPUsPerWorker+b.Decode.Workers*b.Decode.GPUsPerWorker {
		t.Errorf("best deployment %+v", b)
	}
}

// pool is the part of a pool's JSON the tests read.
type pool struct {
	Workers       int `json:"workers"`
	GPUsPerWorker int `json:"gpus_per_worker"`
}

// TestServeDisaggPins: the pool pins hold, and --tp pins both pools.
func TestServeDisaggPins(t *testing.T) {
	code, out, errs := runCLI(t, append(disaggExample, "--prefill-tp", "8", "--decode-tp", "4", "--top", "0")...)
	if code != 0 || !strings.Contains(out, "prefill tp8-pp1 x") || !strings.Contains(out, "decode tp4-pp1 x") || strings.Contains(out, "  tp2-pp1 x") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, append(disaggExample, "--tp", "8", "--pp", "1")...)
	if code != 0 || strings.Contains(out, "tp4-pp1 x") {
		t.Fatalf("--tp 8: exit %d (%s):\n%s", code, errs, out)
	}
}

// TestServeDisaggBadInput: bad pins exit 2 and name the value.
func TestServeDisaggBadInput(t *testing.T) {
	base := []string{"serve", "--model", "llama3.1-70b", "--rate", "4"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--prefill-tp", "8"}, "--prefill-tp has no effect without --disaggregated"},
		{[]string{"--decode-pp", "2"}, "--decode-pp has no effect without --disaggregated"},
		{[]string{"--disaggregated", "--prefill-tp", "3"}, "tp=3"},
		{[]string{"--disaggregated", "--decode-tp", "-1"}, "--decode-tp -1 is not a degree"},
		{[]string{"--disaggregated", "--prefill-pp", "0"}, "--prefill-pp 0 is not a degree"},
		{[]string{"--disaggregated", "--decode-tp", "x"}, "decode-tp"},
		{[]string{"--disaggregated", "--concurrency", "8", "--rounds", "10", "--rate", "0"}, "--rounds has no effect with --disaggregated"},
		{[]string{"--disaggregated", "--engine", "trtllm", "--batch-wait-iters", "4"}, "--batch-wait-iters has no effect with --disaggregated"},
	} {
		code, _, errs := runCLI(t, append(base, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestServeDisaggDeterministic: the same question, the same bytes.
func TestServeDisaggDeterministic(t *testing.T) {
	args := []string{"serve", "--model", "llama3.1-8b", "--gpu", "gb200", "--concurrency", "64", "--disaggregated", "--prefill-tp", "2", "--decode-tp", "4", "--json"}
	_, a, _ := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	if a != b || !strings.Contains(a, `"scale_up": true`) {
		t.Errorf("outputs differ or the NVL72 transfer is not over NVLink:\n%s", a)
	}
}
