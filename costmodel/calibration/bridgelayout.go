package calibration

import (
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
)

// bridgeTableSlip is a Megatron-Bridge performance-summary row whose
// layout columns disagree with the recipe its release ran ("These
// results were obtained using performance recipes", the summary's
// preamble), and that recipe's layout.
type bridgeTableSlip struct {
	release              []int
	model, gpu, task     string
	precision            costmodel.Precision
	tp, pp, cp, vpp, mbs int // as the table prints them; vpp 0 is "n/a"
	recipeVPP, recipeMBS int
	recipe, evidence     string
}

// bridgeTableSlips are the rows whose printed layout is not the run's.
var bridgeTableSlips = []bridgeTableSlip{
	// NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md at
	// cfeddcd94 (2026-03-21, "2602_perf_table_reorder and patch
	// container data"), kept in docs/performance-summary-archive.md:
	// 26.02.01's DGX-GB300 LLAMA3_70B MXFP8 row prints MBS 2, PP 4,
	// VP n/a (4,798 tokens/s/GPU). The release's recipe,
	// LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_MX_V2
	// (scripts/performance/configs/llama/llama3_workload_base_configs.py
	// at tag v0.3.1 of 2026-03-20 and at cfeddcd94), is pp 4, vpp 5 and
	// WorkloadBaseConfig's micro_batch_size 1 (scripts/performance/
	// utils/utils.py). The same system and precision print MBS 1, VP 5
	// in 26.02 (4,596), 26.04 (4,742) and 26.04.01 (4,864); the same
	// commit also moved the GB300 NVFP4 row to MBS 2, PP 1, VP n/a
	// while its recipe stayed pp 4, vpp 5.
	{release: []int{26, 2, 1}, model: "llama-3-70b", gpu: "gb300", task: "pretrain", precision: costmodel.MXFP8,
		tp: 1, pp: 4, cp: 1, vpp: 0, mbs: 2, recipeVPP: 5, recipeMBS: 1,
		recipe: "LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_MX_V2, llama3_workload_base_configs.py, v0.3.1",
		evidence: "the table's MBS 2 and VP n/a are neither the release's recipe nor what 26.02, 26.04 and 26.04.01 " +
			"print for this system and precision (MBS 1, VP 5)"},
}

// matches reports whether the case is the slip's row, as the table
// prints it.
func (s bridgeTableSlip) matches(c *Case) bool {
	p := c.Plan
	return slices.Equal(release(c.Row), s.release) && has(c.Row.Get("model"), s.model) &&
		c.Cluster.GPU.Name == s.gpu && c.Row.Get("task") == s.task && p.Precision == s.precision &&
		p.TP == s.tp && p.PP == s.pp && p.CP == s.cp && max(p.VPP, 1) == max(s.vpp, 1) && p.MicroBatch == s.mbs
}

// bridgeTableLayout runs a slip's row in its recipe's layout.
func (c *Case) bridgeTableLayout() {
	if !has(c.Row.Source(), "megatron_bridge") {
		return
	}
	for _, s := range bridgeTableSlips {
		if !s.matches(c) {
			continue
		}
		p := c.Plan
		p.VPP, p.MicroBatch = s.recipeVPP, s.recipeMBS
		c.recipePlan(p, fmt.Sprintf("layout vpp %d, micro-batch %d (%s)", s.recipeVPP, s.recipeMBS, s.recipe), s.evidence)
		return
	}
}
