package costmodel

// The expert-parallel traffic of a training step: per MoE layer and
// micro-batch the token dispatch and combine all-to-alls over the ep
// group (forward, again backward for the gradients, and again in a full
// recompute), with etp > 1 the expert tensor-parallel all-gather of the
// dispatched tokens and reduce-scatter of the expert outputs around
// them (Megatron-Core's MoEAlltoAllTokenDispatcher), and the routed
// experts' gradient reduction over the expert data parallel group.

// Names of the expert traffic lines.
const (
	nameEPFwd  = "ep: token dispatch + combine, forward"
	nameEPBwd  = "ep: gradient dispatch + combine, backward"
	nameEPRec  = "ep: token dispatch + combine, recompute"
	nameETPAG  = "etp: dispatched-token all-gather (fwd, bwd)"
	nameETPRS  = "etp: expert-output reduce-scatter (fwd, bwd)"
	nameEDPAR  = "edp: expert gradient all-reduce"
	nameEDPRS  = "edp: expert gradient reduce-scatter"
	nameEDPAG  = "edp: updated expert weight all-gather"
	nameEZ3Fwd = "edp zero-3: expert weight all-gather, forward"
	nameEZ3Bwd = "edp zero-3: expert weight all-gather, backward"
	nameEZ3RS  = "edp zero-3: expert gradient reduce-scatter"

	overlapMoE = "other micro-batch's compute"

	srcEPComm = "Lepikhin et al. 2020, GShard (arXiv:2006.16668), sec. 3.2: dispatch and combine all-to-all per MoE layer; " +
		"Megatron-Core MoEAlltoAllTokenDispatcher; nccl-tests doc/PERFORMANCE.md: all-to-all sends (n-1)/n of the buffer"
)

var expertDPNames = dpNames{nameEDPAR, nameEDPRS, nameEDPAG, nameEZ3Fwd, nameEZ3Bwd, nameEZ3RS}

// epLayer is one MoE layer's expert-parallel collectives for one
// micro-batch.
type epLayer struct {
	a2a, ag, rs   commCost // one call each
	msg           float64  // the all-to-all buffer per GPU
	pass          float64  // seconds of one pass: two all-to-alls, the etp gather and scatter
	fwd, bwd, rec float64  // exposed seconds per layer
}

// epTokens is the all-to-all buffer of one GPU for one micro-batch:
//
//	buffer = tokens/tp (sequence parallel) x top-k x h x bytes
//
// every token's top-k copies leave for their experts' ranks (dropless;
// GShard sec. 3.2, Megatron-Core's permute before the all-to-all).
func (e *Evaluator) epTokens(in *stepInput) float64 {
	t := in.sh.tokens
	if in.p.SP {
		t /= in.sh.tp
	}
	return t * float64(e.m.MoE.TopK) * float64(e.m.Hidden) * in.r.e
}

// epLayerComm costs one MoE layer's expert-parallel collectives. With
// EPCommOverlap they hide behind the layer's compute (of the other
// micro-batch, as Megatron-Core's 1F1B all-to-all overlap and DualPipe
// run them, DeepSeek-V3 report sec. 3.2.1); otherwise they are exposed.
func (e *Evaluator) epLayerComm(in *stepInput) epLayer {
	var c epLayer
	p := in.p
	if e.m.MoE == nil || p.EP*p.ETP <= 1 {
		return c
	}
	c.msg = e.epTokens(in)
	c.a2a = e.cost(AllToAll, c.msg, in.pl.ep)
	if e.a.EPNodeDedup && in.pl.ep.nodes() > 1 {
		c.a2a = e.nodeDedupAllToAll(c.msg, in.pl.ep)
	}
	if p.ETP > 1 {
		full := c.msg * float64(p.ETP)
		c.ag, c.rs = e.cost(AllGather, full, in.pl.etp), e.cost(ReduceScatter, full, in.pl.etp)
	}
	c.pass = 2*c.a2a.time + c.ag.time + c.rs.time
	c.fwd, c.bwd = c.pass, c.pass
	if e.a.EPCommOverlap {
		c.fwd = exposedAfter(c.pass, in.moe.fwd.total()-in.moe.fwd.host)
		c.bwd = exposedAfter(c.pass, in.moe.bwd.total())
	}
	if p.Recompute.Checkpointed() {
		c.rec = c.fwd
	}
	return c
}

