package main

import (
	"fmt"
	"sync"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/calibration"
)

// calibrationCoverage is the calibration rows per GPU and format, with
// their error under the default assumptions: computed once from the
// embedded calibration files (`planner validate` prints the same rows).
var calibrationCoverage = sync.OnceValue(func() []calibration.Coverage {
	rows, err := calibration.Load()
	if err != nil {
		return nil
	}
	return calibration.CoverageTable(calibration.Compare(rows, costmodel.DefaultAssumptions()).Results)
})

// coverageLine says how many calibration rows back an answer on gpu in
// precision p, and their error, or that the answer extrapolates.
func coverageLine(gpu string, p costmodel.Precision) string {
	for _, c := range calibrationCoverage() {
		if c.GPU == gpu && c.Format == p.String() {
			return fmt.Sprintf("%s on %s %s, median |error| %.1f%%, signed median %+.1f%% (+ is optimistic; planner validate)",
				plural(c.Rows, "calibration row", "calibration rows"), gpu, p, 100*c.Median, 100*c.Signed)
		}
	}
	return fmt.Sprintf("no calibration rows on %s %s: the step time is extrapolated", gpu, p)
}
