package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/frameworks"
)

// frameworkFlag is --framework: a preset that sets the framework's
// assumptions in one word. A flag of its own (--attn, --sp,
// --tp-comm-overlap, ...) given on the command line wins over the preset.
type frameworkFlag struct {
	name    string
	preset  *frameworks.Preset
	applied []appliedSetting
}

// appliedSetting is one preset setting and whether a flag overrode it.
type appliedSetting struct {
	frameworks.Setting
	Override string
}

func (f *frameworkFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "framework", "", "framework preset: "+strings.Join(frameworks.All(), ", ")+
		"; sets the attention kernel, fused or eager kernels, overlaps, gradient dtype and sequence parallelism (each flag of its own overrides it)")
}

// presetFlags are the flags that override each preset setting.
var presetFlags = map[string]string{
	frameworks.SetAttention: "attn", frameworks.SetElementwise: "unfused-elementwise",
	frameworks.SetGradReduce: "overlap-grad-reduce", frameworks.SetParamGather: "overlap-param-gather",
	frameworks.SetTPOverlap: "tp-comm-overlap", frameworks.SetP2P: "overlap-p2p",
	frameworks.SetGradDType: "grad-fp32", frameworks.SetSP: "sp",
	frameworks.SetKernel: "attention-kernel", frameworks.SetCP: "cp-all-gather",
	frameworks.SetLoss: "eager-cross-entropy", frameworks.SetProjections: "separate-projections",
}

// resolve looks the preset up (nothing when --framework is not given).
func (f *frameworkFlag) resolve() error {
	if f.name == "" {
		return nil
	}
	p, err := frameworks.Lookup(f.name)
	if err != nil {
		return badInput(err)
	}
	f.preset = &p
	return nil
}

// apply sets the preset's assumptions the command line does not set, and
// records what it applied.
func (f *frameworkFlag) apply(set map[string]bool, a costmodel.Assumptions) costmodel.Assumptions {
	if f.preset == nil {
		return a
	}
	p := f.preset.Apply(a)
	for _, x := range []struct {
		flag string
		copy func()
	}{{"unfused-elementwise", func() { a.UnfusedElementwise = p.UnfusedElementwise }},
		{"overlap-grad-reduce", func() { a.OverlapGradReduce = p.OverlapGradReduce }},
		{"overlap-param-gather", func() { a.OverlapParamGather = p.OverlapParamGather }},
		{"tp-comm-overlap", func() { a.TPCommOverlap = p.TPCommOverlap }},
		{"async-tp", func() { a.AsyncTP = p.AsyncTP }},
		{"overlap-p2p", func() { a.OverlapP2P = p.OverlapP2P }},
		{"grad-fp32", func() { a.GradAccumFP32 = p.GradAccumFP32 }},
		{"attention-kernel", func() { a.AttentionKernel = p.AttentionKernel }},
		{"cp-all-gather", func() { a.CPAllGather = p.CPAllGather }},
		{"eager-cross-entropy", func() { a.EagerCrossEntropy = p.EagerCrossEntropy }},
		{"separate-projections", func() { a.SeparateProjections = p.SeparateProjections }}} {
		if !set[x.flag] {
			x.copy()
		}
	}
	// The settings no flag overrides come from the preset.
	a.StepFP32GradPartition, a.FSDPUnshardedUnderPP = p.StepFP32GradPartition, p.FSDPUnshardedUnderPP
	a.MoEWeightedActivation, a.HighPrecisionSavedInputs = p.MoEWeightedActivation, p.HighPrecisionSavedInputs
	a.ZeRO3PerMatrix, a.BF16OptimizerGrads = p.ZeRO3PerMatrix, p.BF16OptimizerGrads
	// The amax fusion is torch.compile's: eager kernels (--unfused-elementwise) run it apart.
	a.CompiledAmax, a.FP8TPAllGather = p.CompiledAmax && !a.UnfusedElementwise, p.FP8TPAllGather
	for _, s := range f.preset.Settings() {
		as := appliedSetting{Setting: s}
		if fl := presetFlags[s.Name]; set[fl] {
			as.Override = "--" + fl
		}
		f.applied = append(f.applied, as)
	}
	return a
}

// attention returns the preset's attention kernel name unless --attn is
// given.
func (f *frameworkFlag) attention(set map[string]bool, attn string) string {
	if f.preset == nil || set["attn"] {
		return attn
	}
	return f.preset.Attention.String()
}

// checkPrecision rejects a low-precision recipe the framework does not
// offer.
func (f *frameworkFlag) checkPrecision(p costmodel.Precision) error {
	if f.preset == nil || f.preset.Supports(p) {
		return nil
	}
	var names []string
	for _, r := range f.preset.Recipes {
		names = append(names, r.String())
	}
	return badInputf("--framework %s offers no %s recipe (valid: bf16, fp16, fp32%s)", f.preset.Name, p,
		strings.TrimRight(", "+strings.Join(names, ", "), ", "))
}

// write prints the preset and each setting it applied.
func (f *frameworkFlag) write(w io.Writer) {
	if f.preset == nil {
		return
	}
	fmt.Fprintf(w, "\nframework preset %s (%s):\n", f.preset.Name, f.preset.Title)
	for _, s := range f.applied {
		v := s.Value
		if s.Override != "" {
			v += " (overridden by " + s.Override + ")"
		}
		fmt.Fprintf(w, "  %-22s %-30s %s\n", s.Name, v, s.Source)
	}
}
