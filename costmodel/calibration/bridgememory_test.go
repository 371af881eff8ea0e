package calibration

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

// TestBridgeFP8Params: the dense Llama 3 Megatron-Bridge runs in FP8-CS
// or MXFP8 from release 26.02 on keep their layers' weights in FP8 only
// (fp8_param_gather); NVFP4, LoRA and releases before 26.02 do not get
// the setting. The recipes read for the fit check carry their note.
func TestBridgeFP8Params(t *testing.T) {
	for id, want := range map[string]bool{"r0279": true, "r0277": true, "r0259": true, "r0266": false, "r0233": false, "r0456": false} {
		c := caseByID(t, id)
		if c.FP8Params != want {
			t.Errorf("%s (%s, %s, task %s): FP8Params %v, want %v", id, c.Row.Get("precision"), c.Row.Get("source_locator"),
				c.Row.Get("task"), c.FP8Params, want)
		}
		if on := c.Assumptions(costmodel.DefaultAssumptions()).FP8ParamStorage; on != want {
			t.Errorf("%s: FP8ParamStorage %v, want %v", id, on, want)
		}
	}
	for id, want := range map[string]string{"r0279": "GB200_FP8_CS_V2", "r0231": "GB200_FP8_CS_V2", "r0277": "GB300_FP8_MX_V2",
		"r0259": "_LLAMA3_70B_SFT_CONFIG_GB300"} {
		if got := caseByID(t, id).RecipeMemory; !strings.Contains(got, want) {
			t.Errorf("%s: recipe note %q, want one naming %q", id, got, want)
		}
	}
	if got := caseByID(t, "r0266").RecipeMemory; got != "" {
		t.Errorf("r0266: recipe note %q, want none", got)
	}
}

// TestBridgeTableSlip: 26.02.01's GB300 MXFP8 Llama 3 70B row prints
// micro-batch 2 without interleaving; the case runs its release's recipe
// (pp 4, vpp 5, micro-batch 1) and says why.
func TestBridgeTableSlip(t *testing.T) {
	c := caseByID(t, "r0362")
	if p := c.Plan; p.PP != 4 || p.VPP != 5 || p.MicroBatch != 1 || p.GlobalBatch != 256 {
		t.Errorf("r0362: plan %v, want the recipe's pp 4, vpp 5, micro-batch 1, global batch 256", p)
	}
	if s := strings.Join(c.Assumed, "; "); !strings.Contains(s, "GB300_FP8_MX_V2") || !strings.Contains(s, "26.04.01") {
		t.Errorf("r0362: assumed %q, want the recipe and the releases that print its layout", s)
	}
	if c := caseByID(t, "r0269"); c.Plan.MicroBatch != 2 || c.Plan.VPP > 1 {
		t.Errorf("r0269 (GB300 FP8-CS, 26.04.01): plan %v, want the table's micro-batch 2 without interleaving", c.Plan)
	}
}
