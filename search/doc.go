// Package search enumerates parallel plans and finds the fewest GPUs and the
// best throughput under the HBM budget.
package search
