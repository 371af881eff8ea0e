package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestSearchBadInput: every bad search input exits 2 with a message that
// names the value.
func TestSearchBadInput(t *testing.T) {
	base := []string{"search", "--model", "llama3-405b"}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "0"}, "--gpus 0 is not a GPU count"},
		{[]string{"--nodes", "0"}, "--nodes 0 is not a node count"},
		{[]string{"--gpus", "128", "--zero", "5"}, "zero=5 is not in [0, 3]"},
		{[]string{"--gpus", "128", "--zero", "1,x"}, `"x" is not an integer`},
		{[]string{"--gpus", "128", "--tp", "3"}, "tp=3 does not divide the 128 attention heads"},
		{[]string{"--gpus", "128", "--pp", "6"}, "pp=6 does not divide 128 GPUs"},
		{[]string{"--gpus", "128", "--pp", "200"}, "pp=200 is not in [1, 126]"},
		{[]string{"--gpus", "128", "--cp", "3"}, "cp=3 does not split seq=8192"},
		{[]string{"--gpus", "128", "--mbs", "3"}, "mbs=3 does not divide the global batch of 2048"},
		{[]string{"--gpus", "128", "--mbs", "0"}, "mbs=0 is not in [1, 2048]"},
		{[]string{"--gpus", "128", "--vpp", "0"}, "vpp=0 is not in [1, 126]"},
		{[]string{"--gpus", "128", "--mid-extra", "-1"}, "mid-extra=-1 is not in [0, 126]"},
		{[]string{"--gpus", "128", "--end-shift", "200"}, "end-shift=200 is not in [-125, 125]"},
		{[]string{"--gpus", "128", "--vpp", "70"}, "vpp=70 leaves no pp a split of the 126 layers"},
		{[]string{"--gpus", "128", "--recompute", "some"}, `unknown recompute "some"`},
		{[]string{"--gpus", "128", "--sp", "maybe"}, `"maybe" is not on or off`},
		{[]string{"--gpus", "12"}, "not a whole number of 8-GPU nodes"},
		{[]string{"--gpus", "128", "--gbs", "64", "--gbs-tokens", "524288"}, "--gbs and --gbs-tokens are alternatives"},
		{[]string{"--gpus", "128", "--gbs-tokens", "1000"}, "--gbs-tokens 1000 is not a whole number of 8192-token sequences"},
		{[]string{"--gpus", "128", "--gbs", "0"}, "gbs=0"},
		{[]string{"--gpus", "128", "--seq", "0"}, "--seq 0"},
		{[]string{"--gpus", "128", "--top", "0"}, "--top 0"},
		{[]string{"--gpus", "128", "--max-gpus", "256"}, "--max-gpus and --granularity belong to the fewest-gpus search"},
		{[]string{"--gpus", "128", "--objective", "fewest-gpus"}, "--objective fewest-gpus searches the GPU count"},
		{[]string{"--objective", "throughput"}, "--objective throughput ranks plans on a GPU count"},
		{[]string{"--objective", "speed"}, `--objective "speed"`},
		{[]string{"--granularity", "rack"}, `--granularity "rack"`},
		{[]string{"--max-gpus", "0"}, "--max-gpus 0"},
		{[]string{"--gpus", "128", "--json", "--csv"}, "alternatives; give one"},
		{[]string{"--gpus", "8", "--gpu", "a100", "--precision", "fp8"}, "a100-80gb has no FP8"},
		{[]string{"--gpus", "8", "--hbm-fraction", "0"}, "HBM fraction 0"},
		{[]string{"--gpus", "8", "--task", "sft"}, `unknown task "sft" (valid: pretrain, full, lora, qlora)`},
		{[]string{"--gpus", "8", "--lora-rank", "8"}, "--lora-rank needs --task lora or qlora, not pretrain"},
		{[]string{"--gpus", "8", "--task", "lora", "--lora-rank", "0"}, "--lora-rank 0 must be at least 1"},
		{[]string{"--gpus", "8", "--task", "lora", "--lora-targets", "q,w"}, `unknown LoRA target "w"`},
		{[]string{"--gpus", "8", "--task", "qlora", "--base-dtype", "bf16"}, "qlora's base is nf4"},
		{[]string{"--gpus", "8", "--task", "lora", "--base-dtype", "int4"}, `unknown base dtype "int4" (valid: bf16, fp8, nf4)`},
		{[]string{"--gpus", "8", "--offload", "disk"}, `unknown offload "disk" (valid: none, optimizer, params)`},
		{[]string{"--gpus", "8", "--seq", "4096", "--packed-sample-tokens", "8192"}, "--packed-sample-tokens 8192 is more than --seq 4096"},
		{[]string{"--gpus", "8", "--packed-sample-tokens", "200", "--attn", "eager"}, "--packed-sample-tokens 200 needs --attn flash"},
		{[]string{"--gpus", "8", "--packed-sample-tokens", "-2"}, "--packed-sample-tokens -2 is negative"},
		{[]string{"--gpus", "8", "--offload", "params", "--zero", "2"}, "zero 2 cannot run offload params (valid: 3)"},
	}
	for _, tt := range tests {
		args := append(append([]string{}, base...), tt.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("planner %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, errs, tt.want)
		}
	}
	if code, _, errs := runCLI(t, "search"); code != 2 || !strings.Contains(errs, "--model is required") {
		t.Errorf("search without --model: exit %d, %q", code, errs)
	}
}

