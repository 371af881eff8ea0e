package kernel

import (
	"math"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/render"
	"github.com/gpu-planner/planner/search"
)

// The builders live in package render, which the command line imports
// too; kernel keeps their names so notebooks read kernel.X.
type (
	// Mark is render.Mark.
	Mark = render.Mark
	// InventoryBar is render.InventoryBar.
	InventoryBar = render.InventoryBar
	// Series is render.Series.
	Series = render.Series
	// Limit is render.Limit.
	Limit = render.Limit
	// MemoryChart is render.MemoryChart.
	MemoryChart = render.MemoryChart
	// PlanRow is render.PlanRow.
	PlanRow = render.PlanRow
	// StepBar is render.StepBar.
	StepBar = render.StepBar
)

// FrontierChart is render.FrontierChart.
func FrontierChart(title string, frontier []search.Ranked, marks ...Mark) (string, error) {
	return render.FrontierChart(title, frontier, marks...)
}

// Table is render.Table.
func Table(caption string, header []string, rows ...[]string) string {
	return render.Table(caption, header, rows...)
}

// InventoryTable is render.InventoryTable.
func InventoryTable(inv costmodel.Inventory) string { return render.InventoryTable(inv) }

// ActivationsTable is render.ActivationsTable.
func ActivationsTable(ts []costmodel.ActivationTensor) string { return render.ActivationsTable(ts) }

// InventoryChart is render.InventoryChart.
func InventoryChart(title string, bars ...InventoryBar) (string, error) {
	return render.InventoryChart(title, bars...)
}

// PlansTable is render.PlansTable.
func PlansTable(caption string, plans []search.Ranked) string {
	return render.PlansTable(caption, plans)
}

// PlanRows is render.PlanRows.
func PlanRows(caption string, rows ...PlanRow) string { return render.PlanRows(caption, rows...) }

// TrafficTable is render.TrafficTable.
func TrafficTable(caption string, lines []costmodel.TrafficLine) string {
	return render.TrafficTable(caption, lines)
}

// StepTimeChart is render.StepTimeChart.
func StepTimeChart(title string, bars ...StepBar) (string, error) {
	return render.StepTimeChart(title, bars...)
}

// StepTimeTable is render.StepTimeTable.
func StepTimeTable(bars ...StepBar) string { return render.StepTimeTable(bars...) }

// ZeROChart is render.ZeROChart.
func ZeROChart(m *costmodel.Model, gpu hardware.GPU, base costmodel.Plan, a costmodel.Assumptions, gpus []int) (MemoryChart, error) {
	return render.ZeROChart(m, gpu, base, a, gpus)
}

// KVChart is render.KVChart.
func KVChart(m *costmodel.Model, c hardware.Cluster, base costmodel.ServePlan, a costmodel.Assumptions, contexts, users []int) (MemoryChart, error) {
	return render.KVChart(m, c, base, a, contexts, users)
}

// TimelineChart is render.TimelineChart.
func TimelineChart(title string, tl costmodel.Timeline, budget hardware.Bytes) (string, error) {
	return render.TimelineChart(title, tl, budget)
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
