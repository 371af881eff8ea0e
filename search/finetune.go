package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// FineTuneAlternative is one way to fine-tune a model that does not fit
// on the GPUs searched: the job changed as Change says, searched over the
// same layouts, with its best plan (nil when none fits) or, failing
// that, its nearest miss.
type FineTuneAlternative struct {
	// Kind names the alternative, "full fine-tune, optimizer states
	// offloaded to the CPU (ZeRO-Offload)".
	Kind string `json:"kind"`
	// Change is the alternative as flags, "--task full --offload optimizer".
	Change  string  `json:"change"`
	Job     Job     `json:"job"`
	Best    *Ranked `json:"best,omitempty"`
	Nearest *Miss   `json:"nearest,omitempty"`
	// Short is the alternative in the answer's words, "the optimizer
	// states offloaded"; Full is true for those that train every weight.
	Short string `json:"short"`
	Full  bool   `json:"full"`
}

// fineTuneKind is one alternative: how it changes the job.
type fineTuneKind struct {
	kind, change, short string
	full                bool
	edit                func(*Job)
}

// fineTuneKinds are the alternatives, gentlest change first: full
// fine-tuning with quantized optimizer states (8-bit Adam, Dettmers et
// al. 2022), with the optimizer states offloaded (ZeRO-Offload, Ren et al.
// 2021), with the weights offloaded too (ZeRO-Infinity), then LoRA on a
// bf16 base (Hu et al. 2021) and QLoRA on an NF4 base (Dettmers et al.
// 2023), both at rank 16 on every projection.
var fineTuneKinds = []fineTuneKind{
	{"full fine-tune, 8-bit Adam states", "--task full --optimizer adam8bit", "the optimizer states quantised (8-bit Adam)", true,
		func(j *Job) { j.Task, j.Optimizer = costmodel.FullFineTune, costmodel.Adam8bit }},
	{"full fine-tune, optimizer states offloaded to the CPU (ZeRO-Offload)", "--task full --offload optimizer", "the optimizer states offloaded", true,
		func(j *Job) { j.Task, j.Offload = costmodel.FullFineTune, costmodel.OffloadOptimizer }},
	{"full fine-tune, 8-bit Adam states offloaded to the CPU", "--task full --optimizer adam8bit --offload optimizer",
		"the optimizer states quantised and offloaded", true,
		func(j *Job) {
			j.Task, j.Optimizer, j.Offload = costmodel.FullFineTune, costmodel.Adam8bit, costmodel.OffloadOptimizer
		}},
	{"full fine-tune, weights and optimizer states offloaded (ZeRO-Infinity)", "--task full --offload params",
		"the weights and optimizer states offloaded", true,
		func(j *Job) { j.Task, j.Offload = costmodel.FullFineTune, costmodel.OffloadParams }},
	{"LoRA r=16 on a bf16 base", "--task lora", "LoRA", false,
		func(j *Job) { j.Task, j.BaseDType = costmodel.LoRA, costmodel.BaseBF16 }},
	{"QLoRA r=16 on an NF4 base", "--task qlora", "QLoRA", false,
		func(j *Job) { j.Task, j.BaseDType = costmodel.QLoRA, costmodel.BaseNF4 }},
}

// fineTuneAlternatives searches each alternative when nothing fits on
// the exact count of a job that trains every weight on the GPU alone.
func (s *searcher) fineTuneAlternatives() error {
	j := s.o.Job
	if s.o.alternative || s.o.Objective != Throughput || len(s.r.Plans) > 0 ||
		j.Task.Adapted() || j.Offload != costmodel.NoOffload {
		return nil
	}
	for _, k := range fineTuneKinds {
		alt, err := s.fineTune(k)
		if err != nil {
			return err
		}
		same := alt.Job
		same.Task = j.Task
		if !k.full || same != j {
			s.r.FineTune = append(s.r.FineTune, alt)
		}
	}
	s.r.FineTuneAnswer = fineTuneAnswer(s.r.FineTune, j, s.o.GPUs, s.g.Name)
	return nil
}

