package calibration

import (
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// RanFit is the fit check of the compared configurations that ran but
// report no memory: each is predicted at the whole HBM (--hbm-fraction
// 1), since the source does not say how close to it the run came.
type RanFit struct {
	// Rows checked, of which Fit are predicted to fit; NotFit are the
	// others, each with its Reason.
	Rows, Fit int
	NotFit    []MemoryRow
	// Layers are the cases that time single layers (LayerTime) and are
	// predicted not to fit as a whole model: not whole-model runs, so not
	// counted in Rows, listed with their Reason.
	Layers []MemoryRow
}

// ranFit checks every compared case (one per experiment, as Cases keeps
// them) whose row reports no memory and whose run completed.
func ranFit(rows []Row, base costmodel.Assumptions) RanFit {
	var f RanFit
	cases, _ := Cases(rows)
	for _, c := range cases {
		if measured, _, err := measuredMemory(c.Row); err != nil || measured > 0 || c.Row.Get("outcome") != "ok" {
			continue
		}
		m, err := c.memoryRow(base, 0, "", true)
		if err != nil {
			continue
		}
		m.WholeHBM, m.Budget = true, c.Cluster.GPU.HBM
		m.Fits = m.Peak <= m.Budget
		if !m.Fits && c.Target.Metric == LayerTime {
			m.Reason = c.fitReason()
			f.Layers = append(f.Layers, m)
			continue
		}
		f.Rows++
		if m.Fits {
			f.Fit++
			continue
		}
		m.Reason = c.fitReason()
		f.NotFit = append(f.NotFit, m)
	}
	return f
}

// fitReason says, from what the row states, why a configuration that
// ran is predicted not to fit.
func (c Case) fitReason() string {
	var why []string
	note := sourceMemory[c.Row.Source()]
	switch {
	case note != "":
		why = append(why, note)
	case c.Target.Metric == LayerTime:
		why = append(why, "the source times single layers; it does not claim that the whole model ran in this plan")
	}
	rc := c.Row.Get("recompute")
	switch {
	case c.RecipeMemory != "":
		why = append(why, c.RecipeMemory)
	case note == "" && (has(rc, "not stated") || has(rc, "per recipe")):
		why = append(why, "the source does not state its recompute or activation offload (the case assumes "+c.Plan.Recompute.String()+")")
	}
	if len(why) == 0 {
		return "over-predicted; no setting the row states explains it"
	}
	return strings.Join(why, "; ")
}

// sourceMemory is what a source states about the memory of the plans
// it reports, for the fit check's reasons.
var sourceMemory = map[string]string{
	// Korthikanti et al. 2022 (arXiv:2205.05198), sec. 1 and Figure 1:
	// "for all these cases, the required memory for the baseline cases
	// is above the 80GB memory provided by an NVIDIA A100 GPU"; sec.
	// 6.1: "Without the memory savings provided by sequence parallelism
	// and selective recompute together, none of the these models will
	// fit into memory"; Table 4 times "a single transformer layer of the
	// 22B model".
	"korthikanti2022_table4": "the paper says that its 22B model without recompute needs more than the A100's 80 GB " +
		"(sec. 1, Figure 1) and that without sequence parallelism and selective recompute together none of its models " +
		"fits (sec. 6.1): Table 4 times single layers in this plan; the whole model did not run in it",
	// Dubey et al. 2024 (arXiv:2407.21783), sec. 3.3.2 lists four
	// pipeline changes; the memory model applies each: one layer fewer
	// on the first and last stages, the first chunk holding only the
	// embedding and the last only the output and loss (the case's
	// one-layer chunks, vpp 8, the only split with equal chunks); the
	// stages' input and output tensors deallocated (nothing counted at a
	// stage boundary, as Megatron-Core's deallocate_output_tensor);
	// asynchronous p2p with TORCH_NCCL_AVOID_RECORD_STREAMS (no buffer
	// counted for it). The fourth, the tunable micro-batches N run back
	// to back (Figure 6), is not stated for this run: the case takes the
	// depth-first N = pp, Megatron-Core's microbatch_group_size_per_vp_
	// stage default; the warm-up holds (v-1)*N chunk forwards besides
	// 2*(pp-r-1), so a larger N, the paper's other direction (Figure 6:
	// N = 5 on 4 ranks, "more micro-batches to hide point-to-point
	// communication"), holds more. "We could pre-train Llama 3 on
	// sequences of 8K tokens without activation checkpointing".
	"llama3_paper_table4": "the paper's pipeline changes (sec. 3.3.2) are all in the case: one layer fewer on the first " +
		"and last stages with one-layer chunks (vpp 8; the first holds only the embedding), the stages' input and output " +
		"tensors deallocated (none counted), asynchronous p2p (no buffer counted), and the micro-batches run back to back " +
		"(N, Figure 6, not stated) at the depth-first N = pp (Megatron-Core's default; a larger N holds more); " +
		"the excess is less than the 5% allocator fragmentation the model adds (the paper tunes the allocator's use with " +
		"TORCH_NCCL_AVOID_RECORD_STREAMS and allocation profiling but does not size it), and no tensor the paper names is " +
		"left to drop",
	// NVIDIA NeMo 24.07 performance summary; NVIDIA/NeMo-Framework-
	// Launcher tag 24.07 (8325688d8), launcher_scripts/conf/training/
	// nemotron/nemotron_340b.yaml and conf/fine_tuning/llama/squad.yaml.
	"nemo_perf_summary_24.07": "the summary names no config for its pre-training rows, and NeMo-Framework-Launcher " +
		"24.07 has none for this layout (conf/training/nemotron/nemotron_340b.yaml is 768 nodes at tp 8, pp 12, vpp 8 " +
		"with selective recompute and fp8 off; the fine-tuning rows' scripts are examples/peft/llama/h100/*.sh): " +
		"recompute, FP8 weight storage and activation offload are not known (the case assumes none)",
	// Narayanan et al. 2021 (arXiv:2104.04473), Table 2; DeepSpeed
	// v0.3.13 stage3.py (costmodel/zero3matrices.go).
	"narayanan2021_table2": "the paper states no ZeRO-3 memory settings: the case holds DeepSpeed v0.3's per-matrix " +
		"working set under the limits of DeepSpeed's Megatron ZeRO-3 example (stage3_max_live_parameters 1e8, " +
		"reduce_bucket_size 5e7); activation-checkpoint options (partition_activations, cpu_checkpointing) are " +
		"not stated (the case keeps the checkpoints on the GPU)",
}
