package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fuzzDeadline is how long one CLI call may take before the fuzzer calls
// it a hang. The slowest seed, validate (its leave-one-source-out
// refits), takes about 10 s alone and several times that under the
// fuzzer's coverage instrumentation on a loaded machine.
const fuzzDeadline = 2 * time.Minute

// slowFlags are the options documented as slow (validate --refit, and
// --leave-one-engine-out, about a minute): the fuzzer skips lines that
// ask for them, as a call past the deadline would read as a hang and
// keep running beside the next ones.
var slowFlags = []string{"-refit", "-leave-one-engine-out"}

// fuzzFiles are the placeholders a fuzzed command line may use for the
// input files, written from the fuzzed contents into a temporary folder.
var fuzzFiles = []string{"@config", "@gpu", "@cluster", "@csv"}

// fuzzSeeds are command lines over every subcommand and the flags that
// found bugs; hostileInputs adds the findings of the hostile-input run.
var fuzzSeeds = []string{
	"estimate --model meta-llama/Llama-3.1-70B --gpus 8",
	"estimate --model llama3-70b --gpus 64 --zero 3",
	"estimate --model mixtral-8x7b --tp 8 --pp 2 --gpus 16 --recompute selective --sp",
	"estimate --mode serve --model deepseek-v3 --gpus 16 --tp 8 --pp 2 --context 131072 --users 7",
	"estimate --model llama3-405b --gpus 16384 --tp 8 --pp 16 --vpp 2 --cp 2 --seq 8192 --gbs 1024",
	"estimate --model gpt3-175b --attn eager --tp 8 --pp 8 --gpus 64 --schedule gpipe --mbs 2 --gbs 128",
	"estimate --model @config --gpu @gpu --gpus 8 --json",
	"estimate --model llama3-8b --cluster @cluster --stages",
	"search --model @config --gpus 8 --top 3 --csv",
	"search --model llama3-8b --cluster @cluster --json",
	"search --model llama3-8b --max-gpus 64 --top 2 --markdown",
	"search --model llama3-8b --gpus 16 --tp 1,2 --pp 1,2 --zero 0,3 --recompute none,full --sp on,off --mbs 1,2",
	"estimate --model llama3-8b --gpus 8 --framework torchtitan --zero 3 --seq 65536 --cp 2 --recompute full --eager-cross-entropy",
	"estimate --model llama3-70b --gpus 64 --pp 4 --recompute full --recompute-method block --recompute-num-layers 5",
	"serve --model llama3.1-70b --gpu h100 --input-tokens 8192 --output-tokens 1024 --rate 10 --rounds 10",
	"serve --model deepseek-v3 --gpu b200 --engine trtllm --tp 1 --dp-attention 8 --ep 8 --adp-balance-iters 60 --batch-wait-iters 20 --batch-wait-token-ratio 0.9 --concurrency 64",
	"serve --model qwen3-235b-a22b --gpu h200 --weights-dtype fp8-block --kv-dtype fp8 --input-tokens 4096 --output-tokens 512 --concurrency 32 --engine sglang --recv-interval 30",
	"serve --model llama3.1-70b --gpu b200 --weights-dtype nvfp4 --input-tokens 1024 --output-tokens 1024 --concurrency 32 --tp 4 --decode-only-graphs",
	"serve --model llama3.1-8b --gpu h200 --engine sglang --tp 1 --input-tokens 4000 --output-tokens 1000 --concurrency 128 --rounds 6 --mixed-prefill --decode-only-graphs=false",
	"serve --model llama3.1-8b --gpu h100 --engine vllm --frontend Dynamo --disaggregated --rate 4",
	"serve --model @config --gpu @gpu --context 8192 --users 8",
	"serve --model llama3-70b --context 8192 --users 32 --json",
	"serve --model llama3.1-70b --gpu h100 --input-tokens 8192 --output-tokens 1024 --ttft 2s --tpot 40ms --rate 10 --disaggregated",
	"serve --model @config --gpu gb200 --concurrency 64 --disaggregated --prefill-tp 2 --prefill-pp 1 --decode-tp 4 --decode-pp 1 --json",
	"validate --csv @csv",
	"validate --csv @zero",
	"explain-plan tp8-pp16v2[7,7]-cp1-dp128-zero1-sp-selective-mb1",
	"explain-plan tp1-pp1-cp1-dp1-zero0-none-mb1-gpipe",
	"models", "gpus --sources", "help", "",
}

// fuzzSeedFiles are valid contents for the four files.
func fuzzSeedFiles(t interface{ Fatal(...any) }) (config, gpu, cluster, csv []byte) {
	config, err := os.ReadFile("../../costmodel/hfconfigs/meta-llama__Llama-3.1-8B.json")
	if err != nil {
		t.Fatal(err)
	}
	csv, err = os.ReadFile("../../costmodel/calibration/testdata/measured.csv")
	if err != nil {
		t.Fatal(err)
	}
	gpu = []byte(`{"name": "g", "hbm_gib": 80, "bf16_tflops": 989, "mem_bandwidth_gb_per_s": 3350, "scale_up_gb_per_s_per_direction": 450, "scale_up_domain": 8, "scale_out_gbit_per_s": 400}`)
	cluster = []byte(`{"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2}`)
	return config, gpu, cluster, csv
}

