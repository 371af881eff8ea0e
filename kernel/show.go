package kernel

import (
	"github.com/janpfeifer/gonb/gonbui"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
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

// ShowTable displays Table(caption, header, rows...).
func ShowTable(caption string, header []string, rows ...[]string) {
	if gonbui.IsNotebook {
		displayHTML(Table(caption, header, rows...))
	}
}

// ShowInventory displays InventoryTable(inv).
func ShowInventory(inv costmodel.Inventory) {
	if gonbui.IsNotebook {
		displayHTML(InventoryTable(inv))
	}
}

// ShowActivations displays ActivationsTable(ts).
func ShowActivations(ts []costmodel.ActivationTensor) {
	if gonbui.IsNotebook {
		displayHTML(ActivationsTable(ts))
	}
}

// ShowInventoryChart displays InventoryChart(title, bars...).
func ShowInventoryChart(title string, bars ...InventoryBar) {
	if gonbui.IsNotebook {
		showSVG(InventoryChart(title, bars...))
	}
}

// ShowChart displays c.SVG().
func ShowChart(c MemoryChart) {
	if gonbui.IsNotebook {
		showSVG(c.SVG())
	}
}

// ShowTimeline displays TimelineChart(title, tl, budget).
func ShowTimeline(title string, tl costmodel.Timeline, budget hardware.Bytes) {
	if gonbui.IsNotebook {
		showSVG(TimelineChart(title, tl, budget))
	}
}

// ShowPlans displays PlansTable(caption, plans).
func ShowPlans(caption string, plans []search.Ranked) {
	if gonbui.IsNotebook {
		displayHTML(PlansTable(caption, plans))
	}
}

// ShowPlanRows displays PlanRows(caption, rows...).
func ShowPlanRows(caption string, rows ...PlanRow) {
	if gonbui.IsNotebook {
		displayHTML(PlanRows(caption, rows...))
	}
}

// ShowTraffic displays TrafficTable(caption, lines).
func ShowTraffic(caption string, lines []costmodel.TrafficLine) {
	if gonbui.IsNotebook {
		displayHTML(TrafficTable(caption, lines))
	}
}

// ShowStepTime displays StepTimeChart(title, bars...) and, below it,
// StepTimeTable(bars...).
func ShowStepTime(title string, bars ...StepBar) {
	if gonbui.IsNotebook {
		showSVG(StepTimeChart(title, bars...))
		displayHTML(StepTimeTable(bars...))
	}
}

// ShowFrontier displays FrontierChart(title, frontier, marks...).
func ShowFrontier(title string, frontier []search.Ranked, marks ...Mark) {
	if gonbui.IsNotebook {
		showSVG(FrontierChart(title, frontier, marks...))
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
