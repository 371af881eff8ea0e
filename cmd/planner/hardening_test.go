package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is one hostile input: the command line, the exit code it must
// give and a phrase its stderr must hold.
type hostile struct {
	args string
	code int
	want string
}

// hostileInputs are the findings of a hostile-input run, each with the
// answer it must now give. The fuzzer seeds its corpus with them.
var hostileInputs = []hostile{
	{"search --model llama3-8b --gpus 8 --top 9223372036854775807", 2, "--top 9223372036854775807 is not in [1, 1000]"},
	{"search --model llama3-8b --gpus 8 --top 100000000", 2, "is not in [1, 1000]"},
	{"serve --model llama3-8b --top 100000000", 2, "--top 100000000 is not in [0, 1000]"},
	{"estimate --model llama3-8b --nodes 2305843009213693953", 2, "2305843009213693953 nodes of 8 GPUs is not in [1, 1048576] GPUs"},
	{"search --model llama3-8b --nodes 2305843009213693953", 2, "2305843009213693953 nodes"},
	{"serve --model llama3-8b --users 10000", 0, ""},
	{"serve --model llama3.1-8b --rate 1e12", 2, "rate 1e+12 is not in (0, 1e+09] requests/s"},
	{"serve --model llama3.1-8b --concurrency 2e9", 2, "concurrency 2e+09 is not in (0, 1073741824] requests in flight"},
	{"estimate --model llama3-8b --pp 33", 2, "pp=33 exceeds the 32 layers"},
	{"estimate --model llama3-8b --tp abc", 2, `--tp "abc": want an integer`},
	{"estimate --model llama3-8b --sp=maybe", 2, `--sp "maybe": want true or false`},
	{"estimate --model llama3-8b --tpp 2", 2, "--tpp (did you mean --pp?)"},
	{"estimate --model llama3-8b --cp 3", 2, "cp=3 does not split seq=4096 into 2*cp equal chunks (valid cp: 1, 2, 4, 8, 16, 32, 64, ...)"},
	{"search --model llama3-8b --gpus 8 --cp 3", 2, "(valid cp: 1, 2, 4, 8, 16, 32, 64, ...)"},
	{"estimate --model llama3-8b --gpus 0", 2, "--gpus 0 is not a GPU count"},
	{"estimate --model llama3-8b --nodes 0", 2, "--nodes 0 is not a node count"},
	{"estimate --model llama3-8b --sp", 2, "--sp has no effect with --tp 1"},
	{"estimate --model llama3-8b --mode serve --zero 1", 2, "--zero has no effect with --mode serve (it is a training flag)"},
	{"estimate --model llama3-8b --mode serve --stages", 2, "--stages has no effect with --mode serve"},
	{"estimate --model llama3-8b --users 4", 2, "--users has no effect with --mode train (it is a serving flag; add --mode serve)"},
	{"estimate --model llama3-8b --mode serve --tp 2 --users 4", 0, ""},
	{"estimate --model llama3-8b --cuda-context-gb 1e300", 2, "--cuda-context-gb 1e+300 is not in [0, 1000]"},
	{"estimate --model llama3-8b --nccl-mib 1e300", 2, "--nccl-mib 1e+300 is not in [0, 1e+06]"},
	{"estimate --model llama3-8b --kernel-overhead-us 1e300", 2, "--kernel-overhead-us 1e+300 is not in [0, 1e+06]"},
	{"serve --model llama3-8b --network-us NaN", 2, "--network-us NaN is not in [0, 1e+06]"},
	{"search --model llama3-8b --hbm-fraction 0.01", 1, "a budget of 855 MB per GPU (1% of 85.5 GB) leaves no room beside the CUDA context"},
	{"search --model llama3-405b --gpu l40s --max-gpus 8", 1, "above the 8 searched (raise --max-gpus"},
	{"search --model llama3-405b --gpus 8", 1, "nothing fits"},
	{"serve --model llama3.1-405b --gpus 1", 1, "nothing fits"},
	{"estimate --model llama3-8b --pp 10 --gpus 10 --gpus-per-node 1", 0, ""},
}

func runLine(t *testing.T, line string) (int, string, string) {
	t.Helper()
	return runCLI(t, strings.Fields(line)...)
}

func TestHostileInputs(t *testing.T) {
	for _, h := range hostileInputs {
		code, _, errs := runLine(t, h.args)
		if code != h.code || !strings.Contains(errs, h.want) {
			t.Errorf("planner %s: exit %d, stderr %q; want exit %d and %q", h.args, code, errs, h.code, h.want)
		}
	}
}

// TestPanicExits3: a panic is reported as a bug with exit 3, not as bad
// input.
func TestPanicExits3(t *testing.T) {
	commands["panic-test"] = command{"", func([]string, io.Writer, io.Writer) error { panic("boom") }}
	defer delete(commands, "panic-test")
	code, _, errs := runCLI(t, "panic-test")
	if code != exitBug || !strings.Contains(errs, "internal error") || !strings.Contains(errs, "boom") {
		t.Errorf("exit %d, stderr %.200q", code, errs)
	}
}

// writeTempFile writes content to a file named name in a fresh directory.
func writeTempFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClusterFileExcludesCountFlags: a cluster file names the hardware,
// so --gpus, --nodes, --gpus-per-node and --gpu beside it are refused.
func TestClusterFileExcludesCountFlags(t *testing.T) {
	p := writeTempFile(t, "cluster.json", `{"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2}`)
	for _, cmd := range []string{"estimate", "search"} {
		for _, extra := range []string{"--gpus", "--nodes", "--gpus-per-node"} {
			code, _, errs := runCLI(t, cmd, "--model", "llama3-8b", "--cluster", p, extra, "8")
			if code != 2 || !strings.Contains(errs, "--cluster and "+extra+" exclude each other") {
				t.Errorf("%s --cluster %s 8: exit %d, stderr %q", cmd, extra, code, errs)
			}
		}
	}
}

