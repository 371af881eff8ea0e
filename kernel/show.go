package kernel

import (
	"github.com/janpfeifer/gonb/gonbui"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
	"github.com/gpu-planner/planner/view"
)

// The Show functions display a table or chart in the notebook cell that
// runs them, and do nothing (not even build it) outside a notebook. A
// chart that cannot be built is a mistake in the notebook: the Show
// function panics with the error, which fails the cell.
//
// Each waits until GoNB has taken the output (gonbui.Sync): GoNB stops
// reading a cell's display pipe when the cell's program exits, and a
// chart shown just before the end of a cell was sometimes lost.

// ShowHTML displays raw HTML.
func ShowHTML(html string) {
	if gonbui.IsNotebook {
		displayHTML(html)
	}
}

// ShowMarkdown displays Markdown, with $...$ math.
func ShowMarkdown(md string) {
	if gonbui.IsNotebook {
		gonbui.DisplayMarkdown(md)
		gonbui.Sync()
	}
}

// ShowTable displays view.Table(caption, header, rows...).
func ShowTable(caption string, header []string, rows ...[]string) {
	if gonbui.IsNotebook {
		displayHTML(view.Table(caption, header, rows...))
	}
}

// ShowInventory displays view.InventoryTable(inv).
func ShowInventory(inv costmodel.Inventory) {
	if gonbui.IsNotebook {
		displayHTML(view.InventoryTable(inv))
	}
}

// ShowActivations displays view.ActivationsTable(ts).
func ShowActivations(ts []costmodel.ActivationTensor) {
	if gonbui.IsNotebook {
		displayHTML(view.ActivationsTable(ts))
	}
}

// ShowInventoryChart displays view.InventoryChart(title, bars...).
func ShowInventoryChart(title string, bars ...view.InventoryBar) {
	if gonbui.IsNotebook {
		showSVG(view.InventoryChart(title, bars...))
	}
}

// ShowChart displays c.SVG().
func ShowChart(c view.MemoryChart) {
	if gonbui.IsNotebook {
		showSVG(c.SVG())
	}
}

// ShowTimeline displays view.TimelineChart(title, tl, budget).
func ShowTimeline(title string, tl costmodel.Timeline, budget hardware.Bytes) {
	if gonbui.IsNotebook {
		showSVG(view.TimelineChart(title, tl, budget))
	}
}

// ShowPlans displays view.PlansTable(caption, plans).
func ShowPlans(caption string, plans []search.Ranked) {
	if gonbui.IsNotebook {
		displayHTML(view.PlansTable(caption, plans))
	}
}

// ShowPlanRows displays view.PlanRows(caption, rows...).
func ShowPlanRows(caption string, rows ...view.PlanRow) {
	if gonbui.IsNotebook {
		displayHTML(view.PlanRows(caption, rows...))
	}
}

// ShowTraffic displays view.TrafficTable(caption, lines).
func ShowTraffic(caption string, lines []costmodel.TrafficLine) {
	if gonbui.IsNotebook {
		displayHTML(view.TrafficTable(caption, lines))
	}
}

// ShowStepTime displays view.StepTimeChart(title, bars...) and, below it,
// view.StepTimeTable(bars...).
func ShowStepTime(title string, bars ...view.StepBar) {
	if gonbui.IsNotebook {
		showSVG(view.StepTimeChart(title, bars...))
		displayHTML(view.StepTimeTable(bars...))
	}
}

// ShowFrontier displays view.FrontierChart(title, frontier, marks...).
func ShowFrontier(title string, frontier []search.Ranked, marks ...view.Mark) {
	if gonbui.IsNotebook {
		showSVG(view.FrontierChart(title, frontier, marks...))
	}
}

func showSVG(svg string, err error) {
	if err != nil {
		panic(err)
	}
	gonbui.DisplaySVG(svg)
	gonbui.Sync()
}

// displayHTML displays html and waits until GoNB has taken it.
func displayHTML(html string) {
	gonbui.DisplayHTML(html)
	gonbui.Sync()
}
