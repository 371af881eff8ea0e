package launch

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// names reads a name list from testdata and checks that its header names
// the commit the exporter pins.
func names(t *testing.T, file, commit string) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set, pinned := map[string]bool{}, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# commit: ") {
			pinned = pinned || strings.TrimPrefix(line, "# commit: ") == commit
			continue
		}
		if !strings.HasPrefix(line, "#") && line != "" {
			set[line] = true
		}
	}
	if !pinned {
		t.Errorf("%s: header does not name commit %s", file, commit)
	}
	if len(set) < 50 {
		t.Errorf("%s: %d names, too few to be the real list", file, len(set))
	}
	return set
}

// job builds the export input of a plan string for a catalog model.
func job(t *testing.T, model, plan string, seq, gbs int) Job {
	t.Helper()
	m, err := costmodel.LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	p, err := costmodel.ParsePlan(plan, costmodel.Plan{Seq: seq, GlobalBatch: gbs})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.Normalize(m, 0); err != nil {
		t.Fatal(err)
	}
	return Job{Model: m, Plan: p, Assumptions: costmodel.DefaultAssumptions()}
}

// plans cover interleaving with uneven and even splits, cp, sp, every
// ZeRO stage and recompute policy.
var plans = []struct{ model, plan string }{
	{"llama3-405b", "tp8-pp8v4[15,15]-cp2-dp8-zero1-sp-none-mb1"},
	{"llama3-405b", "tp8-pp16v2-cp1-dp1-zero1-sp-selective-mb1"},
	{"llama3-405b", "tp8-pp9-cp1-dp2-zero1-sp-full-mb1"},
	{"llama3-70b", "tp8-pp4v2-cp2-dp2-zero3-sp-full-mb1"},
	{"llama3-70b", "tp4-pp2[39,41]-cp2-dp4-zero2-sp-selective-mb2"},
	{"llama3-70b", "tp1-pp1-cp1-dp64-zero3-full-mb1"},
	{"llama3-70b", "tp1-pp1-cp1-dp64-zero0-none-mb1"},
	{"llama3-70b", "tp1-pp1-cp1-dp64-zero2-full-mb2"},
	{"deepseek-v3", "tp1-pp8v2-cp1-dp32-ep32-zero1-selective[mla_up_proj,mlp]-mb1"},
}

// TestNamesAreTheFrameworks: every flag or key any export writes is one
// the framework defines at the pinned commit.
func TestNamesAreTheFrameworks(t *testing.T) {
	lists := map[Framework]map[string]bool{
		Megatron:   names(t, "megatron_names.txt", MegatronCommit),
		TorchTitan: names(t, "torchtitan_names.txt", TorchTitanCommit),
		NeMo:       names(t, "bridge_names.txt", BridgeCommit),
		DeepSpeed:  names(t, "deepspeed_names.txt", DeepSpeedCommit),
	}
	// The check can fail: names the frameworks do not define are caught.
	for f, bad := range map[Framework]string{Megatron: "--tensor-parallel-size", TorchTitan: "parallelism.sequence_parallel_degree",
		NeMo: "model.tp_size", DeepSpeed: "zero_optimization.stage4_bucket"} {
		if known(lists[f], f, bad) {
			t.Errorf("%s: %q passes the name check", f, bad)
		}
	}
	written := map[Framework]int{}
	for _, tt := range plans {
		for _, prec := range []costmodel.Precision{costmodel.BF16, costmodel.FP8, costmodel.FP16} {
			j := job(t, tt.model, tt.plan, 8192, 2048)
			j.Plan.Precision = prec
			checkNames(t, lists, j, written)
		}
	}
	for _, f := range Frameworks() {
		if written[f] == 0 {
			t.Errorf("%s: no plan exported, nothing checked", f)
		}
	}
}

// checkNames exports j to every framework and checks the names written.
func checkNames(t *testing.T, lists map[Framework]map[string]bool, j Job, written map[Framework]int) {
	t.Helper()
	for _, f := range Frameworks() {
		c, err := Export(f, j)
		var u *Unsupported
		if errors.As(err, &u) {
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", f, j.Plan, err)
		}
		written[f]++
		for _, k := range c.Keys {
			if !known(lists[f], f, k) {
				t.Errorf("%s %s (%s) writes %q, which %s does not define", f, j.Plan, j.Plan.Precision, k, f)
			}
		}
	}
}

// known checks one key: DeepSpeed's sections other than ZeRO are checked
// by their components (the constants are flat), the rest exactly.
func known(list map[string]bool, f Framework, key string) bool {
	if f != DeepSpeed || strings.HasPrefix(key, "zero_optimization") || strings.HasPrefix(key, "activation_checkpointing") {
		return list[key]
	}
	for _, part := range strings.Split(key, ".") {
		if !list[part] {
			return false
		}
	}
	return true
}

