package search

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// Llama 3 70B on one H100 server (8 x 77 GB budgets): a full fine-tune
// with Adam needs 16 B/param x 70.55e9 = 1.13 TB of states, 141 GB per
// GPU even under ZeRO-3, so nothing fits; 8-bit Adam still needs
// 10 B/param (88 GB per GPU); offloading the 12 B/param of master weights
// and moments leaves 4 B/param (35 GB per GPU) and fits, as do LoRA on a
// bf16 base under ZeRO-3 (17.6 GB of base per GPU) and QLoRA (about
// 38 GB of NF4 base in all).
func TestFineTuneAlternatives70B(t *testing.T) {
	m := model(t, "llama3-70b")
	r := search(t, m, Options{Job: Job{Seq: 8192, GlobalBatch: 64}, GPUs: 8})
	if len(r.Plans) != 0 {
		t.Fatalf("a full fine-tune of 70B with Adam fits on 8 H100s: %s", r.Plans[0].PlanString)
	}
	fits := map[string]bool{}
	for _, a := range r.FineTune {
		fits[a.Change] = a.Best != nil
		if a.Best == nil && a.Nearest == nil {
			t.Errorf("%s: neither a plan nor a nearest miss", a.Change)
		}
		if a.Best != nil && a.Best.Peak > r.Budget {
			t.Errorf("%s: best plan over the budget: %v", a.Change, a.Best.Peak)
		}
	}
	for change, want := range map[string]bool{
		"--task full --optimizer adam8bit": false, "--task full --offload optimizer": true,
		"--task full --offload params": true, "--task lora": true, "--task qlora": true,
	} {
		if got, ok := fits[change]; !ok || got != want {
			t.Errorf("%s: fits %v (listed %v), want %v", change, got, ok, want)
		}
	}
	for _, s := range []string{"does not fit on 8 h100-sxm", "you can with the optimizer states offloaded", "LoRA", "QLoRA",
		"not with the optimizer states quantised (8-bit Adam)"} {
		if !strings.Contains(r.FineTuneAnswer, s) {
			t.Errorf("answer %q lacks %q", r.FineTuneAnswer, s)
		}
	}
	// A LoRA job searched directly finds nothing more to suggest.
	lora := search(t, m, Options{Job: Job{Seq: 8192, GlobalBatch: 64, Task: costmodel.LoRA}, GPUs: 8, Top: 1})
	if len(lora.Plans) == 0 || len(lora.FineTune) != 0 || lora.Plans[0].Plan.LoRARank != costmodel.DefaultLoRARank {
		t.Errorf("--task lora: %d plans, %d alternatives", len(lora.Plans), len(lora.FineTune))
	}
}

func TestOffloadZeROErrors(t *testing.T) {
	m := model(t, "llama3-8b")
	_, err := Search(m, gpu(t, "h100-sxm"), 0, costmodel.DefaultAssumptions(),
		Options{Job: Job{Seq: 4096, GlobalBatch: 64, Offload: costmodel.OffloadParams}, GPUs: 8, Space: Space{ZeRO: []int{1, 3}}})
	if err == nil || !strings.Contains(err.Error(), "zero 1 cannot run offload params (valid: 3)") {
		t.Errorf("err = %v", err)
	}
}
