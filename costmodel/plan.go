package costmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Plan is one way to run a training job: the parallel layout and the
// execution choices that change memory and time. It is a small comparable
// value, so plans can be map keys and compared with ==.
//
// Ranks are laid out as in Megatron-LM: GPUs = TP x CP x DP x PP.
type Plan struct {
	// TP, PP, CP and DP are the tensor, pipeline, context and data
	// parallel degrees.
	TP int `json:"tp"`
	PP int `json:"pp"`
	CP int `json:"cp"`
	DP int `json:"dp"`
	// EP and ETP are the expert and expert-tensor parallel degrees of the
	// mixture-of-experts layers (0 reads as 1). As in Megatron-Core
	// (docs: "MoE parallel folding"), the expert layers regroup the
	// tp x cp x dp GPUs of a pipeline stage as etp x ep x edp: each
	// expert is split etp ways, the routed experts are spread over ep
	// ranks, and the expert-data-parallel degree is what remains,
	// tp*cp*dp/(ep*etp) (Plan.ExpertDP).
	EP  int `json:"ep,omitempty"`
	ETP int `json:"etp,omitempty"`
	// VPP is the number of virtual pipeline stages (model chunks) per
	// pipeline rank; above 1 the schedule is interleaved 1F1B.
	VPP int `json:"vpp"`
	// FirstStageLayers and LastStageLayers, when non-zero, give the first
	// and last pipeline stages fewer (or more) layers than the others,
	// like Megatron's --decoder-first/last-pipeline-num-layers. They count
	// the layers of the whole stage (pipeline rank 0 or pp-1), with or
	// without interleaving. With VPP > 1 the difference sits in the end
	// model chunks (virtual stages 0 and pp*VPP-1), as in Llama 3 405B:
	// every other chunk holds the same c layers, so chunk 0 holds
	// FirstStageLayers - (VPP-1)*c layers (possibly none: the embedding
	// alone) and chunk pp*VPP-1 LastStageLayers - (VPP-1)*c, where
	// c = (layers - FirstStageLayers - LastStageLayers)/((PP-2)*VPP), or
	// ceil(layers/(2*VPP)) with PP 2 (split.go). Zero for both is the even
	// split, which Normalize replaces by the balanced one when the layers
	// do not divide into PP*VPP equal chunks.
	FirstStageLayers int `json:"first_stage_layers"`
	LastStageLayers  int `json:"last_stage_layers"`
	// ZeRO is the sharding stage over data parallelism: 0 (DDP), 1
	// (optimizer states), 2 (+ gradients), 3 (+ weights; FSDP).
	ZeRO int `json:"zero"`
	// SP is Megatron sequence parallelism (Korthikanti et al. 2022): the
	// norm and dropout regions are split along the sequence over TP ranks.
	SP        bool      `json:"sp"`
	Recompute Recompute `json:"recompute"`
	// RecomputeModules is the set Megatron's selective recompute reruns
	// (recompute_modules); zero is its default, core_attn. Only with
	// Recompute Selective (recomputemodules.go).
	RecomputeModules RecomputeModules `json:"recompute_modules,omitempty"`
	// RecomputeMethod and RecomputeLayers make Recompute Full partial,
	// as Megatron-LM's --recompute-method and --recompute-num-layers N
	// do (partialrecompute.go): uniform checkpoints groups of N layers,
	// block only the first N layers of each model chunk. RecomputeLayers
	// 0 is every layer checkpointed alone, the planner's Full.
	RecomputeMethod RecomputeMethod `json:"recompute_method,omitempty"`
	RecomputeLayers int             `json:"recompute_num_layers,omitempty"`
	// MicroBatch is sequences per micro-batch, GlobalBatch sequences per
	// optimizer step, Seq tokens per sequence.
	MicroBatch  int `json:"micro_batch"`
	GlobalBatch int `json:"global_batch"`
	Seq         int `json:"seq"`
	// PackedSampleTokens is, for sequences packed from many short
	// samples, the samples' length-weighted mean length E[len^2]/E[len]:
	// the fused attention attends within each sample (packing.go). Zero
	// is one sample per sequence.
	PackedSampleTokens int       `json:"packed_sample_tokens,omitempty"`
	Attention          Attention `json:"attention"`
	Precision          Precision `json:"precision"`
	Optimizer          Optimizer `json:"optimizer"`
	Schedule           Schedule  `json:"schedule"`
	// Task is pre-training (the zero value), a full fine-tune, LoRA or
	// QLoRA; LoRARank, LoRATargets and BaseDType describe the adapters
	// and the frozen base (finetune.go: zero takes the defaults, r 16 on
	// every projection). Offload keeps model states in host memory.
	Task        Task        `json:"task,omitempty"`
	LoRARank    int         `json:"lora_rank,omitempty"`
	LoRATargets LoRATargets `json:"lora_targets,omitempty"`
	BaseDType   BaseDType   `json:"base_dtype,omitempty"`
	Offload     Offload     `json:"offload,omitempty"`
	// OffloadActivationLayers is how many transformer layers of each
	// stage copy their saved activations to host memory after their
	// forward and back before their backward (Megatron-Core's
	// cpu_offloading_num_layers; actoffload.go). Zero offloads none.
	OffloadActivationLayers int `json:"offload_activation_layers,omitempty"`
}

