package search

import (
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Job is what the search holds fixed: the training job, not its layout.
type Job struct {
	// Seq is tokens per sequence; GlobalBatch sequences per optimizer
	// step. The gradient accumulation (micro-batches per step) follows
	// from the plan: GlobalBatch / (MicroBatch x DP).
	Seq         int `json:"seq"`
	GlobalBatch int `json:"global_batch"`

	Precision costmodel.Precision `json:"precision"`
	Optimizer costmodel.Optimizer `json:"optimizer"`
	Attention costmodel.Attention `json:"attention"`
	Schedule  costmodel.Schedule  `json:"schedule"`
	// Task and the LoRA settings (costmodel.Plan's), and what the job
	// offloads to host memory.
	Task        costmodel.Task        `json:"task,omitempty"`
	LoRARank    int                   `json:"lora_rank,omitempty"`
	LoRATargets costmodel.LoRATargets `json:"lora_targets,omitempty"`
	BaseDType   costmodel.BaseDType   `json:"base_dtype,omitempty"`
	Offload     costmodel.Offload     `json:"offload,omitempty"`
	// PackedSampleTokens is costmodel.Plan's: the packed samples'
	// length-weighted mean length, 0 when not packed.
	PackedSampleTokens int `json:"packed_sample_tokens,omitempty"`
}

// base is a plan that carries the job settings and no layout yet.
func (j Job) base() costmodel.Plan {
	return costmodel.Plan{Seq: j.Seq, GlobalBatch: j.GlobalBatch, Precision: j.Precision,
		Optimizer: j.Optimizer, Attention: j.Attention, Schedule: j.Schedule, VPP: 1, EP: 1, ETP: 1,
		Task: j.Task, LoRARank: j.LoRARank, LoRATargets: j.LoRATargets, BaseDType: j.BaseDType, Offload: j.Offload,
		PackedSampleTokens: j.PackedSampleTokens}
}

// Space is the set of plans the search enumerates, one slice per axis.
// The candidate grid is the Cartesian product of the axes; the
// data-parallel degree is derived from the GPU count (GPUs / (tp*pp*cp)).
// A nil axis takes its default (DefaultSpace); a non-nil one restricts or
// pins it.
type Space struct {
	TP, PP, VPP, CP []int
	// EP and ETP are the expert and expert tensor parallel degrees of
	// the MoE layers (Plan.EP, Plan.ETP); [1] for a dense model.
	EP, ETP []int
	// MidExtra is the layers each middle model chunk holds beyond the
	// balanced share ceil(layers/(pp*vpp)) (without interleaving: each
	// middle stage beyond ceil(layers/pp)), taken from the end chunks of
	// the first and last stages, which carry the embedding, the output
	// layer and (the first) the most micro-batches in flight. 0 is the
	// even split, or the balanced one Plan.Normalize makes when the
	// layers do not divide (Llama 3 405B: 126 layers on 16 stages, 7 on
	// the end stages).
	MidExtra []int
	// EndShift is the layers the first stage's end chunk then hands to
	// the last stage's (negative: the other way). The first stage holds
	// the most micro-batches in flight under 1F1B and the last the
	// logits; with pp 2 this is the only uneven split.
	EndShift   []int
	ZeRO       []int
	Recompute  []costmodel.Recompute
	SP         []bool
	MicroBatch []int
}

// Default axis values that are choices rather than consequences of the
// model and the cluster.
var (
	// defaultVPP: up to four model chunks per rank, and 6 and 8. Megatron-LM's
	// interleaved schedule divides the bubble by the chunks and multiplies
	// the pipeline's point-to-point traffic by them (Narayanan et al.
	// 2021, sec. 2.2.2); Llama 3 405B ran one-layer chunks, 8 per stage of
	// its pp 16 (Dubey et al. 2024, sec. 3.3.2: the first chunk held only
	// the embedding once one layer left the first stage).
	defaultVPP = []int{1, 2, 3, 4, 6, 8}
	// defaultMidExtra: the balanced split and up to two more layers per
	// middle stage.
	defaultMidExtra = []int{0, 1, 2}
	// defaultEndShift: the balanced ends and up to two layers moved from
	// the first stage to the last.
	defaultEndShift = []int{0, 1, 2}
	// defaultMicroBatch: 1 to 8 sequences; Megatron-LM's published large
	// runs use 1 or 2 (Narayanan et al. 2021, Table 1).
	defaultMicroBatch = []int{1, 2, 4, 8}
	defaultZeRO       = []int{0, 1, 2, 3}
	defaultRecompute  = []costmodel.Recompute{costmodel.NoRecompute, costmodel.Selective, costmodel.Full}
	defaultSP         = []bool{false, true}
)

// minCPTokens is the fewest tokens per context-parallel rank the default
// CP axis goes down to. Ring attention hides its key/value exchange behind
// the attention of the local chunk only while chunks are long; Llama 3's
// long-context stage kept 8,192 tokens per rank (cp 16 at 131,072; Dubey
// et al. 2024, sec. 3.3.2). An explicit --cp goes lower.
const minCPTokens = 4096

// DefaultSpace is the space searched on gpus GPUs of a cluster whose
// NVLink domain is gpusPerNode: tp every degree that splits the attention
// heads and the KV heads (one divides the other) up to the domain; pp
// every divisor of gpus up to the layers; cp 1 and the powers of two that
// divide gpus and leave at least minCPTokens tokens per rank (1 only
// with eager attention); vpp 1 only under GPipe; the other axes their
// defaults.
func DefaultSpace(m *costmodel.Model, job Job, gpus, gpusPerNode int) Space {
	s := Space{VPP: defaultVPP, MidExtra: defaultMidExtra, EndShift: defaultEndShift, ZeRO: defaultZeRO,
		Recompute: defaultRecompute, SP: defaultSP, MicroBatch: defaultMicroBatch}
	if job.Schedule != costmodel.OneFOneB {
		s.VPP = []int{1} // virtual stages belong to interleaved 1F1B
	}
	s.ZeRO = offloadZeRO(job.Offload)
	for t := 1; t <= gpusPerNode; t++ {
		if m.SplitsHeads(t) {
			s.TP = append(s.TP, t)
		}
	}
	for p := 1; p <= min(gpus, m.Layers); p++ {
		if gpus%p == 0 {
			s.PP = append(s.PP, p)
		}
	}
	s.EP, s.ETP = defaultEP(m, gpus), []int{1}
	s.CP = []int{1}
	for c := 2; c <= gpus && job.Attention == costmodel.Flash && job.Seq/c >= minCPTokens; c *= 2 {
		if gpus%c == 0 && job.Seq%(2*c) == 0 {
			s.CP = append(s.CP, c)
		}
	}
	return s
}

// Restrict returns d with every axis that r sets replacing d's. The
// axes r sets are sorted and a value given twice is kept once, so the
// order of a restriction does not change the search.
func (d Space) Restrict(r Space) Space {
	pick := func(a, b []int) []int {
		if b != nil {
			return sortedUnique(b)
		}
		return a
	}
	d.TP, d.PP, d.VPP, d.CP = pick(d.TP, r.TP), pick(d.PP, r.PP), pick(d.VPP, r.VPP), pick(d.CP, r.CP)
	d.EP, d.ETP = pick(d.EP, r.EP), pick(d.ETP, r.ETP)
	d.MidExtra, d.EndShift = pick(d.MidExtra, r.MidExtra), zeroFirst(pick(d.EndShift, r.EndShift))
	d.ZeRO, d.MicroBatch = pick(d.ZeRO, r.ZeRO), pick(d.MicroBatch, r.MicroBatch)
	if r.Recompute != nil {
		d.Recompute = sortedUnique(r.Recompute)
	}
	if r.SP != nil {
		d.SP = nil
		for _, v := range []bool{false, true} {
			if slices.Contains(r.SP, v) {
				d.SP = append(d.SP, v)
			}
		}
	}
	return d
}

// Size is the number of points of the candidate grid.
func (s Space) Size() int { return s.below().all }

// below holds the number of grid points below one value of each axis:
// what a rejection at that level rejects.
type below struct{ all, pp, ep, split, zero, rec, sp int }

func (s Space) below() below {
	var b below
	b.sp = len(s.MicroBatch)
	b.rec = len(s.SP) * b.sp
	b.zero = len(s.Recompute) * b.rec
	b.split = len(s.ZeRO) * b.zero
	b.ep = len(s.VPP) * len(s.MidExtra) * len(s.EndShift) * b.split
	b.pp = len(s.EP) * len(s.ETP) * b.ep
	b.all = len(s.TP) * len(s.CP) * len(s.PP) * b.pp
	return b
}

// Validate rejects axis values that no GPU count can make valid for the
// model and the job, naming the value and what would be valid.
func (s Space) Validate(m *costmodel.Model, job Job) error {
	for _, t := range s.TP {
		if err := tpErr(m, t); err != nil {
			return err
		}
	}
	checks := []struct {
		name   string
		vals   []int
		lo, hi int
	}{{"pp", s.PP, 1, m.Layers}, {"vpp", s.VPP, 1, m.Layers}, {"cp", s.CP, 1, hardware.MaxGPUs},
		{"mid-extra", s.MidExtra, 0, m.Layers}, {"end-shift", s.EndShift, 1 - m.Layers, m.Layers - 1}, {"zero", s.ZeRO, 0, 3}, {"mbs", s.MicroBatch, 1, job.GlobalBatch}}
	for _, c := range checks {
		for _, v := range c.vals {
			if v < c.lo || v > c.hi {
				return fmt.Errorf("search: %s=%d is not in [%d, %d]", c.name, v, c.lo, c.hi)
			}
		}
	}
	for _, c := range s.CP {
		if err := cpErr(job, c); err != nil {
			return err
		}
	}
	if err := s.validateExperts(m); err != nil {
		return err
	}
	for _, v := range s.VPP {
		if v > 1 && job.Schedule != costmodel.OneFOneB {
			return fmt.Errorf("search: vpp=%d needs the interleaved 1F1B schedule; the job runs %s", v, job.Schedule)
		}
		if !vppSplits(m.Layers, v) {
			return fmt.Errorf("search: vpp=%d leaves no pp a split of the %d layers of %s into pp x %d chunks (every chunk but the two end ones needs a layer)",
				v, m.Layers, m.Name, v)
		}
	}
	// Three stages leave the most room for lighter end stages.
	if room := m.Layers - (m.Layers+2)/3 - 2; len(s.MidExtra) > 0 && slices.Max(s.MidExtra) > max(room, 0) {
		return fmt.Errorf("search: mid-extra=%d leaves no layer for the first or last stage at any pp (at most %d for %d layers)",
			slices.Max(s.MidExtra), max(room, 0), m.Layers)
	}
	for _, b := range s.MicroBatch {
		if job.GlobalBatch%b != 0 {
			return fmt.Errorf("search: mbs=%d does not divide the global batch of %d sequences", b, job.GlobalBatch)
		}
	}
	for _, r := range s.Recompute {
		if r < costmodel.NoRecompute || r > costmodel.OpSAC {
			return fmt.Errorf("search: recompute %d is not none, selective, full or opsac", int(r))
		}
	}
	return s.checkNonEmpty()
}

// vppSplits reports whether some pipeline depth splits the layers into
// vpp chunks per stage. The balanced split is the one most likely to:
// more layers per middle chunk or a shift only shrink an end chunk.
func vppSplits(layers, vpp int) bool {
	for pp := 1; pp <= layers; pp++ {
		if _, _, r := layerSplit(layers, pp, vpp, 0, 0); r == noReason {
			return true
		}
	}
	return false
}

// ValidateFor additionally rejects tp, pp, cp, ep and etp values that cannot
// divide a fixed count of gpus.
func (s Space) ValidateFor(gpus int) error {
	for _, a := range []struct {
		name string
		vals []int
	}{{"tp", s.TP}, {"pp", s.PP}, {"cp", s.CP}, {"ep", s.EP}, {"etp", s.ETP}} {
		for _, v := range a.vals {
			if gpus%v != 0 {
				return fmt.Errorf("search: %s=%d does not divide %d GPUs", a.name, v, gpus)
			}
		}
	}
	return nil
}

func (s Space) checkNonEmpty() error {
	for _, a := range []struct {
		name string
		n    int
	}{{"tp", len(s.TP)}, {"pp", len(s.PP)}, {"vpp", len(s.VPP)}, {"cp", len(s.CP)}, {"ep", len(s.EP)}, {"etp", len(s.ETP)}, {"mid-extra", len(s.MidExtra)}, {"end-shift", len(s.EndShift)},
		{"zero", len(s.ZeRO)}, {"recompute", len(s.Recompute)}, {"sp", len(s.SP)}, {"mbs", len(s.MicroBatch)}} {
		if a.n == 0 {
			return fmt.Errorf("search: the %s axis is empty", a.name)
		}
	}
	return nil
}

// tpErr says why t cannot split m's heads (costmodel.Model.SplitsHeads),
// naming the model.
func tpErr(m *costmodel.Model, t int) error {
	if t < 1 || t > hardware.MaxGPUs {
		return fmt.Errorf("search: tp=%d is not in [1, %d]", t, hardware.MaxGPUs)
	}
	if m.Heads%t != 0 {
		return fmt.Errorf("search: tp=%d does not divide the %d attention heads of %s (valid tp: %v)", t, m.Heads, m.Name, headDivisors(m))
	}
	if !m.SplitsHeads(t) {
		return fmt.Errorf("search: tp=%d neither divides nor is a multiple of the %d KV heads of %s (valid tp: %v)", t, m.KVHeads, m.Name, headDivisors(m))
	}
	return nil
}

func headDivisors(m *costmodel.Model) []int {
	var out []int
	for t := 1; t <= m.Heads && len(out) < 12; t++ {
		if m.SplitsHeads(t) {
			out = append(out, t)
		}
	}
	return out
}

// cpErr says why cp cannot split the job's sequence.
func cpErr(job Job, c int) error {
	if c == 1 {
		return nil
	}
	if job.Attention != costmodel.Flash {
		return fmt.Errorf("search: cp=%d needs FlashAttention (ring attention); the job uses %s attention", c, job.Attention)
	}
	if job.Seq%(2*c) != 0 {
		return fmt.Errorf("search: cp=%d does not split seq=%d into 2*cp equal chunks (valid cp: %s)", c, job.Seq, costmodel.ValidCPList(job.Seq))
	}
	return nil
}

// zeroFirst moves a 0 to the front of a sorted axis, so that the
// balanced split comes before the uneven ones (see dominance).
func zeroFirst(v []int) []int {
	if i := slices.Index(v, 0); i > 0 {
		v = slices.Concat([]int{0}, v[:i], v[i+1:])
	}
	return v
}

// sortedUnique sorts an axis and drops repeated values, so that a value
// given twice is not searched twice.
func sortedUnique[T int | costmodel.Recompute](v []T) []T {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

// defaultEP is every divisor of m's routed experts that divides gpus: 1
// for a dense model. Megatron-Core requires ep to divide the experts
// (num_moe_experts % expert_model_parallel_size == 0).
func defaultEP(m *costmodel.Model, gpus int) []int {
	if m.MoE == nil {
		return []int{1}
	}
	var out []int
	for d := 1; d <= min(m.MoE.Experts, gpus); d++ {
		if m.MoE.Experts%d == 0 && gpus%d == 0 {
			out = append(out, d)
		}
	}
	return out
}

// validateExperts rejects ep and etp values no GPU count makes valid.
func (s Space) validateExperts(m *costmodel.Model) error {
	experts := 1
	if m.MoE != nil {
		experts = m.MoE.Experts
	}
	for _, ep := range s.EP {
		if m.MoE == nil && ep != 1 {
			return fmt.Errorf("search: ep=%d: model %s has no experts (valid ep: 1)", ep, m.Name)
		}
		if ep < 1 || experts%ep != 0 {
			return fmt.Errorf("search: ep=%d does not divide the %d routed experts of %s (valid ep: %v)", ep, experts, m.Name, divisorsOf(experts))
		}
	}
	for _, etp := range s.ETP {
		if etp < 1 || etp > hardware.MaxGPUs || m.MoE == nil && etp != 1 {
			return fmt.Errorf("search: etp=%d is not valid for %s (valid: 1 to %d for an MoE model, 1 for a dense one)", etp, m.Name, hardware.MaxGPUs)
		}
	}
	return nil
}

func divisorsOf(n int) []int {
	var out []int
	for d := 1; d <= n && len(out) < 16; d++ {
		if n%d == 0 {
			out = append(out, d)
		}
	}
	return out
}
