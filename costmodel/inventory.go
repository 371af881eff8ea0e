package costmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// Line groups.
const (
	GroupStates      = "model states"
	GroupActivations = "activations"
	GroupKV          = "kv cache"
	GroupOverheads   = "overheads"
)

// Line is one item of a memory inventory: what it is, how many bytes per
// GPU, the formula with the numbers put in, and where the formula comes
// from. The CLI table, the JSON, the notebooks and the charts all render
// these same lines.
type Line struct {
	Name    string         `json:"name"`
	Group   string         `json:"group"`
	Bytes   hardware.Bytes `json:"bytes"`
	Formula string         `json:"formula"`
	Source  string         `json:"source,omitempty"`
}

// Inventory is the itemized memory of one GPU against its budget.
type Inventory struct {
	Lines []Line         `json:"lines"`
	Total hardware.Bytes `json:"total_bytes"`
	// Capacity is the driver-reported memory; Budget the share a plan may
	// use (Assumptions.HBMFraction); Headroom = Budget - Total, negative
	// when the plan does not fit.
	Capacity hardware.Bytes `json:"capacity_bytes"`
	Budget   hardware.Bytes `json:"budget_bytes"`
	Headroom hardware.Bytes `json:"headroom_bytes"`
	Fits     bool           `json:"fits"`
}

// newInventory totals lines (dropping empty ones) against capacity.
func newInventory(lines []Line, capacity hardware.Bytes, fraction float64) Inventory {
	inv := Inventory{Capacity: capacity, Budget: hardware.Bytes(fraction) * capacity}
	for _, l := range lines {
		if l.Bytes != 0 {
			inv.Lines = append(inv.Lines, l)
			inv.Total += l.Bytes
		}
	}
	inv.Headroom = inv.Budget - inv.Total
	inv.Fits = inv.Headroom >= 0
	return inv
}

// Group sums the lines of one group.
func (inv Inventory) Group(g string) hardware.Bytes {
	var sum hardware.Bytes
	for _, l := range inv.Lines {
		if l.Group == g {
			sum += l.Bytes
		}
	}
	return sum
}

// Largest returns the n largest lines, largest first (ties by name).
func (inv Inventory) Largest(n int) []Line {
	ls := slices.Clone(inv.Lines)
	slices.SortStableFunc(ls, func(a, b Line) int {
		if a.Bytes != b.Bytes {
			if a.Bytes > b.Bytes {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return ls[:min(n, len(ls))]
}

// FormatCount formats a parameter or token count compactly: "70.55 B",
// "1.05 M", "12.3 k".
func FormatCount(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 2, 64) + " B"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + " k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// perParam formats bytes per parameter: "2 B/param", "0.5 B/param".
func perParam(b float64) string {
	return strconv.FormatFloat(b, 'f', -1, 64) + " B/param"
}

// sharded appends the ZeRO division to a formula when it applies.
func sharded(f string, z, stage, n int) string {
	if z >= stage && n > 1 {
		return fmt.Sprintf("%s / %d (ZeRO-%d over dp*cp)", f, n, z)
	}
	return f
}
