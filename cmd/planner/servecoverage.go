package main

import (
	"fmt"
	"sync"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/servingcal"
	"github.com/gpu-planner/planner/search"
)

// servingResults are the serving calibration points priced with the
// fitted defaults, computed once from the embedded measurements
// (`planner validate --serving` prints the same rows), or why they
// could not be read.
var servingResults = sync.OnceValues(func() ([]servingcal.Result, error) {
	pts, err := servingcal.Load()
	if err != nil {
		return nil, err
	}
	cases, _ := servingcal.Cases(pts)
	res, _ := servingcal.Evaluate(cases, servingcal.Defaults())
	return res, nil
})

// servingCoverage says how many measured serving points back an answer
// with engine e on the GPU of h, in its weight format: those of the
// engine on the GPU's generation with their error, and how many of them
// are on that GPU in that format, or that the answer extrapolates.
func servingCoverage(h search.ServeContext, gen costmodel.Generation) string {
	results, err := servingResults()
	if err != nil {
		return fmt.Sprintf("the serving measurements could not be read (%v): the accuracy is unknown", err)
	}
	var group []servingcal.Result
	exact := 0
	for _, r := range results {
		if r.Engine != h.Engine.Name || r.Generation != gen {
			continue
		}
		group = append(group, r)
		if r.GPU == h.GPU && r.Weights == h.Weights.String() {
			exact++
		}
	}
	if len(group) == 0 {
		return fmt.Sprintf("no measured %s points on %s GPUs: TTFT and TPOT are extrapolated", h.Engine.Name, gen)
	}
	s := servingcal.Summarize(group, servingcal.Overall)[0]
	return fmt.Sprintf("%s of %s on %s GPUs, TTFT median |error| %.1f%% (signed %+.1f%%), TPOT %.1f%% (%+.1f%%); %d on %s with %s weights (planner validate --serving)",
		plural(s.Rows, "measured point", "measured points"), h.Engine.Name, gen, 100*s.TTFTMedian, 100*s.TTFTSigned,
		100*s.TPOTMedian, 100*s.TPOTSigned, exact, h.GPU, h.Weights)
}
