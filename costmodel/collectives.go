package costmodel

import (
	"fmt"
	"math"
)

// Collective is a communication operation of NCCL (or RCCL).
type Collective int

const (
	AllReduce Collective = iota
	AllGather
	ReduceScatter
	// SendRecv is a point-to-point transfer to one peer (pipeline
	// stage boundaries, the context-parallel ring).
	SendRecv
	// AllToAll sends a distinct slice of the buffer to every rank of
	// the group (the expert-parallel token dispatch and combine).
	AllToAll
)

var collectiveNames = enumNames{"all-reduce", "all-gather", "reduce-scatter", "send/recv", "all-to-all"}

func (c Collective) String() string               { return collectiveNames.name(int(c)) }
func (c Collective) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Algorithm is how NCCL runs a collective.
type Algorithm int

const (
	// Ring passes chunks around a ring of the group's ranks: bandwidth
	// optimal, with latency linear in the group size.
	Ring Algorithm = iota
	// Tree is NCCL's double binary tree for all-reduce (a chain inside a
	// node, binary trees across nodes): the same bandwidth term as the
	// ring for large messages, latency logarithmic in the nodes.
	Tree
	// Direct is a point-to-point transfer.
	Direct
)

var algorithmNames = enumNames{"ring", "tree", "direct"}

func (a Algorithm) String() string               { return algorithmNames.name(int(a)) }
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// commCost is the cost of one call of a collective on one GPU.
type commCost struct {
	time    float64 // seconds
	bytes   float64 // bytes each GPU sends (algorithm bytes)
	network float64 // of which cross the scale-out network
	algo    Algorithm
}

// busFactor is the bytes each rank moves per byte of the buffer:
// 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter
// (NCCL tests, doc/PERFORMANCE.md, "bus bandwidth"; the ring costs of
// Thakur et al. 2005), (n-1)/n for all-to-all (the same document: each
// rank sends (n-1)/n of its buffer, keeping its own slice), and the
// whole message for a send.
func busFactor(op Collective, n int) float64 {
	f := float64(n-1) / float64(n)
	switch op {
	case AllReduce:
		return 2 * f
	case SendRecv:
		return 1
	}
	return f
}

// busBandwidth is the per-GPU bandwidth collective op over g reaches.
// Inside one NVLink domain it is the NVLink bus bandwidth of op
// (scaleUpBusBandwidth: measured by generation and operation). Across domains
// NCCL builds rings (and trees) whose channels leave each node through
// different NICs, one per GPU (rail-optimized clusters), so the g.local
// ranks of a node together drive g.local NICs: the network share of the
// traffic runs at g.local x the per-GPU scale-out bandwidth and the rest
// at NVLink speed; the slower of the two bounds the collective. This is
// NCCL's hierarchical behaviour: a data-parallel group with all 8 GPUs of
// each node reaches about 8 x the NIC bandwidth, one with a single GPU
// per node (tp = 8 inside the node) only the bandwidth of its own NIC.
func (e *Evaluator) busBandwidth(op Collective, g group) float64 {
	up := e.scaleUpBusBandwidth(op, g.size)
	if g.nodes() <= 1 {
		return up
	}
	out := float64(e.c.GPU.ScaleOut) * e.a.ScaleOutEfficiency * float64(g.local)
	return math.Min(up, out)
}

