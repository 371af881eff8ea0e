package search

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// LoadQuery asks for the fewest GPUs, and the layouts and replica counts
// on them, that serve a load (input and output lengths, a concurrency or
// a rate) with an engine within latency targets.
type LoadQuery struct {
	Model *costmodel.Model
	GPU   hardware.GPU
	// GPUsPerNode is the scale-up (NVLink) domain; 0 takes the GPU's.
	GPUsPerNode int
	// TP and PP pin the replica's layout when > 0.
	TP, PP int
	// DP and EP are the attention data-parallel and expert-parallel
	// ranks of every layout of an MoE model (costmodel.ServePlan; 0 or 1:
	// none): a replica spans tp x pp x dp GPUs.
	DP, EP int
	// Weights and KV are the formats.
	Weights, KV costmodel.DType
	Load        costmodel.ServeLoad
	Engine      costmodel.Engine
	// TTFT and TPOT are the targets; 0 means none.
	TTFT, TPOT  hardware.Seconds
	Assumptions costmodel.Assumptions
	// MaxReplicas bounds the replicas tried per layout; 0 means 4096.
	MaxReplicas int
}

// LoadLayout is one layout with the replicas that meet the targets.
type LoadLayout struct {
	Layout   string                  `json:"layout"`
	TP       int                     `json:"tp"`
	PP       int                     `json:"pp"`
	DP       int                     `json:"attention_dp,omitempty"`
	EP       int                     `json:"ep,omitempty"`
	Replicas int                     `json:"replicas"`
	GPUs     int                     `json:"gpus"`
	Latency  *costmodel.ServeLatency `json:"latency"`
}

// ServeContext is what a serving answer was asked: the model, GPU,
// load, engine, formats, targets and assumptions (the first fields of
// LoadResult and DisaggResult, flat in their JSON).
type ServeContext struct {
	Model       string                `json:"model"`
	GPU         string                `json:"gpu"`
	GPUsPerNode int                   `json:"gpus_per_node"`
	Load        costmodel.ServeLoad   `json:"load"`
	Engine      costmodel.Engine      `json:"engine"`
	Weights     costmodel.DType       `json:"weights_dtype"`
	KV          costmodel.DType       `json:"kv_dtype"`
	TTFT        hardware.Seconds      `json:"ttft_target_s,omitempty"`
	TPOT        hardware.Seconds      `json:"tpot_target_s,omitempty"`
	Assumptions costmodel.Assumptions `json:"assumptions"`
}

// context is the ServeContext of query q.
func (q LoadQuery) context() ServeContext {
	return ServeContext{Model: q.Model.Name, GPU: q.GPU.Name, GPUsPerNode: q.GPUsPerNode, Load: q.Load, Engine: q.Engine,
		Weights: q.Weights, KV: q.KV, TTFT: q.TTFT, TPOT: q.TPOT, Assumptions: q.Assumptions}
}

// LoadResult answers a LoadQuery: the layouts that meet the targets,
// cheapest (GPU-seconds per output token) first, and those that cannot
// with the reason.
type LoadResult struct {
	ServeContext
	// GPUs is the fewest GPUs of any layout that meets the targets (0:
	// none does).
	GPUs    int          `json:"gpus"`
	Layouts []LoadLayout `json:"layouts"`
	Missed  []Missed     `json:"missed,omitempty"`
}

// Missed is a layout that meets the targets with no replica count.
type Missed struct {
	Layout string `json:"layout"`
	Reason string `json:"reason"`
}

// Best is the cheapest layout that meets the targets, or nil.
func (r *LoadResult) Best() *LoadLayout {
	if len(r.Layouts) == 0 {
		return nil
	}
	return &r.Layouts[0]
}

// ServeLoad searches the replica shapes (tensor parallelism inside the
// NVLink domain, up to 72 on GB200 NVL72, dividing the heads; pipelines
// across whole nodes; or the pinned TP and PP) and, for each, the fewest
// replicas whose steady state meets both targets without overload.
func ServeLoad(q LoadQuery) (*LoadResult, error) {
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	r := &LoadResult{ServeContext: q.context()}
	for _, sh := range q.shapes() {
		if sh.pp > 1 && q.PP == 0 && len(r.Layouts) > 0 {
			continue // a pipeline only lengthens the step once one stage holds the model
		}
		l, why, err := q.fewestReplicas(sh)
		if err != nil {
			return nil, err
		}
		if l == nil {
			r.Missed = append(r.Missed, Missed{Layout: q.shapeName(sh), Reason: why})
			continue
		}
		r.Layouts = append(r.Layouts, *l)
	}
	slices.SortStableFunc(r.Layouts, rankLoad)
	if len(r.Layouts) > 0 {
		r.GPUs = slices.MinFunc(r.Layouts, func(a, b LoadLayout) int { return cmp.Compare(a.GPUs, b.GPUs) }).GPUs
	}
	return r, nil
}