// TestClusterFileOverflow: a cluster file whose nodes x GPUs per node
// overflows is refused, not answered for a wrapped count.
func TestClusterFileOverflow(t *testing.T) {
	p := writeTempFile(t, "cluster.json", `{"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2305843009213693953}`)
	for _, cmd := range []string{"estimate", "search"} {
		code, _, errs := runCLI(t, cmd, "--model", "llama3-8b", "--cluster", p)
		if code != 2 || !strings.Contains(errs, "2305843009213693953 nodes") {
			t.Errorf("%s --cluster: exit %d, stderr %q", cmd, code, errs)
		}
	}
}

// TestFlagTypoIsShort: a bad flag value prints one line naming the flag,
// the value and what is valid, and where help is; not the whole usage.
func TestFlagTypoIsShort(t *testing.T) {
	for _, line := range []string{"estimate --model llama3-8b --tp abc", "search --model llama3-8b --zero x", "serve --model llama3-8b --users many", "validate --bogus",
		"export --model llama3-8b --to megatron --gpus 8", "export --model llama3-8b --to megatron tp2-pp1-cp1-dp4-zero1-none-mb1 --sq 5"} {
		code, _, errs := runLine(t, line)
		cmd := strings.Fields(line)[0]
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != 2 || len(lines) != 2 || lines[1] != "run planner "+cmd+" -h for help" {
			t.Errorf("planner %s: exit %d, stderr %q", line, code, errs)
		}
	}
}

func TestExplainPlan(t *testing.T) {
	code, out, errs := runCLI(t, "explain-plan", "tp2-pp4[7,9]-cp1-dp1-zero3-full-mb1-gpipe")
	for _, want := range []string{"over 2 GPUs", "in 4 stages", "7 layers on the first stage and 9 on the last", "over 1 GPU\n", "1 replica,",
		"ZeRO 3 (FSDP)", "full recompute", "micro-batches of 1 sequence\n", "GPipe schedule", "= 8\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stderr %q: output lacks %q:\n%s", code, errs, want, out)
		}
	}
	for _, bad := range []string{"tp8", "tp0-pp1-cp1-dp1-zero0-none-mb1", "tp1-pp1-cp1-dp1-zero4-none-mb1", ""} {
		if code, _, _ := runCLI(t, "explain-plan", bad); code != 2 {
			t.Errorf("explain-plan %q: exit %d, want 2", bad, code)
		}
	}
}

// TestExplainRecomputeModules: a selective[...] part names the modules,
// on lines within the text width; the estimate's inventory and JSON
// carry them.
func TestExplainRecomputeModules(t *testing.T) {
	code, out, errs := runCLI(t, "explain-plan", "tp1-pp8v2-cp1-dp32-ep32-zero1-selective[mla_up_proj,mlp]-mb1")
	if code != 0 || !strings.Contains(out, "  selective[mla_up_proj,mlp]\n") || !strings.Contains(out, "modules mla_up_proj,mlp") {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > textWidth {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	_, out, _ = runLine(t, "estimate --model deepseek-v3 --gpu b200 --gpus 256 --pp 8 --vpp 2 --ep 32 --zero 1 --recompute selective --recompute-modules mla_up_proj,mlp --gbs 2048")
	if !strings.Contains(out, "recomputed, not") || !strings.Contains(out, "queries Q 201 MB") {
		t.Errorf("inventory lacks the recomputed tensors:\n%s", out)
	}
	_, out, _ = runLine(t, "estimate --model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --zero 1 --recompute selective --recompute-modules moe_act")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "48 MoE layer-micro-batches in flight") ||
		!strings.Contains(flat, "recomputed, not saved: expert down") {
		t.Errorf("MoE line under moe_act:\n%s", out)
	}
	_, out, _ = runLine(t, "estimate --model deepseek-v3 --gpu b200 --gpus 256 --pp 8 --vpp 2 --ep 32 --zero 1 --recompute selective --recompute-modules mla_up_proj,mlp --gbs 2048 --json")
	if !strings.Contains(out, `"recompute_modules": "mla_up_proj,mlp"`) {
		t.Errorf("JSON lacks recompute_modules")
	}
}

// TestStagesNumberedAsJSON: the text numbers pipeline stages from 0, as
// the JSON does, and says so.
func TestStagesNumberedAsJSON(t *testing.T) {
	_, out, _ := runLine(t, "estimate --model llama3-70b --tp 8 --pp 4 --gpus 32 --stages")
	for _, want := range []string{"pipeline stage 0 of 0-3 (the most loaded)", "numbered from 0 as in --json", "pipeline stage 3 of 0-3 (the slowest)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestTextWidth: the search output keeps to 100 columns by default when
// its plan strings are of usual length; --wide adds the GPUs and
// exposed-communication columns.
func TestTextWidth(t *testing.T) {
	for _, line := range []string{"search --model llama3-8b --gpus 8", "search --model llama3-405b --gpus 128", "search --model llama3-405b --max-gpus 512 --top 3"} {
		_, out, _ := runLine(t, line)
		for _, l := range strings.Split(out, "\n") {
			if n := len([]rune(l)); n > textWidth {
				t.Errorf("planner %s: %d columns: %q", line, n, l)
			}
		}
	}
	_, out, _ := runLine(t, "search --model llama3-8b --gpus 8 --wide")
	if !strings.Contains(out, "exposed comm") {
		t.Error("--wide lacks the exposed comm column")
	}
}

func TestWrapText(t *testing.T) {
	got := wrapText("aaa bbb ccc ddd", 9, "  ")
	if want := "aaa bbb\n  ccc ddd"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
