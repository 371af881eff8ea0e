package launch

import "testing"

// TestExpertDegrees: the degrees come from fields named EP and ETP when
// the plan has them, and are 1 otherwise.
func TestExpertDegrees(t *testing.T) {
	type withEP struct{ TP, EP, ETP int }
	if ep, etp := expertDegrees(withEP{TP: 8, EP: 4, ETP: 2}); ep != 4 || etp != 2 {
		t.Errorf("EP 4, ETP 2 read as %d, %d", ep, etp)
	}
	if ep, etp := expertDegrees(withEP{EP: 0}); ep != 1 || etp != 1 {
		t.Errorf("unset EP read as %d, %d; want 1, 1", ep, etp)
	}
	type noEP struct{ TP int }
	if ep, etp := expertDegrees(noEP{TP: 8}); ep != 1 || etp != 1 || expertSplit(noEP{}) {
		t.Errorf("a plan without EP read as %d, %d", ep, etp)
	}
	var a args
	expertArgs(&a, Job{}, "--expert-model-parallel-size", "--expert-tensor-parallel-size")
	if len(a) != 0 {
		t.Errorf("no experts split, yet %v written", a)
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