// epComm adds stage's expert-parallel collectives over its moe layers,
// the recompute's over the recMoE of them it reruns.
func (e *Evaluator) epComm(in *stepInput, st *stageTime, set *commSet, moe, recMoE float64) {
	c := &in.ep
	if c.pass == 0 || moe == 0 {
		return
	}
	overlap := ""
	if e.a.EPCommOverlap {
		overlap = overlapMoE
	}
	share := func(exposed float64, k commCost, calls float64) float64 {
		return exposed * calls * k.time / c.pass
	}
	passes := [3]struct {
		name        string
		exposed, of float64
	}{{nameEPFwd, c.fwd, moe}, {nameEPBwd, c.bwd, moe}, {nameEPRec, c.rec, recMoE}}
	for i, ps := range passes {
		if i == 2 && (!in.p.Recompute.Checkpointed() || recMoE == 0) {
			break
		}
		st.addComm(set, commItem{name: ps.name, kind: CommEP, op: AllToAll, g: in.pl.ep, msg: c.msg, calls: 2 * ps.of,
			cost: c.a2a, exposed: ps.of * share(ps.exposed, c.a2a, 2), overlap: overlap, source: srcEPComm}, true, in.m)
	}
	if c.ag.time == 0 {
		return
	}
	exposed := c.fwd + c.bwd + c.rec*recMoE/moe
	calls := 2 * moe
	if in.p.Recompute.Checkpointed() {
		calls += recMoE
	}
	full := c.msg * float64(in.p.ETP)
	st.addComm(set, commItem{name: nameETPAG, kind: CommEP, op: AllGather, g: in.pl.etp, msg: full, calls: calls,
		cost: c.ag, exposed: moe * share(exposed, c.ag, 1), overlap: overlap, source: srcEPComm}, true, in.m)
	st.addComm(set, commItem{name: nameETPRS, kind: CommEP, op: ReduceScatter, g: in.pl.etp, msg: full, calls: calls,
		cost: c.rs, exposed: moe * share(exposed, c.rs, 1), overlap: overlap, source: srcEPComm}, true, in.m)
}

// expertDPComm adds the routed experts' gradient reduction and weight
// gathers over the expert data parallel group, as dpComm does for the
// rest of the stage (Megatron-Core reduces expert gradients over the
// expert data parallel group, not dp x cp).
func (e *Evaluator) expertDPComm(in *stepInput, st *stageTime, set *commSet, moe int, layers float64) {
	params := e.expertStageParams(in.p, moe)
	e.dpCommOver(in, st, set, dpTarget{ps: paramSplit{total: params, trained: params}, g: in.pl.edp, names: &expertDPNames}, layers)
}

// remoteNodeShare is the share of a token's top-k copies that a
// node-deduplicating dispatcher sends over the network when the ep
// group spans nodes NVLink domains, each holding experts/nodes of the
// routed experts: a token chooses k distinct experts uniformly (the
// force-balanced router of the benchmarks; DeepSeek-V3's balanced
// routing, arXiv:2412.19437 sec. 2.1.2), a node receives it once if it
// holds at least one of them,
//
//	P(node) = 1 - C(E - E/nodes, k) / C(E, k)
//
// and the token leaves for the nodes-1 others, against k (nodes-1)/nodes
// copies without deduplication:
//
//	share = nodes x P(node) / k
//
// (DeepSeek-V3 report sec. 3.2.1: each token crosses IB once per node
// and is forwarded over NVLink; DeepEP README, internode normal
// kernels.) 1 when there is nothing to deduplicate.
func remoteNodeShare(experts, k, nodes int) float64 {
	if nodes <= 1 || k <= 1 || experts < nodes {
		return 1
	}
	perNode := experts / nodes
	// C(E-E/n, k)/C(E, k) = prod_{i<k} (E-E/n-i)/(E-i)
	miss := 1.0
	for i := range k {
		miss *= max(float64(experts-perNode-i), 0) / float64(experts-i)
	}
	return min(1, float64(nodes)*(1-miss)/float64(k))
}

// nodeDedupAllToAll is one dispatch (or combine) of an s-byte buffer per
// rank over g under EPNodeDedup: the network carries remoteNodeShare of
// the (n - local)/n x s bound for other nodes, and NVLink every copy
// for another GPU, those of the node and those forwarded from the
// network, (n-1)/n x s; the slower side sets the time, as in allToAll.
func (e *Evaluator) nodeDedupAllToAll(s float64, g group) commCost {
	a, n := e.a, float64(g.size)
	local := float64(min(max(g.local, 1), g.size))
	c := commCost{bytes: s * (n - 1) / n, algo: Direct}
	c.network = s * (n - local) / n * remoteNodeShare(e.m.MoE.Experts, e.m.MoE.TopK, g.nodes())
	up := e.scaleUpBusBandwidth(AllToAll, g.size)
	out := float64(e.c.GPU.ScaleOut) * a.ScaleOutEfficiency
	c.time = float64(a.CollectiveLatency+a.ScaleOutHopLatency) + max(c.bytes/up, c.network/out)
	return c
}