// cost is one call of op over a buffer of s bytes (the full, unsharded
// tensor: the all-reduce's input, the all-gather's output, the
// reduce-scatter's input, the message of a send) in group g:
//
//	time = latency + s x busFactor / busBandwidth
//
// with latency = CollectiveLatency + per-step latencies, as in NCCL's
// tuning model (src/graph/tuning.cc, ncclTopoTuneModel): a ring takes
// n-1 steps per pass (two passes for all-reduce), nodes-1 of them across
// the network and the rest over NVLink; the tree takes 2 x (local-1)
// NVLink steps and 2 x ceil(log2 nodes) network steps. All-reduce picks
// the faster of ring and tree, as NCCL's tuner does. Inside one NVLink
// domain, where a measured fit applies (scaleUpFit), the time is the
// fit's (scaleUpFit.time): the measured timings already hold NCCL's
// choice of algorithm and protocol.
func (e *Evaluator) cost(op Collective, s float64, g group) commCost {
	n := g.size
	if n <= 1 || s <= 0 {
		return commCost{}
	}
	a := e.a
	nodes := g.nodes()
	bw := e.busBandwidth(op, g)
	c := commCost{bytes: busFactor(op, n) * s, algo: Ring}
	if nodes > 1 {
		c.network = c.bytes / float64(max(g.local, 1))
	}
	if op == AllToAll {
		return e.allToAll(s, g)
	}
	if f, ok := e.measuredScaleUp(op); ok && nodes <= 1 {
		up := float64(e.c.GPU.ScaleUp)
		c.time = f.time(op, n, s, up)
		if op == SendRecv {
			// A send of s bytes is a 2-rank all-gather of 2s.
			c.algo, c.time = Direct, f.time(AllGather, 2, 2*s, up)
		}
		return c
	}
	if op == SendRecv {
		// A point-to-point message uses one link, not the node's NICs.
		bw = e.scaleUpBusBandwidth(SendRecv, 2)
		hop := a.ScaleUpHopLatency
		if nodes > 1 {
			bw = float64(e.c.GPU.ScaleOut) * a.ScaleOutEfficiency
			hop = a.ScaleOutHopLatency
			c.network = s
		}
		c.algo = Direct
		c.time = float64(a.CollectiveLatency+hop) + s/bw
		return c
	}
	crossings := nodes - 1
	steps := float64(n-1-crossings)*float64(a.ScaleUpHopLatency) + float64(crossings)*float64(a.ScaleOutHopLatency)
	transfer := c.bytes / bw
	if op != AllReduce {
		c.time = float64(a.CollectiveLatency) + steps + transfer
		return c
	}
	ring := float64(a.CollectiveLatency) + 2*steps + transfer
	treeSteps := float64(g.local-1)*float64(a.ScaleUpHopLatency) + math.Ceil(math.Log2(float64(nodes)))*float64(a.ScaleOutHopLatency)
	tree := float64(a.CollectiveLatency) + 2*treeSteps + transfer/treeBandwidthShare
	c.time = ring
	if tree < ring {
		c.time, c.algo = tree, Tree
	}
	return c
}

// treeBandwidthShare is the tree's bus bandwidth relative to the ring's
// in NCCL's model (src/graph/tuning.cc: busBw x 0.9 for trees), which
// makes the ring win for large messages and the tree for small ones.
const treeBandwidthShare = 0.9

// describeGroup is a group's placement in words, e.g. "8 ranks in 1 node"
// or "64 ranks over 8 nodes (8 per node)".
func describeGroup(g group) string {
	if g.nodes() <= 1 {
		return fmt.Sprintf("%d ranks in 1 node", g.size)
	}
	return fmt.Sprintf("%d ranks over %d nodes (%d per node)", g.size, g.nodes(), g.local)
}

// allToAll is one NCCL all-to-all of an s-byte buffer per rank over g:
// every rank sends s/n to each of the n-1 others, (n-1)/n x s in all
// (nccl-tests doc/PERFORMANCE.md, alltoall: busbw = algbw x (n-1)/n).
// The (n-local)/n x s bound for other nodes leaves through the rank's
// own NIC and the (local-1)/n x s for its node's GPUs over NVLink, at
// the same time; the slower sets the time:
//
//	time = latency + max(network / scale-out bw, rest / NVLink bw)
//
// with latency the collective's base plus one hop of the slowest tier
// (NCCL posts the n-1 sends and receives together). Inside one NVLink
// domain with a measured fit, the latency and bandwidth are the fit's
// (scaleUpFit).
func (e *Evaluator) allToAll(s float64, g group) commCost {
	a, n := e.a, float64(g.size)
	local := float64(min(max(g.local, 1), g.size))
	c := commCost{bytes: s * (n - 1) / n, algo: Direct}
	c.network = s * (n - local) / n
	up := e.scaleUpBusBandwidth(AllToAll, g.size)
	if f, ok := e.measuredScaleUp(AllToAll); ok && c.network <= 0 {
		c.time = f.time(AllToAll, g.size, s, float64(e.c.GPU.ScaleUp))
		return c
	}
	hop := a.ScaleUpHopLatency
	t := (c.bytes - c.network) / up
	if c.network > 0 {
		out := float64(e.c.GPU.ScaleOut) * a.ScaleOutEfficiency
		t = max(t, c.network/out)
		hop = a.ScaleOutHopLatency
	}
	c.time = float64(a.CollectiveLatency+hop) + t
	return c
}
