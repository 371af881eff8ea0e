package kernel

import (
	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
	"github.com/gpu-planner/planner/view"
)

// The builders live in package render, which the command line imports
// too; kernel keeps their names so notebooks read kernel.X.
type (
	// Mark is view.Mark.
	Mark = view.Mark
	// InventoryBar is view.InventoryBar.
	InventoryBar = view.InventoryBar
	// Series is view.Series.
	Series = view.Series
	// Limit is view.Limit.
	Limit = view.Limit
	// MemoryChart is view.MemoryChart.
	MemoryChart = view.MemoryChart
	// PlanRow is view.PlanRow.
	PlanRow = view.PlanRow
	// StepBar is view.StepBar.
	StepBar = view.StepBar
)

// FrontierChart is view.FrontierChart.
func FrontierChart(title string, frontier []search.Ranked, marks ...Mark) (string, error) {
	return view.FrontierChart(title, frontier, marks...)
}

// Table is view.Table.
func Table(caption string, header []string, rows ...[]string) string {
	return view.Table(caption, header, rows...)
}

// InventoryTable is view.InventoryTable.
func InventoryTable(inv costmodel.Inventory) string { return view.InventoryTable(inv) }

// ActivationsTable is view.ActivationsTable.
func ActivationsTable(ts []costmodel.ActivationTensor) string { return view.ActivationsTable(ts) }

// InventoryChart is view.InventoryChart.
func InventoryChart(title string, bars ...InventoryBar) (string, error) {
	return view.InventoryChart(title, bars...)
}

// PlansTable is view.PlansTable.
func PlansTable(caption string, plans []search.Ranked) string {
	return view.PlansTable(caption, plans)
}

// PlanRows is view.PlanRows.
func PlanRows(caption string, rows ...PlanRow) string { return view.PlanRows(caption, rows...) }

// TrafficTable is view.TrafficTable.
func TrafficTable(caption string, lines []costmodel.TrafficLine) string {
	return view.TrafficTable(caption, lines)
}

// StepTimeChart is view.StepTimeChart.
func StepTimeChart(title string, bars ...StepBar) (string, error) {
	return view.StepTimeChart(title, bars...)
}

// StepTimeTable is view.StepTimeTable.
func StepTimeTable(bars ...StepBar) string { return view.StepTimeTable(bars...) }

// ZeROChart is view.ZeROChart.
func ZeROChart(m *costmodel.Model, gpu hardware.GPU, base costmodel.Plan, a costmodel.Assumptions, gpus []int) (MemoryChart, error) {
	return view.ZeROChart(m, gpu, base, a, gpus)
}

// KVChart is view.KVChart.
func KVChart(m *costmodel.Model, c hardware.Cluster, base costmodel.ServePlan, a costmodel.Assumptions, contexts, users []int) (MemoryChart, error) {
	return view.KVChart(m, c, base, a, contexts, users)
}

// TimelineChart is view.TimelineChart.
func TimelineChart(title string, tl costmodel.Timeline, budget hardware.Bytes) (string, error) {
	return view.TimelineChart(title, tl, budget)
}
