package search

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/samber/lo"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// ServeQuery asks how to serve a model: on which GPU, to how many users of
// how long a context, in which formats.
type ServeQuery struct {
	Model *costmodel.Model
	GPU   hardware.GPU
	// GPUsPerNode is the scale-up (NVLink) domain; 0 takes the GPU's.
	GPUsPerNode int
	// GPUs asks for the layouts on exactly that many GPUs; 0 asks for the
	// fewest GPUs that hold the load.
	GPUs int
	// Load carries Context, Users, Weights, KV and BlockTokens; its TP,
	// PP and Replicas are what the search chooses and are ignored.
	Load        costmodel.ServePlan
	Assumptions costmodel.Assumptions
}

// ServeLayout is one layout with its memory and its speed.
type ServeLayout struct {
	// Layout names it: "tp8-pp2 x 1 replica".
	Layout  string                 `json:"layout"`
	Plan    costmodel.ServePlan    `json:"plan"`
	Cluster hardware.Cluster       `json:"cluster"`
	Memory  *costmodel.ServeReport `json:"memory"`
	Speed   costmodel.ServeSpeed   `json:"speed"`
	// Holds: the weights and every user's cache fit the budget.
	Holds bool `json:"holds"`
}

// ServeResult answers a ServeQuery.
type ServeResult struct {
	Model       string              `json:"model"`
	GPU         string              `json:"gpu"`
	GPUsPerNode int                 `json:"gpus_per_node"`
	Load        costmodel.ServePlan `json:"load"`
	// Fewest is true when GPUs is the fewest that hold the load, false
	// when it is the count the query asked for. GPUs is 0 when no
	// layout of the GPU holds the load.
	Fewest bool `json:"fewest"`
	GPUs   int  `json:"gpus"`
	// Layouts are ranked: those that hold the load first, fastest
	// (shortest time per output token) first; then those that do not,
	// most users first.
	Layouts []ServeLayout `json:"layouts"`
	// Alternatives are the three answers when the load does not fit the
	// reference count of GPUs (the query's, or one node).
	Reference    int           `json:"reference_gpus"`
	Alternatives []Alternative `json:"alternatives,omitempty"`
}

// Best is the top-ranked layout that holds the load, or nil.
func (r *ServeResult) Best() *ServeLayout {
	if len(r.Layouts) > 0 && r.Layouts[0].Holds {
		return &r.Layouts[0]
	}
	return nil
}

// shape is a replica's parallel layout: tp GPUs per stage, pp stages,
// and for MoE models under load dp attention data-parallel ranks and
// ep expert-parallel ranks (0: none).
type shape struct{ tp, pp, dp, ep int }

