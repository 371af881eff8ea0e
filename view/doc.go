// Package view renders the planner's reports as HTML and SVG: tables of
// memory inventories, activation lists, the collectives of a training
// step, step-time breakdowns and the plans a search ranked, and charts
// drawn with gonum.org/v1/plot (the inventory as stacked bars against
// the HBM budget, memory per GPU against GPU count or context length,
// the memory of a pipeline stage over one training step, the parts of
// each plan's step time, and a search's Pareto frontier of throughput
// against GPU count).
//
// The builders (InventoryTable, InventoryChart, MemoryChart.SVG,
// TimelineChart, PlansTable, TrafficTable, StepTimeChart, FrontierChart,
// ...) are pure functions of their inputs with byte-identical output for
// identical input, and are golden-tested. Playground renders one setting
// of the playground's controls.
//
// view imports neither gonb nor net/http, so the notebooks' kernel
// package and the planner command ("planner playground", a local web
// page) draw the same charts.
package view