// TestUnsupported: plans a framework cannot run say so and why.
func TestUnsupported(t *testing.T) {
	for _, tt := range []struct {
		f          Framework
		plan, want string
	}{
		{DeepSpeed, "tp8-pp8v4[15,15]-cp2-dp8-zero1-sp-none-mb1", "context parallelism"},
		{DeepSpeed, "tp8-pp16v2-cp1-dp1-zero1-sp-selective-mb1", "tp and pp"},
		{TorchTitan, "tp8-pp16v2-cp1-dp1-zero1-sp-selective-mb1", "no ZeRO-1"},
		{TorchTitan, "tp8-pp9-cp1-dp2-zero3-full-mb1", "sequence parallelism"},
		{Megatron, "tp8-pp9-cp1-dp2-zero1-sp-full-mb1-gpipe", "GPipe"},
		{Megatron, "tp8-pp8-cp1-dp2-zero1-sp-opsac-mb1", "op-level selective"},
		{NeMo, "tp8-pp8-cp1-dp2-zero1-sp-opsac-mb1", "op-level selective"},
		{DeepSpeed, "tp1-pp1-cp1-dp128-zero2-opsac-mb1", "whole layers"},
		{TorchTitan, "tp8-pp1-cp1-dp256-zero3-sp-selective[layernorm]-mb1", "not Megatron's modules (layernorm)"},
	} {
		j := job(t, "llama3-405b", tt.plan, 8192, 2048)
		_, err := Export(tt.f, j)
		var u *Unsupported
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), j.Plan.String()) {
			t.Errorf("%s %s: %v; want Unsupported naming the plan and %q", tt.f, tt.plan, err, tt.want)
		}
	}
}

// TestMegatronInterleavedCP: the headline plan (interleaved, uneven end
// stages, cp 2) uses the layout flag, whose chunks add up to the model.
func TestMegatronInterleavedCP(t *testing.T) {
	j := job(t, "llama3-405b", "tp8-pp8v4[15,15]-cp2-dp8-zero1-sp-none-mb1", 8192, 2048)
	c, err := Export(Megatron, j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--context-parallel-size 2", "--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 8",
		"--sequence-parallel", "--use-distributed-optimizer", "--pipeline-model-parallel-layout "} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("export lacks %q:\n%s", want, c.Text)
		}
	}
	layout := regexp.MustCompile(`--pipeline-model-parallel-layout (\S+)`).FindStringSubmatch(c.Text)[1]
	stages := strings.Split(unroll(layout), "|")
	if len(stages) != 8*4 {
		t.Errorf("layout %s has %d chunks, want 32", layout, len(stages))
	}
	first, last := 0, 0
	for i := 0; i < 4; i++ {
		first += strings.Count(stages[i*8], "t")
		last += strings.Count(stages[i*8+7], "t")
	}
	if n := strings.Count(unroll(layout), "t"); n != 126 || first != 15 || last != 15 {
		t.Errorf("layout %s: %d layers, first stage %d, last %d; want 126, 15, 15", layout, n, first, last)
	}
	even, err := Export(Megatron, job(t, "llama3-405b", "tp8-pp9v2-cp2-dp1-zero1-sp-none-mb1", 8192, 2048))
	if err != nil || !strings.Contains(even.Text, "--num-virtual-stages-per-pipeline-rank 2") {
		t.Errorf("even interleaved split: %v\n%s", err, even.Text)
	}
}

// unroll expands Megatron's layout repetitions, (x)*n and c*n.
func unroll(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	for _, re := range []*regexp.Regexp{regexp.MustCompile(`\(([^)]+)\)\*(\d+)`), regexp.MustCompile(`(.)\*(\d+)`)} {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatch(m)
			n, _ := strconv.Atoi(g[2])
			return strings.Repeat(g[1], n)
		})
	}
	return s
}

// TestTorchTitanSplit: the less-layers keys reproduce the plan's stages.
func TestTorchTitanSplit(t *testing.T) {
	j := job(t, "llama3-70b", "tp4-pp2[39,41]-cp2-dp4-zero2-sp-selective-mb2", 8192, 256)
	// pp 2: chunks of ceil(80/2) = 40 layers; the first holds 39 (1 less),
	// the last 41 (heavier), which torchtitan cannot express.
	var u *Unsupported
	if _, err := Export(TorchTitan, j); !errors.As(err, &u) {
		t.Errorf("a heavier last stage: %v, want Unsupported", err)
	}
	j = job(t, "llama3-70b", "tp4-pp4[19,19]-cp2-dp2-zero3-sp-full-mb1", 8192, 256)
	c, err := Export(TorchTitan, j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pipeline_parallel_layers_per_stage = 21", "pipeline_parallel_first_stage_less_layers = 2",
		"pipeline_parallel_last_stage_less_layers = 2", `fsdp_reshard_after_forward = "always"`, "local_batch_size = 128"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("torchtitan export lacks %q:\n%s", want, c.Text)
		}
	}
}