// FuzzCLI runs the whole CLI in-process on fuzzed command lines and input
// files. It fails on a panic (exit 3), a call past fuzzFiles's deadline,
// an exit code other than 0, 1 or 2, an exit 1 that is not "nothing
// fits", and a NaN, an infinity or a negative quantity in the output.
func FuzzCLI(f *testing.F) {
	// A model id the fuzzer writes must not reach the network: an empty
	// cache and a hub address nothing listens on.
	f.Setenv("HF_HOME", f.TempDir())
	f.Setenv("HF_HUB_CACHE", "")
	f.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
	// notebook install writes its kernel under $JUPYTER_DATA_DIR.
	f.Setenv("JUPYTER_DATA_DIR", f.TempDir())
	config, gpu, cluster, csv := fuzzSeedFiles(f)
	for _, s := range fuzzSeeds {
		f.Add(s, config, gpu, cluster, csv)
	}
	for _, h := range hostileInputs {
		f.Add(h.args, config, gpu, cluster, csv)
	}
	f.Add("estimate --model @config", append(config, "}x"...), gpu, cluster, csv)
	f.Add("estimate --model llama3-8b --cluster @cluster", config, gpu, []byte(`{"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2305843009213693953}`), csv)
	f.Add("estimate --model @config --mode serve --context 32768", []byte(`{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
		"num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
		"max_position_embeddings": 131072, "sliding_window": 4096}`), gpu, cluster, csv)
	f.Fuzz(func(t *testing.T, line string, config, gpu, cluster, csv []byte) {
		args, ok := fuzzArgs(t, line, [][]byte{config, gpu, cluster, csv})
		if !ok {
			return
		}
		checkRun(t, args)
	})
}

// fuzzArgs splits line into arguments and replaces the file placeholders
// by temporary files holding the fuzzed contents. Lines that name other
// paths are skipped, so the fuzzer reads no file of the machine.
func fuzzArgs(t *testing.T, line string, contents [][]byte) ([]string, bool) {
	args := strings.Fields(line)
	if len(args) > 0 && args[0] == "playground" {
		return nil, false // it serves its page until stopped
	}
	dir := t.TempDir()
	for i, a := range args {
		for _, f := range slowFlags {
			if strings.Contains(a, f) {
				return nil, false
			}
		}
		if a == "@zero" {
			args[i] = "/dev/zero"
			continue
		}
		for j, name := range fuzzFiles {
			if strings.Contains(a, name) {
				p := filepath.Join(dir, name[1:]+".json")
				if err := os.WriteFile(p, contents[j], 0o644); err != nil {
					t.Fatal(err)
				}
				a = strings.ReplaceAll(a, name, p)
			}
		}
		if a == args[i] && (strings.ContainsAny(a, `/\`) || strings.HasSuffix(strings.ToLower(a), ".json")) {
			return nil, false
		}
		args[i] = a
	}
	return args, true
}

// badQuantity matches NaN, infinities and negative quantities with a unit
// in human output ("-3.2 GB", "-1.5 ms", "-4%"); signed changes such as
// "+3.1%" and plan strings ("tp8-pp2") do not match.
var badQuantity = regexp.MustCompile(`\bNaN\b|[+-]Inf\b|(^|[\s(=:,])-\d[\d.,]*\s?([kMGTPE]?(B|FLOP|B/s)|s|ms|µs|%)(\W|$)`)

// checkRun runs args under the deadline and checks the outcome.
func checkRun(t *testing.T, args []string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(fuzzDeadline):
		t.Fatalf("planner %s: no answer after %v", strings.Join(args, " "), fuzzDeadline)
	}
	line := strings.Join(args, " ")
	switch {
	case code == exitBug:
		t.Fatalf("planner %s: panic:\n%s", line, errb.String())
	case code < 0 || code > exitUsage:
		t.Fatalf("planner %s: exit %d", line, code)
	case code == exitFail && !strings.Contains(errb.String(), "nothing fits") && !strings.Contains(errb.String(), "cannot be reached"):
		t.Fatalf("planner %s: exit 1 without an answer: %s", line, errb.String())
	}
	for _, l := range logicalLines(out.String()) {
		if m := badQuantity.FindString(l); m != "" && !signedOnPurpose(args, l, m) {
			t.Fatalf("planner %s: output holds %q in %q", line, m, l)
		}
	}
}

// logicalLines joins each header field's wrapped continuation lines
// (indented past the nine-column label, as field writes them) to the
// line they continue, so a figure and the words that say it is signed
// are judged together.
func logicalLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if n := len(lines); n > 0 && strings.HasPrefix(l, "         ") && !strings.HasPrefix(lines[n-1], " ") {
			lines[n-1] += " " + strings.TrimSpace(l)
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// signedOnPurpose reports negative figures that are the answer: a
// headroom below zero is by how much a plan is over its budget, and
// validate's relative errors are signed, as are the accuracy line's
// signed medians. NaN and infinities never are.
func signedOnPurpose(args []string, l, m string) bool {
	if strings.Contains(m, "NaN") || strings.Contains(m, "Inf") {
		return false
	}
	l = strings.TrimSpace(l)
	return len(args) > 0 && args[0] == "validate" || strings.HasPrefix(l, "headroom") || strings.Contains(l, "does NOT fit") ||
		strings.Contains(l, "signed median") || strings.HasPrefix(l, "accuracy ") && strings.Contains(l, "(signed ")
}
