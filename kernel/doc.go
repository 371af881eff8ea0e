// Package kernel is what the GoNB teaching notebooks call: Show wrappers
// that display a view builder's table or chart in the cell that runs
// them (and do nothing outside a notebook), Checks that verify the
// numbers a notebook teaches and fail its cell when one is off, small
// helpers every chapter used to declare (Must, Cluster, PerToken, and
// chapter 8's Llama 3 405B questions in llama3*.go), and ShowPlayground,
// the playground's browser controls.
//
// kernel is the only package of the module that imports gonb; the
// renderers it shows live in package view, which the planner command
// uses too.
package kernel
