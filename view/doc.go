// Package view builds the planner's reports as HTML tables and SVG
// charts drawn with gonum.org/v1/plot: memory inventories, activation
// lists, the collectives of a training step, step-time breakdowns, the
// plans a search ranked, the inventory as stacked bars against the HBM
// budget, memory per GPU against GPU count or context length, the memory
// of a pipeline stage over one step, the parts of each plan's step time
// and a search's Pareto frontier of throughput against GPU count.
//
// Every builder is a pure function of its inputs with byte-identical
// output for identical input, golden-tested under testdata/. The
// notebooks reach them through package kernel, which adds the Show
// wrappers; the command line (planner report) uses them directly.
package view
