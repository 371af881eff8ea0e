// Package search enumerates parallel plans and finds the fewest GPUs and
// the best throughput under the HBM budget.
//
// A Space holds one slice per axis (tp, pp, vpp, cp, the first/last-stage
// split, ZeRO, recompute, sequence parallelism, micro-batch); the data
// parallelism follows from the GPU count and the gradient accumulation
// from the fixed global batch. Space.Candidates walks the axes as an
// iterator; small named checks (divides, layerSplit, seqParallel,
// batchDivides) reject invalid branches, and every point of the grid is
// counted once, under the first reason that rejects it (Counts).
//
// Search evaluates the candidates on one GPU count (Throughput) or on
// ascending counts until a plan fits (FewestGPUs, optionally every count
// up to a maximum for the Pareto frontier of GPUs against throughput).
// A plan fits when costmodel's peak stage is within the budget; plans
// that fit are ranked by costmodel.Evaluator.Performance. The hot loop
// allocates nothing per plan, rejects a layout whose model states alone
// exceed the budget before any activation math, evaluates only the
// stages that can hold the peak, and is spread over goroutines whose
// results merge under a total order, so the result is the same for any
// number of workers.
package search