// fineTune searches one alternative on the same count and space.
func (s *searcher) fineTune(k fineTuneKind) (FineTuneAlternative, error) {
	o := s.o
	k.edit(&o.Job)
	o.Job = o.Job.withTuneDefaults()
	alt := FineTuneAlternative{Kind: k.kind, Change: k.change, Short: k.short, Job: o.Job, Full: k.full}
	o.alternative, o.Top, o.Misses = true, 1, 1
	o.Space.ZeRO = allowedZeRO(o.Space.ZeRO, o.Job.Offload)
	if len(o.Space.ZeRO) == 0 && s.o.Space.ZeRO != nil {
		return alt, nil // the --zero given excludes this offload
	}
	r, err := Search(s.m, s.g, s.perNode, s.a, o)
	if err != nil {
		return alt, err
	}
	if len(r.Plans) > 0 {
		alt.Best = &r.Plans[0]
	} else if len(r.Misses) > 0 {
		alt.Nearest = &r.Misses[0]
	}
	return alt, nil
}

// fineTuneAnswer is the one-line answer to "can we fine-tune it here?":
// the full fine-tunes that fit, then the adapters that fit, each with its
// flags and best throughput, then those that do not fit, with their peak.
func fineTuneAnswer(alts []FineTuneAlternative, j Job, gpus int, gpu string) string {
	var full, adapted, misses []string
	for _, a := range alts {
		switch {
		case a.Best != nil && a.Full:
			full = append(full, fmt.Sprintf("%s (%s: %.0f tokens/s/GPU)", a.Short, a.Change, a.Best.Performance.TokensPerSecondPerGPU))
		case a.Best != nil:
			adapted = append(adapted, fmt.Sprintf("%s (%s: %.0f tokens/s/GPU)", a.Short, a.Change, a.Best.Performance.TokensPerSecondPerGPU))
		case a.Nearest != nil:
			misses = append(misses, fmt.Sprintf("%s (%v per GPU)", a.Short, a.Nearest.Peak))
		default:
			misses = append(misses, a.Short)
		}
	}
	out := fmt.Sprintf("a full fine-tune with %s does not fit on %d %s", j.Optimizer, gpus, gpu)
	switch {
	case len(full) > 0:
		out += "; you can with " + strings.Join(full, ", or ")
		if len(adapted) > 0 {
			out += ", or with " + strings.Join(adapted, " or ")
		}
	case len(adapted) > 0:
		out += ", not even offloaded or quantised; you can with " + strings.Join(adapted, " or ")
	default:
		out += ", and neither do the fine-tuning alternatives: more GPUs are needed"
	}
	if len(misses) > 0 && len(full)+len(adapted) > 0 {
		out += "; not with " + strings.Join(misses, ", nor ")
	}
	return out + "."
}

// offloadZeRO is the default ZeRO axis under an offload: optimizer
// offload needs a sharded optimizer (stage 1 and up), parameter offload
// ZeRO-3 (DeepSpeed's rules, costmodel.Plan.Normalize).
func offloadZeRO(o costmodel.Offload) []int {
	switch o {
	case costmodel.OffloadOptimizer:
		return []int{1, 2, 3}
	case costmodel.OffloadParams:
		return []int{3}
	}
	return defaultZeRO
}

// allowedZeRO keeps the stages of zs (nil: the default) the offload
// allows.
func allowedZeRO(zs []int, o costmodel.Offload) []int {
	if zs == nil {
		return nil
	}
	ok := offloadZeRO(o)
	return slices.DeleteFunc(slices.Clone(zs), func(z int) bool { return !slices.Contains(ok, z) })
}

// checkOffloadZeRO rejects a ZeRO restriction the offload cannot run on.
func checkOffloadZeRO(zs []int, o costmodel.Offload) error {
	if o == costmodel.NoOffload {
		return nil
	}
	ok := offloadZeRO(o)
	for _, z := range zs {
		if !slices.Contains(ok, z) {
			return fmt.Errorf("search: zero %d cannot run offload %s (valid: %s)", z, o, joinInts(ok))
		}
	}
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// withTuneDefaults fills the LoRA defaults of an adapter task (rank 16 on
// every projection; QLoRA's NF4 base), as Plan.Normalize does.
func (j Job) withTuneDefaults() Job {
	if !j.Task.Adapted() {
		return j
	}
	if j.LoRARank == 0 {
		j.LoRARank = costmodel.DefaultLoRARank
	}
	if j.LoRATargets == 0 {
		j.LoRATargets = costmodel.AllTargets
	}
	if j.Task == costmodel.QLoRA {
		j.BaseDType = costmodel.BaseNF4
	}
	return j
}