// normalize checks the query and fills the defaults.
func (q LoadQuery) normalize() (LoadQuery, error) {
	var err error
	if q.GPUsPerNode, err = checkServeTarget(q.Model, q.GPU, q.GPUsPerNode); err != nil {
		return q, err
	}
	if q.TTFT < 0 || q.TPOT < 0 {
		return q, fmt.Errorf("search: targets TTFT %v and TPOT %v must not be negative", q.TTFT, q.TPOT)
	}
	if q.TP < 0 || q.PP < 0 || q.TP > hardware.MaxGPUs || q.PP > hardware.MaxGPUs {
		return q, fmt.Errorf("search: tp %d and pp %d must be in [0, %d] (0: search)", q.TP, q.PP, hardware.MaxGPUs)
	}
	if q.TP > 0 {
		if err := q.Model.CheckTP(q.TP); err != nil {
			return q, err
		}
	}
	if err := q.checkExperts(); err != nil {
		return q, err
	}
	if q.MaxReplicas == 0 {
		q.MaxReplicas = 4096
	}
	if err := q.Engine.Validate(); err != nil {
		return q, err
	}
	return q, q.Load.Validate()
}

// shapes are the replica shapes searched: the pinned one, or every
// tensor-parallel degree inside the domain that splits the heads (domainTPs, with
// pp 1, or the pinned pp), and for multi-node GPUs pipelines of the
// largest such degree over whole nodes up to 8 stages. Every shape takes
// the query's dp and ep; an MoE model with neither pinned (nor tp or pp)
// also gets expertShapes.
func (q LoadQuery) shapes() []shape {
	if q.TP > 0 && q.PP > 0 {
		return []shape{{tp: q.TP, pp: q.PP, dp: q.DP, ep: q.EP}}
	}
	var out []shape
	tps := []int{q.TP}
	if q.TP == 0 {
		tps = domainTPs(q.Model, q.GPUsPerNode)
	}
	for _, tp := range tps {
		if q.EP > 1 && tp*max(q.DP, 1)%q.EP != 0 {
			continue // ep must divide the tp x dp GPUs of a stage
		}
		out = append(out, shape{tp: tp, pp: max(q.PP, 1), dp: q.DP, ep: q.EP})
	}
	if q.TP == 0 && q.PP == 0 && q.DP == 0 && q.EP == 0 {
		out = append(out, q.expertShapes()...)
	}
	if q.PP > 0 || q.GPU.ScaleOut == 0 || len(tps) == 0 {
		return out
	}
	tp := tps[len(tps)-1]
	for pp := 2; pp <= min(8, q.Model.Layers); pp++ {
		if tp*pp > q.GPUsPerNode && tp*pp%q.GPUsPerNode == 0 {
			out = append(out, shape{tp: tp, pp: pp, dp: q.DP, ep: q.EP})
		}
	}
	return out
}

// expertShapes are the DeepSeek-style layouts of an MoE model inside one
// NVLink domain: tp 1, attention on d data-parallel ranks and the
// experts on d expert-parallel ranks, for d = 2, 4, 8, ... dividing the
// experts (DeepSeek-V3 technical report, arXiv:2412.19437, sec. 3.4.2;
// SGLang's --enable-dp-attention; TensorRT-LLM's enable_attention_dp).
func (q LoadQuery) expertShapes() []shape {
	if q.Model.MoE == nil {
		return nil
	}
	var out []shape
	for d := 2; d <= q.GPUsPerNode; d *= 2 {
		if q.Model.MoE.Experts%d == 0 {
			out = append(out, shape{tp: 1, pp: 1, dp: d, ep: d})
		}
	}
	return out
}

// domainTPs are the tensor-parallel degrees that split the heads and fit
// one NVLink domain of per GPUs; unlike tpChoices they need not divide
// it (tp 64 on a 72-GPU GB200 NVL72 rack leaves 8 GPUs to other work).
func domainTPs(m *costmodel.Model, per int) []int {
	var out []int
	for tp := 1; tp <= per; tp++ {
		if m.SplitsHeads(tp) {
			out = append(out, tp)
		}
	}
	return out
}

// rankLoad orders layouts by GPU-seconds per output token, then GPUs,
// then TPOT, then the smaller tp, pp and dp.
func rankLoad(a, b LoadLayout) int {
	return cmp.Or(cmp.Compare(a.Latency.GPUSecondsPerToken, b.Latency.GPUSecondsPerToken), cmp.Compare(a.GPUs, b.GPUs),
		cmp.Compare(a.Latency.TPOT, b.Latency.TPOT), cmp.Compare(a.TP, b.TP), cmp.Compare(a.PP, b.PP), cmp.Compare(a.DP, b.DP))
}

// checkExperts checks the attention dp and ep of the query: in range,
// for a mixture-of-experts model, ep dividing the experts.
func (q LoadQuery) checkExperts() error {
	if q.DP < 0 || q.EP < 0 || q.DP > hardware.MaxGPUs || q.EP > hardware.MaxGPUs {
		return fmt.Errorf("search: attention dp %d and ep %d must be in [0, %d] (0 or 1: none)", q.DP, q.EP, hardware.MaxGPUs)
	}
	if q.DP <= 1 && q.EP <= 1 {
		return nil
	}
	if q.Model.MoE == nil {
		return fmt.Errorf("search: attention dp %d and ep %d apply to mixture-of-experts models; %s is dense", q.DP, q.EP, q.Model.Name)
	}
	if q.EP > 1 && q.Model.MoE.Experts%q.EP != 0 {
		return fmt.Errorf("search: ep %d does not divide the %d experts of %s", q.EP, q.Model.MoE.Experts, q.Model.Name)
	}
	return nil
}
