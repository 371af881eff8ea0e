package main

import (
	"flag"
	"fmt"

	"github.com/gpu-planner/planner/costmodel/trainrun"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// Orders of --rank-by for the plans of a whole run.
const (
	rankThroughput = "throughput"
	rankCost       = "cost"
	rankTime       = "time"
)

// runFlags are the flags of the whole training run: the token budget,
// the price and power assumptions and, for search, a deadline and an
// order.
type runFlags struct {
	tokens, deadline, rankBy string
	price, pue, util         float64
	search                   bool
}

// runSpec is the resolved run: on is false when --tokens is absent.
type runSpec struct {
	on       bool
	s        trainrun.Settings
	deadline hardware.Seconds
	rankBy   string
	// top is how many frontier rows the text shows (all when 0).
	top int
}

func (f *runFlags) register(fs *flag.FlagSet, search bool) {
	f.search = search
	fs.StringVar(&f.tokens, "tokens", "", "training token budget for the whole run: 15e12, 15T, 300B (adds time to train, GPU-hours, cost, energy)")
	fs.Float64Var(&f.price, "gpu-hour-price", 0, "US dollars per GPU-hour, for the cost of the run (needs --tokens)")
	fs.Float64Var(&f.pue, "pue", trainrun.DefaultPUE, "facility power usage effectiveness, for the energy of the run")
	fs.Float64Var(&f.util, "power-utilization", trainrun.DefaultPowerUtilization, "share of the TDP each GPU draws on average, for the energy of the run")
	if !search {
		return
	}
	fs.StringVar(&f.deadline, "deadline", "", "the run must finish within this time: 90d, 12w, 2000h (needs --tokens; without --gpus searches every count for the fewest GPUs that meet it)")
	fs.StringVar(&f.rankBy, "rank-by", rankThroughput, "order of the whole-run table: throughput, cost (GPU-hours) or time (to train)")
}

// resolve checks the flags; set holds the names given.
func (f *runFlags) resolve(set map[string]bool) (runSpec, error) {
	r := runSpec{rankBy: f.rankBy}
	if f.tokens == "" {
		for _, n := range []string{"gpu-hour-price", "pue", "power-utilization", "deadline", "rank-by"} {
			if set[n] {
				return r, badInputf("--%s needs --tokens, the run's token budget (e.g. --tokens 15T)", n)
			}
		}
		return r, nil
	}
	tokens, err := trainrun.ParseTokens(f.tokens)
	if err != nil {
		return r, badInput(err)
	}
	r.on, r.s = true, trainrun.Settings{Tokens: tokens, GPUHourPrice: f.price, PUE: f.pue, PowerUtilization: f.util}
	if err := r.s.Validate(); err != nil {
		return r, badInput(err)
	}
	if f.deadline != "" {
		if r.deadline, err = trainrun.ParseDuration(f.deadline); err != nil {
			return r, badInput(err)
		}
	}
	switch f.rankBy {
	case rankThroughput, rankCost, rankTime, "":
	default:
		return r, badInputf("--rank-by %q is not %s, %s or %s", f.rankBy, rankThroughput, rankCost, rankTime)
	}
	return r, nil
}

// of is the run of a plan of gpus GPUs at tokensPerSecond on GPU g.
func (r runSpec) of(gpus int, tokensPerSecond float64, g hardware.GPU) trainrun.Run {
	return trainrun.Of(r.s, gpus, tokensPerSecond, g.TDP)
}

// meets reports whether a run finishes within the deadline (always when
// there is none).
func (r runSpec) meets(t hardware.Seconds) bool { return r.deadline == 0 || t <= r.deadline }

// days formats a duration in days: "94.2 days".
func days(t hardware.Seconds) string { return fmt.Sprintf("%.1f days", trainrun.Days(t)) }

// adjust widens a fewest-GPUs search to the frontier when a deadline is
// given: the fewest GPUs that meet it lie on the frontier (a count whose
// best plan meets it is faster than every smaller count that does not).
func (r runSpec) adjust(o *search.Options) {
	if r.deadline > 0 && o.Objective == search.FewestGPUs {
		o.Frontier = true
	}
}
