package costmodel

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestKernelNote: a GPU and format the kernel measurements cover carry no
// note; MI300X (no AMD measurements), MXFP8 (no measured curve) and a
// GPU file without architecture or SM count say what they borrow.
func TestKernelNote(t *testing.T) {
	a := DefaultAssumptions()
	h100, _ := hardware.LookupGPU("h100-sxm")
	if n := KernelNote(h100, BF16, a); n != "" {
		t.Errorf("h100 bf16: note %q, want none", n)
	}
	mi, _ := hardware.LookupGPU("mi300x")
	if n := KernelNote(mi, BF16, a); !strings.Contains(n, "AMD") {
		t.Errorf("mi300x bf16: note %q, want it to name the missing AMD measurements", n)
	}
	b200, _ := hardware.LookupGPU("b200")
	if n := KernelNote(b200, MXFP8, a); n == "" {
		t.Errorf("b200 mxfp8: no note, want the borrowed curve named")
	}
	bare := h100
	bare.Name, bare.Arch, bare.SMs = "bare", 0, 0
	if n := KernelNote(bare, BF16, a); !strings.Contains(n, "no architecture or SM count") {
		t.Errorf("bare GPU: note %q", n)
	}
}