// GPUs is the number of GPUs the plan occupies.
func (p Plan) GPUs() int { return p.TP * p.PP * p.CP * p.DP }

// MicroBatches is the number of micro-batches per step and pipeline
// (gradient accumulation steps): GlobalBatch / (MicroBatch x DP).
func (p Plan) MicroBatches() int {
	if p.MicroBatch*p.DP == 0 {
		return 0
	}
	return p.GlobalBatch / (p.MicroBatch * p.DP)
}

// Interleaved reports whether the pipeline runs the interleaved schedule.
func (p Plan) Interleaved() bool { return p.VPP > 1 && p.Schedule == OneFOneB }

// ShardDegree is the number of ranks ZeRO shards model states over:
// data x context parallel, because context-parallel ranks hold the same
// weights and reduce gradients together (Megatron-Core's data-parallel
// group "with context parallel"; torchtitan shards FSDP over dp x cp).
func (p Plan) ShardDegree() int { return p.DP * p.CP }

// ExpertDP is the expert-data-parallel degree: the ranks that hold the
// same experts and reduce (and under ZeRO shard) their gradients and
// optimizer states, tp*cp*dp / (ep*etp) (Megatron-Core's expert data
// parallel group, parallel_state.py).
func (p Plan) ExpertDP() int {
	n := max(p.EP, 1) * max(p.ETP, 1)
	return p.TP * p.CP * p.DP / n
}

// String writes the layout, e.g. "tp8-pp16-cp1-dp128-zero1-sp-selective-mb1".
// Virtual stages appear as "pp16v2", uneven first/last stages as
// "pp16[7,7]", expert parallelism as "-ep8" and "-etp2" after the data
// parallel degree (omitted when 1, so dense plans read as before) and
// the GPipe schedule as a "-gpipe" suffix, and selective recompute of
// other Megatron modules than core_attn as "selective[mla_up_proj,mlp]",
// partial full recompute as "full[block5]" or "full[uniform2]". ParsePlan reads
// it back. Job settings (sequence, batch, precision, optimizer, attention)
// are not part of the layout string.
func (p Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tp%d-pp%d", p.TP, p.PP)
	if p.VPP > 1 {
		fmt.Fprintf(&b, "v%d", p.VPP)
	}
	if p.FirstStageLayers != 0 || p.LastStageLayers != 0 {
		fmt.Fprintf(&b, "[%d,%d]", p.FirstStageLayers, p.LastStageLayers)
	}
	fmt.Fprintf(&b, "-cp%d-dp%d", p.CP, p.DP)
	if p.EP > 1 {
		fmt.Fprintf(&b, "-ep%d", p.EP)
	}
	if p.ETP > 1 {
		fmt.Fprintf(&b, "-etp%d", p.ETP)
	}
	fmt.Fprintf(&b, "-zero%d", p.ZeRO)
	if p.SP {
		b.WriteString("-sp")
	}
	fmt.Fprintf(&b, "-%s", p.Recompute)
	if p.Recompute == Selective && p.RecomputeModules.Effective() != ModCoreAttn {
		fmt.Fprintf(&b, "[%s]", p.RecomputeModules)
	}
	b.WriteString(p.recomputeSuffix())
	fmt.Fprintf(&b, "-mb%d", p.MicroBatch)
	if p.Schedule == GPipe {
		b.WriteString("-gpipe")
	}
	return b.String()
}

