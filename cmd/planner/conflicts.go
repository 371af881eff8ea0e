package main

import (
	"flag"
	"io"
	"slices"
)

// One rule for flags that cannot take effect: a flag given on the command
// line that the chosen mode or another flag makes irrelevant is bad input
// naming both, never silently ignored. The flag groups are read from the
// registration functions themselves, so a flag added to a group is
// covered without a second list.

// flagNames lists the flags register defines, sorted. register must
// write into values of its own: registering sets each flag's default.
func flagNames(register func(*flag.FlagSet)) []string {
	fs := flag.NewFlagSet("names", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	register(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// rejectIgnored fails on the first flag in set, among those register
// defines and not in keep, with "--NAME has no effect WHY".
func rejectIgnored(set map[string]bool, why string, register func(*flag.FlagSet), keep ...string) error {
	for _, n := range flagNames(register) {
		if set[n] && !slices.Contains(keep, n) {
			return badInputf("--%s has no effect %s", n, why)
		}
	}
	return nil
}

// rejectWith fails when flag is set together with any of others: the
// first of them is named.
func rejectWith(set map[string]bool, flag, why string, others ...string) error {
	if !set[flag] {
		return nil
	}
	for _, o := range others {
		if set[o] {
			return badInputf("--%s and --%s exclude each other: %s", flag, o, why)
		}
	}
	return nil
}

// checkClusterFlags applies the rule to the hardware flags: a cluster
// file names the GPU, GPUs per node and nodes, and a count given as 0 is
// not a count.
func checkClusterFlags(set map[string]bool, c *clusterFlags) error {
	if err := rejectWith(set, "cluster", "the cluster file gives the GPU, GPUs per node and nodes", "gpu", "gpus", "nodes", "gpus-per-node"); err != nil {
		return err
	}
	if set["gpus"] && c.gpus < 1 {
		return badInputf("--gpus %d is not a GPU count (give at least 1, or leave --gpus out)", c.gpus)
	}
	if set["nodes"] && c.nodes < 1 {
		return badInputf("--nodes %d is not a node count (give at least 1, or leave --nodes out)", c.nodes)
	}
	return nil
}

// checkModeFlags applies the rule to estimate's modes: training flags in
// serve mode (tp and pp lay out both), serving flags in train mode.
func (f *estimateFlags) checkModeFlags(set map[string]bool) error {
	if f.mode == "serve" {
		train := func(fs *flag.FlagSet) {
			var p planFlags
			var q perfFlags
			p.register(fs)
			q.register(fs)
			fs.Bool("stages", false, "")
			fs.Float64("train-workspace-gb", 0, "")
		}
		return rejectIgnored(set, "with --mode serve (it is a training flag)", train, "tp", "pp")
	}
	serve := func(fs *flag.FlagSet) {
		var s serveFlags
		s.register(fs)
		fs.Float64("serve-workspace-gb", 0, "")
	}
	return rejectIgnored(set, "with --mode train (it is a serving flag; add --mode serve)", serve)
}
