// Package launch writes a plan as the launch configuration of a training
// framework: Megatron-LM arguments, a torchtitan TOML job config, a
// Megatron-Bridge (NeMo) recipe override and a DeepSpeed JSON config.
// Where a framework cannot express the plan (DeepSpeed has no context
// parallelism of this kind, torchtitan's FSDP no ZeRO-1) it says so with
// an *Unsupported error instead of writing something that would run a
// different plan.
//
// Every flag and key written is one the framework defines at a pinned
// commit: the tests check them against the name lists under testdata/,
// extracted from the frameworks' sources by scripts/framework_names.py.
package launch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// Framework is a training framework an export targets.
type Framework string

// The frameworks.
const (
	Megatron   Framework = "megatron"
	TorchTitan Framework = "torchtitan"
	NeMo       Framework = "nemo"
	DeepSpeed  Framework = "deepspeed"
)

// Frameworks lists them in a stable order.
func Frameworks() []Framework { return []Framework{Megatron, TorchTitan, NeMo, DeepSpeed} }

// ParseFramework reads a framework name.
func ParseFramework(s string) (Framework, error) {
	f := Framework(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Frameworks(), f) {
		return f, nil
	}
	names := make([]string, 0, 4)
	for _, f := range Frameworks() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("launch: unknown framework %q (valid: %s)", s, strings.Join(names, ", "))
}

// Job is what an export needs: the model, a normalized plan (with its
// job settings) and the step-time assumptions whose overlap settings the
// framework's flags should match.
type Job struct {
	Model       *costmodel.Model
	Plan        costmodel.Plan
	Assumptions costmodel.Assumptions
}

// Config is an export: the text to write and the keys it sets, in the
// framework's own spelling (flags, section.key, dotted JSON paths).
type Config struct {
	Framework Framework `json:"framework"`
	Text      string    `json:"text"`
	Keys      []string  `json:"keys"`
}

// Unsupported says why a framework cannot run a plan as planned.
type Unsupported struct {
	Framework Framework
	Plan      string
	Reason    string
}

func (u *Unsupported) Error() string {
	return fmt.Sprintf("launch: %s cannot express %s: %s", u.Framework, u.Plan, u.Reason)
}

// Export writes job as framework f's launch configuration.
func Export(f Framework, job Job) (Config, error) {
	if n := job.Plan.OffloadActivationLayers; n > 0 {
		return Config{}, unsupported(f, job, "the activation offload of %d layers is not exported (Megatron-Core's cpu_offloading is set by hand)", n)
	}
	switch f {
	case Megatron:
		return megatron(job)
	case TorchTitan:
		return torchtitan(job)
	case NeMo:
		return nemo(job)
	case DeepSpeed:
		return deepspeed(job)
	}
	return Config{}, fmt.Errorf("launch: unknown framework %q", f)
}

func unsupported(f Framework, job Job, format string, args ...any) error {
	return &Unsupported{Framework: f, Plan: job.Plan.String(), Reason: fmt.Sprintf(format, args...)}
}

// accumulation is the micro-batches per step and data-parallel rank:
// global batch / (micro-batch x dp).
func accumulation(p costmodel.Plan) int { return p.GlobalBatch / (p.MicroBatch * p.DP) }

// chunkLayers is the layers of each middle model chunk when the first
// and last pipeline stages are uneven (costmodel.Plan's rule):
// (layers - first - last) / ((pp-2) x vpp), or ceil(layers/(2 x vpp))
// with pp 2.
func chunkLayers(p costmodel.Plan, layers int) int {
	if p.PP == 2 {
		return (layers + 2*p.VPP - 1) / (2 * p.VPP)
	}
	return (layers - p.FirstStageLayers - p.LastStageLayers) / ((p.PP - 2) * p.VPP)
}

// endChunk is the layers of the first (or last) model chunk: the
// stage's layers less the (vpp-1) chunks of chunkLayers it also holds.
func endChunk(p costmodel.Plan, stageLayers, layers int) int {
	return stageLayers - (p.VPP-1)*chunkLayers(p, layers)
}