// TestSearchOutputsAgree: the text, JSON, CSV and Markdown outputs rank
// the same plans, JSON and CSV in raw base units, and the same input
// gives the same bytes.
func TestSearchOutputsAgree(t *testing.T) {
	args := []string{"search", "--model", "llama3-70b", "--gpus", "64", "--top", "4"}
	outs := map[string]string{}
	for _, format := range []string{"", "--json", "--csv", "--markdown"} {
		a := append(append([]string{}, args...), format)
		if format == "" {
			a = args
		}
		code, out, errs := runCLI(t, a...)
		_, again, _ := runCLI(t, a...)
		if code != 0 || out != again {
			t.Fatalf("planner %s: exit %d (%s); same output twice: %v", strings.Join(a, " "), code, errs, out == again)
		}
		outs[format] = out
	}
	var res struct {
		Plans []struct {
			PlanString string  `json:"plan_string"`
			Peak       float64 `json:"peak_bytes"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(outs["--json"]), &res); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(outs["--csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 4 {
		t.Fatalf("%d plans in JSON", len(res.Plans))
	}
	for i, p := range res.Plans {
		row := rows[i+1]
		if row[0] != "plan" || row[2] != p.PlanString || row[6] != jsonNumber(p.Peak) {
			t.Errorf("plan %d: CSV row %v, JSON %s %v", i+1, row, p.PlanString, p.Peak)
		}
		if !strings.Contains(outs[""], "  "+p.PlanString+" ") || !strings.Contains(outs["--markdown"], "`"+p.PlanString+"`") {
			t.Errorf("plan %d %s missing from the text or Markdown", i+1, p.PlanString)
		}
		if p.Peak < 1e9 || p.Peak != float64(int64(p.Peak)) {
			t.Errorf("JSON peak %v is not raw integer bytes", p.Peak)
		}
	}
	for _, row := range rows[1:] {
		if row[0] == "counts" && row[16] == "considered" && !strings.Contains(outs[""], hardware.Thousands(atoi(t, row[17]))+" candidates considered") {
			t.Errorf("CSV considered %s is not the text's", row[17])
		}
	}
}

func jsonNumber(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func atoi(t *testing.T, s string) int {
	var n int
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("%q is not a count", s)
		}
		n = 10*n + int(c-'0')
	}
	return n
}

func TestSearchJSON(t *testing.T) {
	code, out, errs := runCLI(t, "search", "--model", "llama3-8b", "--gpus", "8", "--top", "2", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	golden(t, "search_json", out)
}

// BenchmarkSearchCommand is the headline command, printing included:
// planner search --model llama3-405b --gpus 128.
func BenchmarkSearchCommand(b *testing.B) {
	for b.Loop() {
		if code := run([]string{"search", "--model", "llama3-405b", "--gpus", "128"}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// FuzzSearchAxes: whatever an axis flag is given, search answers (exit
// 0), says that nothing fits (exit 1, as FuzzCLI allows), or rejects it
// with a message (exit 2); it never panics or fails otherwise.
func FuzzSearchAxes(f *testing.F) {
	for _, seed := range []struct {
		axis  uint8
		value string
	}{{0, "8"}, {0, "1,2,4,8,16"}, {1, "1,2,3"}, {2, "2"}, {3, "1,2"}, {4, "0,1"}, {5, "1,3"}, {6, "none,full"},
		{7, "on,off"}, {8, "1,2"}, {0, "-1"}, {5, "9"}, {8, ""}, {1, "4096"}, {7, "ON"}, {3, "1048577"}} {
		f.Add(seed.axis, seed.value)
	}
	axes := []string{"tp", "pp", "vpp", "cp", "mid-extra", "zero", "recompute", "sp", "mbs"}
	f.Fuzz(func(t *testing.T, axis uint8, value string) {
		name := axes[int(axis)%len(axes)]
		var errb strings.Builder
		code := run([]string{"search", "--model", "llama3-8b", "--gpus", "8", "--seq", "4096", "--gbs", "64", "--" + name, value}, io.Discard, &errb)
		nothingFits := code == 1 && strings.Contains(errb.String(), "nothing fits")
		if code != 0 && !nothingFits && (code != 2 || errb.Len() == 0) {
			t.Errorf("--%s %q: exit %d, stderr %q", name, value, code, errb.String())
		}
	})
}
