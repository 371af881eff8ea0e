package frameworks

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestEverySettingCited: each preset lists every setting, and the
// current presets give each one a source (or say it is assumed).
func TestEverySettingCited(t *testing.T) {
	for _, name := range All() {
		p, err := Lookup(name)
		if err != nil || p.Name != name || p.Title == "" {
			t.Fatalf("%s: %+v, %v", name, p, err)
		}
		s := p.Settings()
		if len(s) != 16 {
			t.Errorf("%s: %d settings", name, len(s))
		}
		for _, x := range s {
			if x.Value == "" || (contains(Names(), name) && x.Source == "") {
				t.Errorf("%s: setting %q = %q without a source", name, x.Name, x.Value)
			}
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestLookup(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "deepspeed,megatron,nemo,torchtitan" {
		t.Errorf("Names() = %s", got)
	}
	if p, err := Lookup(" NeMo "); err != nil || p.Name != "nemo" {
		t.Errorf("Lookup(NeMo) = %v, %v", p.Name, err)
	}
	_, err := Lookup("jax")
	if err == nil || !strings.Contains(err.Error(), `"jax"`) || !strings.Contains(err.Error(), "megatron, nemo") {
		t.Errorf("Lookup(jax): %v", err)
	}
}

// TestApply: a preset sets its assumptions and leaves the fitted
// efficiencies alone.
func TestApply(t *testing.T) {
	d := costmodel.DefaultAssumptions()
	a := Torchtitan2024.Apply(d)
	if !a.UnfusedElementwise || a.TPCommOverlap || !a.OverlapParamGather || a.GEMMEfficiency != d.GEMMEfficiency {
		t.Errorf("torchtitan-2024 applied: %+v", a)
	}
	if a := Megatron.Apply(d); !a.TPCommOverlap || !a.GradAccumFP32 || a.UnfusedElementwise {
		t.Errorf("megatron applied: %+v", a)
	}
	if a := DeepSpeedZeRO3of2021.Apply(d); !a.ZeRO3PerMatrix || DeepSpeed.Apply(d).ZeRO3PerMatrix {
		t.Errorf("deepspeed-zero3-2021 applied: per-matrix ZeRO-3 %v; deepspeed: %v", a.ZeRO3PerMatrix, DeepSpeed.Apply(d).ZeRO3PerMatrix)
	}
	if !NeMo.Supports(costmodel.MXFP8) || NeMo.Supports(costmodel.FP8Rowwise) || !DeepSpeed.Supports(costmodel.BF16) {
		t.Error("recipe coverage")
	}
}
