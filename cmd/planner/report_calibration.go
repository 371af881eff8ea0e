package main

import (
	"cmp"
	"math"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/calibration"
)

// calibrated is what planner validate's data says about this GPU and
// format: the measured rows it predicts and their errors.
type calibrated struct {
	gpu       string
	precision costmodel.Precision
	results   []calibration.Result
	// meanAbs and maxAbs are the mean and largest relative error.
	meanAbs, maxAbs float64
	total           int
}

// calibrationFor compares the embedded measurements with the model and
// keeps the rows on gpu at precision p.
func calibrationFor(gpu string, p costmodel.Precision, a costmodel.Assumptions) calibrated {
	c := calibrated{gpu: gpu, precision: p}
	rows, err := calibration.Load()
	if err != nil {
		panic("planner: the embedded calibration data does not load: " + err.Error())
	}
	cmpr := calibration.Compare(rows, a)
	c.total = len(cmpr.Results)
	for _, r := range cmpr.Results {
		if r.Cluster.GPU.Name == gpu && r.Plan.Precision == p {
			c.results = append(c.results, r)
		}
	}
	slices.SortStableFunc(c.results, func(x, y calibration.Result) int { return cmp.Compare(x.Row.ID(), y.Row.ID()) })
	for _, r := range c.results {
		c.meanAbs += math.Abs(r.Err) / float64(len(c.results))
		c.maxAbs = max(c.maxAbs, math.Abs(r.Err))
	}
	return c
}
