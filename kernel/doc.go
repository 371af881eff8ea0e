// Package kernel renders the planner's reports for GoNB notebooks: HTML
// tables of memory inventories, activation lists, the collectives of a
// training step, step-time breakdowns and the plans a search ranked, and
// SVG charts drawn with gonum.org/v1/plot (the inventory as stacked bars
// against the HBM budget, memory per GPU against GPU count or context
// length, the memory of a pipeline stage over one training step, the
// parts of each plan's step time, and a search's Pareto frontier of
// throughput against GPU count).
//
// The builders (InventoryTable, InventoryChart, MemoryChart.SVG,
// TimelineChart, PlansTable, TrafficTable, StepTimeChart, FrontierChart,
// ...) are pure functions of their inputs with byte-identical output for
// identical input, golden-tested in package view, where they live so
// that the command line can use them without gonb; kernel keeps their
// names. The Show wrappers display a
// builder's output in the notebook and do nothing outside one. Checks
// lets a notebook verify the numbers it teaches and fail its cell when
// one is off. Playground renders one setting of the playground notebook;
// ShowPlayground adds the browser controls.
//
// kernel is the only package of the module that imports gonb.
package kernel