// ParsePlan reads the layout fields of a plan string written by
// Plan.String into base, which supplies the job settings.
func ParsePlan(s string, base Plan) (Plan, error) {
	p := base
	p.SP, p.Schedule, p.VPP = false, OneFOneB, 1
	p.FirstStageLayers, p.LastStageLayers = 0, 0
	p.EP, p.ETP = 1, 1
	seen := map[string]bool{}
	for _, f := range strings.Split(s, "-") {
		key, err := p.parseField(f)
		if err != nil {
			return Plan{}, fmt.Errorf("costmodel: plan %q: %w", s, err)
		}
		if seen[key] {
			return Plan{}, fmt.Errorf("costmodel: plan %q: %s given twice", s, key)
		}
		seen[key] = true
	}
	for _, k := range []string{"tp", "pp", "cp", "dp", "zero", "recompute", "mb"} {
		if !seen[k] {
			return Plan{}, fmt.Errorf("costmodel: plan %q has no %s (want e.g. tp8-pp2-cp1-dp4-zero1-sp-selective-mb1)", s, k)
		}
	}
	return p, nil
}

// parseField sets one field from f and returns the field's key.
func (p *Plan) parseField(f string) (string, error) {
	switch {
	case f == "sp":
		p.SP = true
		return "sp", nil
	case f == "gpipe":
		p.Schedule = GPipe
		return "schedule", nil
	case slices.Contains(recomputeNames, f):
		p.Recompute, _ = ParseRecompute(f)
		p.RecomputeModules, p.RecomputeMethod, p.RecomputeLayers = 0, Uniform, 0
		return "recompute", nil
	case strings.HasPrefix(f, "full["):
		if !strings.HasSuffix(f, "]") {
			return "recompute", fmt.Errorf("%s: missing ]", f)
		}
		p.RecomputeModules = 0
		return "recompute", p.parseFullRecompute(f[len("full[") : len(f)-1])
	case strings.HasPrefix(f, "selective["):
		if !strings.HasSuffix(f, "]") {
			return "recompute", fmt.Errorf("%s: missing ]", f)
		}
		mods, err := ParseRecomputeModules(f[len("selective[") : len(f)-1])
		p.Recompute, p.RecomputeModules = Selective, mods
		p.RecomputeMethod, p.RecomputeLayers = Uniform, 0
		if mods == ModCoreAttn {
			p.RecomputeModules = 0
		}
		return "recompute", err
	case strings.HasPrefix(f, "pp"):
		return "pp", p.parsePP(f[2:])
	}
	for _, k := range []struct {
		prefix string
		dst    *int
	}{{"tp", &p.TP}, {"cp", &p.CP}, {"dp", &p.DP}, {"etp", &p.ETP}, {"ep", &p.EP}, {"zero", &p.ZeRO}, {"mb", &p.MicroBatch}} {
		if rest, ok := strings.CutPrefix(f, k.prefix); ok {
			n, err := parseCount(rest)
			*k.dst = n
			return k.prefix, err
		}
	}
	return "", fmt.Errorf("unknown field %q", f)
}

// parsePP reads "16", "16v2" or "16[7,7]".
func (p *Plan) parsePP(s string) error {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") {
			return fmt.Errorf("pp%s: missing ]", s)
		}
		first, last, ok := strings.Cut(s[i+1:len(s)-1], ",")
		var err1, err2 error
		p.FirstStageLayers, err1 = parseCount(first)
		p.LastStageLayers, err2 = parseCount(last)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("pp%s: want pp<N>[<first>,<last>]", s)
		}
		s = s[:i]
	}
	if n, v, ok := strings.Cut(s, "v"); ok {
		var err error
		if p.VPP, err = parseCount(v); err != nil {
			return err
		}
		if p.VPP < 1 {
			return fmt.Errorf("pp%sv%s: %d virtual stages (want v >= 1, or no v for one)", n, v, p.VPP)
		}
		s = n
	}
	var err error
	p.PP, err = parseCount(s)
	return err
}

func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}
