package launch

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestExpertDegrees: unset degrees read as 1; a Megatron-LM export of
// DeepSeek-V3 with interleaving, cp and ep writes the expert flag, and
// every flag it writes is one Megatron-LM defines.
func TestExpertDegrees(t *testing.T) {
	if ep, etp := expertDegrees(costmodel.Plan{}); ep != 1 || etp != 1 || expertSplit(costmodel.Plan{}) {
		t.Errorf("unset EP read as %d, %d; want 1, 1", ep, etp)
	}
	var a args
	expertArgs(&a, Job{}, "--expert-model-parallel-size", "--expert-tensor-parallel-size")
	if len(a) != 0 {
		t.Errorf("no experts split, yet %v written", a)
	}
	m, _ := costmodel.LookupModel("deepseek-v3")
	p, err := costmodel.ParsePlan("tp1-pp16v2[2,3]-cp2-dp8-ep8-zero1-full-mb1",
		costmodel.Plan{Seq: 4096, GlobalBatch: 1024, Precision: costmodel.BF16, Optimizer: costmodel.Adam})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.Normalize(m, 0); err != nil {
		t.Fatal(err)
	}
	c, err := Export(Megatron, Job{Model: m, Plan: p, Assumptions: costmodel.DefaultAssumptions()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--expert-model-parallel-size 8", "--context-parallel-size 2", "--pipeline-model-parallel-layout"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("export lacks %q:\n%s", want, c.Text)
		}
	}
	list := names(t, "megatron_names.txt", MegatronCommit)
	for _, f := range strings.Fields(c.Text) {
		if strings.HasPrefix(f, "--") && !list[f] {
			t.Errorf("export writes %s, which Megatron-LM does not define", f)
		}
	}
}

// TestExpertNames: the expert-parallel keys the exporters write once a
// plan has EP are ones the frameworks define.
func TestExpertNames(t *testing.T) {
	for file, keys := range map[string][]string{
		"megatron_names.txt":   {"--expert-model-parallel-size", "--expert-tensor-parallel-size"},
		"bridge_names.txt":     {"model.expert_model_parallel_size", "model.expert_tensor_parallel_size"},
		"torchtitan_names.txt": {"parallelism.expert_parallel_degree", "parallelism.expert_tensor_parallel_degree"},
	} {
		commit := map[string]string{"megatron_names.txt": MegatronCommit, "bridge_names.txt": BridgeCommit, "torchtitan_names.txt": TorchTitanCommit}[file]
		list := names(t, file, commit)
		for _, k := range keys {
			if !list[k] {
				t.Errorf("%s lacks %q", file, k)
			}
		}
	}
}