// Serve finds the fewest GPUs of q.GPU and the layouts that hold q's
// load (or, with q.GPUs, the layouts on exactly that many), ranked, and
// the three answers when the load does not fit the reference count.
// Layout rules: tensor parallelism stays inside the NVLink domain and
// divides it and the attention heads (costmodel.Model.SplitsHeads); a
// pipeline spans whole nodes, one stage per node; replicas take the rest.
func Serve(q ServeQuery) (*ServeResult, error) {
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	r := &ServeResult{Model: q.Model.Name, GPU: q.GPU.Name, GPUsPerNode: q.GPUsPerNode, Load: q.Load,
		GPUs: q.GPUs, Reference: q.GPUs}
	if q.GPUs == 0 {
		r.Fewest, r.Reference = true, q.GPUsPerNode
		if r.GPUs, err = fewest(q); err != nil {
			return nil, err
		}
	}
	if r.GPUs > 0 {
		if r.Layouts, err = layoutsOn(q, r.GPUs); err != nil {
			return nil, err
		}
	}
	if r.Best() == nil || r.GPUs > r.Reference {
		if r.Alternatives, err = alternatives(q, r.Reference); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// normalize fills the domain size and checks what EstimateServe cannot:
// the GPU count and the load.
func (q ServeQuery) normalize() (ServeQuery, error) {
	var err error
	if q.GPUsPerNode, err = checkServeTarget(q.Model, q.GPU, q.GPUsPerNode); err != nil {
		return q, err
	}
	if q.GPUs != 0 {
		if _, err := hardware.ClusterForGPUs(q.GPU, q.GPUs, q.GPUsPerNode); err != nil {
			return q, err
		}
	}
	q.Load.TP, q.Load.PP, q.Load.Replicas = 1, 1, 1
	one, err := hardware.ClusterForGPUs(q.GPU, 1, q.GPUsPerNode)
	if err != nil {
		return q, err
	}
	_, err = costmodel.EstimateServe(q.Model, one, q.Load, q.Assumptions)
	return q, err
}

// tpChoices are the tensor-parallel degrees inside a node of per GPUs:
// divisors of the node size that split the heads sensibly.
func tpChoices(m *costmodel.Model, per int) []int {
	var out []int
	for tp := 1; tp <= per; tp++ {
		if per%tp == 0 && m.SplitsHeads(tp) {
			out = append(out, tp)
		}
	}
	return out
}

// multiNode reports whether replicas may span nodes: the GPU needs a
// scale-out network.
func (q ServeQuery) multiNode() bool { return q.GPU.ScaleOut > 0 }

// capacity is the users of q's context one replica of shape sh holds.
func capacity(q ServeQuery, sh shape) (int, error) {
	c, err := hardware.ClusterForGPUs(q.GPU, sh.tp*sh.pp, q.GPUsPerNode)
	if err != nil {
		return 0, err
	}
	s := q.Load
	s.TP, s.PP, s.Replicas, s.Users = sh.tp, sh.pp, 1, 1
	r, err := costmodel.EstimateServe(q.Model, c, s, q.Assumptions)
	if err != nil {
		return 0, err
	}
	return r.MaxUsers, nil
}

// wholeNodes rounds a GPU count above one node up to whole nodes.
func wholeNodes(n, per int) int {
	if n <= per {
		return n
	}
	return (n + per - 1) / per * per
}

// fewest is the smallest GPU count on which some layout holds the load,
// or 0 when none does. A replica of shape (tp, pp) holding c users needs
// ceil(users / c) replicas; pipelines grow one stage at a time until a
// replica alone needs as many GPUs as the best answer so far.
func fewest(q ServeQuery) (int, error) {
	best := 0
	for _, sh := range candidateShapes(q) {
		if best > 0 && sh.tp*sh.pp >= best {
			continue
		}
		c, err := capacity(q, sh)
		if err != nil {
			return 0, err
		}
		if c < 1 {
			continue
		}
		replicas := (q.Load.Users + c - 1) / c
		n := wholeNodes(sh.tp*sh.pp*replicas, q.GPUsPerNode)
		if n <= hardware.MaxGPUs && (best == 0 || n < best) {
			best = n
		}
	}
	return best, nil
}

// candidateShapes are every replica shape the layout rules allow: a tp
// that divides the node inside one node, and pipelines of the largest
// such tp whose stages fill whole nodes (one stage per node when tp is
// the node; several when the heads do not divide it).
func candidateShapes(q ServeQuery) []shape {
	per := q.GPUsPerNode
	tps := tpChoices(q.Model, per)
	var out []shape
	for _, tp := range tps {
		out = append(out, shape{tp: tp, pp: 1})
	}
	if !q.multiNode() || len(tps) == 0 {
		return out
	}
	tp := tps[len(tps)-1]
	for pp := 2; pp <= q.Model.Layers && tp*pp <= hardware.MaxGPUs; pp++ {
		if tp*pp > per && tp*pp%per == 0 {
			out = append(out, shape{tp: tp, pp: pp})
		}
	}
	return out
}

// shapesOn lists the candidate shapes that tile n GPUs.
func shapesOn(q ServeQuery, n int) []shape {
	var out []shape
	for _, sh := range candidateShapes(q) {
		if g := sh.tp * sh.pp; g <= n && n%g == 0 {
			out = append(out, sh)
		}
	}
	return out
}

// layoutsOn evaluates every shape on n GPUs and ranks them.
func layoutsOn(q ServeQuery, n int) ([]ServeLayout, error) {
	c, err := hardware.ClusterForGPUs(q.GPU, n, q.GPUsPerNode)
	if err != nil {
		return nil, err
	}
	// A shape the model cannot be laid out in is skipped, not an error;
	// only when no shape can be laid out is the first reason returned.
	var first error
	out := lo.FilterMap(shapesOn(q, n), func(sh shape, _ int) (ServeLayout, bool) {
		l, err := evaluate(q, c, sh)
		if err != nil && first == nil {
			first = err
		}
		return l, err == nil
	})
	if len(out) == 0 && first != nil {
		return nil, first
	}
	slices.SortStableFunc(out, rankLayouts)
	return out, nil
}

// evaluate computes the memory and the speed of shape sh on cluster c.
func evaluate(q ServeQuery, c hardware.Cluster, sh shape) (ServeLayout, error) {
	s := q.Load
	s.TP, s.PP, s.Replicas = sh.tp, sh.pp, c.GPUs()/(sh.tp*sh.pp)
	r, err := costmodel.EstimateServe(q.Model, c, s, q.Assumptions)
	if err != nil {
		return ServeLayout{}, err
	}
	v, err := costmodel.EstimateServeSpeed(q.Model, c, s, q.Assumptions)
	if err != nil {
		return ServeLayout{}, err
	}
	return ServeLayout{Layout: layoutName(s), Plan: s, Cluster: c, Memory: r, Speed: v,
		Holds: r.MaxUsers >= s.Users}, nil
}

// layoutName is "tp8-pp2 x 1 replica".
func layoutName(s costmodel.ServePlan) string {
	return fmt.Sprintf("tp%d-pp%d x %s", s.TP, s.PP, hardware.Plural(s.Replicas, "replica", "replicas"))
}

// rankLayouts orders layouts that hold the load before those that do not;
// among the first, the shortest time per output token (every layout
// serves the same users, so this is also the most tokens per second),
// then the shortest time to first token; then the most users that fit
// and the most headroom. Ties fall to the smaller tp, then pp.
func rankLayouts(a, b ServeLayout) int {
	if a.Holds != b.Holds {
		if a.Holds {
			return -1
		}
		return 1
	}
	if a.Holds {
		if c := cmp.Compare(a.Speed.TimePerOutputToken, b.Speed.TimePerOutputToken); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Speed.TimeToFirstToken, b.Speed.TimeToFirstToken); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.Memory.MaxUsers, a.Memory.MaxUsers); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Memory.Memory.Headroom, a.Memory.Memory.Headroom); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Plan.TP, b.Plan.TP); c != 0 {
		return c
	}
	return cmp.Compare(a.Plan.PP, b.Plan.PP)
}

// checkServeTarget checks the model and GPU of a serving query and fills
// the GPUs per node (0: the GPU's scale-up domain), which must lie in
// [1, domain].
func checkServeTarget(m *costmodel.Model, g hardware.GPU, perNode int) (int, error) {
	if m == nil {
		return 0, errors.New("search: serving query without a model")
	}
	if err := g.Validate(); err != nil {
		return 0, err
	}
	if perNode == 0 {
		perNode = g.ScaleUpDomain
	}
	if perNode < 1 || perNode > g.ScaleUpDomain {
		return 0, fmt.Errorf("search: %d GPUs per node is not in [1, %d] (the %s scale-up domain)", perNode, g.ScaleUpDomain, g.Name)
	}
	return perNode, nil
}
