package kernel

import (
	"testing"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/view"
)

// TestShowOutsideNotebook: the Show wrappers do nothing outside a
// notebook, not even fail on input they could not draw.
func TestShowOutsideNotebook(t *testing.T) {
	ShowHTML("<b>x</b>")
	ShowMarkdown("*x*")
	ShowTable("t", []string{"a"}, []string{"1"})
	ShowInventory(costmodel.Inventory{})
	ShowActivations(nil)
	ShowInventoryChart("no bars")
	ShowChart(view.MemoryChart{})
	ShowTimeline("empty", costmodel.Timeline{}, 0)
	ShowPlans("none", nil)
	ShowPlanRows("none")
	ShowTraffic("none", nil)
	ShowStepTime("no bars")
	ShowFrontier("no plans", nil)
}
