package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// RankOrder is the order in which the parallel dimensions are laid out
// over consecutive GPU ranks, innermost first: "tp-cp-dp-pp" (the empty
// string's meaning) puts the tensor-parallel ranks of a group on
// neighbouring GPUs, then context, data and pipeline parallelism, as
// Megatron-LM's default process-group order does (megatron/core/
// parallel_state.py, order "tp-cp-ep-dp-pp"). torchtitan's device mesh
// ["pp", "dp", "cp", "tp"] is the same order written outermost first.
// The order decides which groups stay inside one NVLink domain.
type RankOrder string

// DefaultRankOrder is Megatron-LM's order.
const DefaultRankOrder RankOrder = "tp-cp-dp-pp"

// parDim names one parallel dimension.
type parDim uint8

const (
	dimTP parDim = iota
	dimCP
	dimDP
	dimPP
	numDims
)

var dimNames = [numDims]string{"tp", "cp", "dp", "pp"}

// dims parses the order into dimensions, innermost first (NewEvaluator
// parses its assumptions' order once for all the plans it evaluates).
func (o RankOrder) dims() ([numDims]parDim, error) {
	var out [numDims]parDim
	s := strings.TrimSpace(string(o))
	if s == "" {
		s = string(DefaultRankOrder)
	}
	var seen [numDims]bool
	for i := range numDims {
		part, rest, more := strings.Cut(s, "-")
		d := dimIndex(part)
		if d < 0 || seen[d] || more != (i < numDims-1) {
			return out, fmt.Errorf("costmodel: rank order %q must name tp, cp, dp and pp once each, innermost first (e.g. %s)", string(o), DefaultRankOrder)
		}
		seen[d], out[i], s = true, parDim(d), rest
	}
	return out, nil
}

func dimIndex(name string) int {
	for j, n := range dimNames {
		if strings.EqualFold(n, name) {
			return j
		}
	}
	return -1
}

// Validate checks that the order names each dimension once.
func (o RankOrder) Validate() error {
	_, err := o.dims()
	return err
}

// group is where the ranks of one communicator sit: size ranks, local of
// them in each NVLink domain (node).
type group struct {
	size, local int
}

// nodes is the number of NVLink domains the group spans.
func (g group) nodes() int { return g.size / max(g.local, 1) }

// tier is the slowest link the group's traffic crosses.
func (g group) tier() hardware.Tier {
	switch {
	case g.size <= 1:
		return hardware.Local
	case g.nodes() <= 1:
		return hardware.ScaleUp
	}
	return hardware.ScaleOut
}

// placement is the communicator of every parallel dimension of a plan.
type placement struct {
	tp, cp, dp, pp group
	// shard is the data x context group that reduces gradients and
	// shards ZeRO states (Plan.ShardDegree).
	shard group
	// etp, ep and edp are the expert layers' groups (expertGroups).
	etp, ep, edp group
}

// expertGroups places the expert layers' etp x ep x edp regrouping of a
// stage's tp x cp x dp ranks in Megatron-Core's expert order, etp
// innermost, then ep, then edp (parallel_state.py, expert rank
// generator "tp-ep-dp-pp" with tp = etp): a group of stride s holds
// min(size, gpusPerNode/s) ranks of a node when s < gpusPerNode, else 1.
func (pl *placement) expertGroups(p Plan, gpusPerNode int) {
	etp, ep := max(p.ETP, 1), max(p.EP, 1)
	at := func(size, stride int) group {
		if stride >= gpusPerNode {
			return group{size: size, local: 1}
		}
		return group{size: size, local: min(size, max(gpusPerNode/stride, 1))}
	}
	pl.etp, pl.ep, pl.edp = at(etp, 1), at(ep, etp), at(p.ExpertDP(), etp*ep)
}

// place lays the plan's dimensions over ranks in order and counts, for
// each group, how many of its ranks share a node of gpusPerNode GPUs.
// A dimension whose stride (the product of the sizes inside it) is s has
// min(size, gpusPerNode/s) ranks in a node when s < gpusPerNode, and one
// otherwise; this is exact when the sizes are powers of two, as they are
// in practice, and a close bound otherwise.
func place(p Plan, order [numDims]parDim, gpusPerNode int) placement {
	size := [numDims]int{p.TP, p.CP, p.DP, p.PP}
	var local [numDims]int
	stride := 1
	for _, d := range order {
		local[d] = 1
		if stride < gpusPerNode {
			local[d] = min(size[d], max(gpusPerNode/stride, 1))
		}
		stride *= size[d]
	}
	g := func(d parDim) group { return group{size: size[d], local: local[d]} }
	shardLocal := min(local[dimDP]*local[dimCP], gpusPerNode)
	pl := placement{tp: g(dimTP), cp: g(dimCP), dp: g(dimDP), pp: g(dimPP),
		shard: group{size: p.DP * p.CP, local: shardLocal}}
	pl.expertGroups(p, gpusPerNode)
	return pl
}
