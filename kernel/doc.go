// Package kernel is what the GoNB teaching notebooks call: Show wrappers
// that display a view builder's table or chart in the cell that runs
// them (and do nothing outside a notebook), Checks that verify the
// numbers a notebook teaches and fail its cell when one is off, small
// helpers every chapter used to declare (Must, Cluster, PerToken, and
// chapter 8's Llama 3 405B questions in llama3*.go), and ShowPlayground,
// the playground's browser controls.
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