// TestTorchTitanOpSAC: op-level selective checkpointing is torchtitan's
// selective mode with selective_ac_option "op".
func TestTorchTitanOpSAC(t *testing.T) {
	j := job(t, "llama3-70b", "tp8-pp1-cp1-dp8-zero3-sp-opsac-mb1", 8192, 256)
	c, err := Export(TorchTitan, j)
	if err != nil || !strings.Contains(c.Text, `mode = "selective"`) || !strings.Contains(c.Text, `selective_ac_option = "op"`) {
		t.Errorf("opsac: %v\n%s", err, c.Text)
	}
}

// TestRecomputeModulesExport: Megatron-LM takes the modules as
// separate arguments of --recompute-modules (nargs='*',
// megatron/training/arguments.py), Megatron-Bridge as a list.
func TestRecomputeModulesExport(t *testing.T) {
	j := job(t, "deepseek-v3", "tp1-pp8v2-cp1-dp32-ep32-zero1-selective[mla_up_proj,mlp]-mb1", 4096, 2048)
	for f, want := range map[Framework]string{
		Megatron: "--recompute-granularity selective\n  --recompute-modules mla_up_proj mlp\n",
		NeMo:     "model.recompute_modules=[mla_up_proj,mlp]",
	} {
		c, err := Export(f, j)
		if err != nil || !strings.Contains(c.Text, want) {
			t.Errorf("%s: %v, want %q in\n%s", f, err, want, c.Text)
		}
	}
	j = job(t, "llama3-70b", "tp4-pp2[39,41]-cp2-dp4-zero2-sp-selective-mb2", 8192, 256)
	if c, err := Export(Megatron, j); err != nil || !strings.Contains(c.Text, "--recompute-modules core_attn\n") {
		t.Errorf("default selective: %v\n%s", err, c.Text)
	}
}

// TestTorchTitanFP8: fp8 is the float8 converter, a TOML list.
func TestTorchTitanFP8(t *testing.T) {
	j := job(t, "llama3-70b", "tp8-pp1-cp1-dp8-zero3-sp-full-mb1", 8192, 256)
	j.Plan.Precision = costmodel.FP8
	c, err := Export(TorchTitan, j)
	if err != nil || !strings.Contains(c.Text, `converters = ["float8"]`) {
		t.Errorf("fp8: %v\n%s", err, c.Text)
	}
}

// TestUnsupportedActivationOffload: no export drops the activation
// offload without saying so.
func TestUnsupportedActivationOffload(t *testing.T) {
	j := job(t, "llama3-8b", "tp1-pp1-cp1-dp8-zero1-none-mb1", 8192, 8)
	j.Plan.OffloadActivationLayers = 4
	for _, f := range []Framework{Megatron, NeMo, TorchTitan, DeepSpeed} {
		_, err := Export(f, j)
		var u *Unsupported
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "activation offload of 4 layers") {
			t.Errorf("%s: %v; want Unsupported naming the activation offload", f, err)
		}
	}
}

// TestPartialRecomputeExport: Megatron-LM and Megatron-Bridge take the
// method and the layer count of a partial full recompute
// (--recompute-method, --recompute-num-layers); plain full is uniform
// groups of one layer; torchtitan and DeepSpeed cannot say which layers.
func TestPartialRecomputeExport(t *testing.T) {
	j := job(t, "llama3-70b", "tp8-pp4v2-cp1-dp2-zero1-sp-full[block3]-mb1", 8192, 256)
	for f, want := range map[Framework]string{
		Megatron: "--recompute-granularity full\n  --recompute-method block\n  --recompute-num-layers 3\n",
		NeMo:     "model.recompute_granularity=full\nmodel.recompute_method=block\nmodel.recompute_num_layers=3\n",
	} {
		c, err := Export(f, j)
		if err != nil || !strings.Contains(c.Text, want) {
			t.Errorf("%s: %v, want %q in\n%s", f, err, want, c.Text)
		}
	}
	dp := job(t, "llama3-8b", "tp1-pp1-cp1-dp8-zero3-full[block3]-mb1", 8192, 64)
	for _, f := range []Framework{TorchTitan, DeepSpeed} {
		if _, err := Export(f, dp); err == nil || !strings.Contains(err.Error(), "checkpoint") {
			t.Errorf("%s: %v, want it refused for the partial recompute", f, err)
		}
	}
	j = job(t, "llama3-70b", "tp8-pp4-cp1-dp2-zero1-sp-full[uniform2]-mb1", 8192, 256)
	if c, err := Export(Megatron, j); err != nil || !strings.Contains(c.Text, "--recompute-method uniform\n  --recompute-num-layers 2\n") {
		t.Errorf("uniform 2: %v\n%s", err, c.Text)
	}
	j = job(t, "llama3-70b", "tp8-pp4-cp1-dp2-zero1-sp-full-mb1", 8192, 256)
	if c, err := Export(NeMo, j); err != nil || !strings.Contains(c.Text, "model.recompute_method=uniform\nmodel.recompute_num_layers=1\n") {
		t.Errorf("full: %v\n%s", err, c.Text)
	}
}
