package view

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// ZeROChart estimates the peak memory per GPU of training m with plan
// base at ZeRO stages 0 to 3 on each GPU count in gpus, and returns the
// chart of it against the budget. Data parallelism absorbs the GPU count
// (dp = gpus / (tp*pp*cp)) with the batch per data-parallel rank kept, so
// the lines show what sharding over more ranks buys: ZeRO-0 is flat,
// ZeRO-1 to 3 fall towards what they do not shard (activations, and the
// weights and gradients of stages 1 and 2).
func ZeROChart(m *costmodel.Model, gpu hardware.GPU, base costmodel.Plan, a costmodel.Assumptions, gpus []int) (MemoryChart, error) {
	if base.DP < 1 || base.GlobalBatch%base.DP != 0 {
		return MemoryChart{}, fmt.Errorf("kernel: base plan's gbs=%d is not a multiple of dp=%d", base.GlobalBatch, base.DP)
	}
	model := base.TP * base.PP * base.CP
	c := MemoryChart{Title: fmt.Sprintf("%s on %s: peak memory per GPU by ZeRO stage", m.Name, gpu.Name),
		XLabel: "GPUs", LogX: true, LogY: true}
	var budget hardware.Bytes
	for z := range 4 {
		s := Series{Name: fmt.Sprintf("ZeRO-%d", z)}
		for _, n := range gpus {
			if model < 1 || n%model != 0 {
				return MemoryChart{}, fmt.Errorf("kernel: %d GPUs is not a multiple of tp*pp*cp = %d", n, model)
			}
			p := base
			p.ZeRO, p.DP, p.GlobalBatch = z, n/model, base.GlobalBatch/base.DP*(n/model)
			cl, err := hardware.ClusterForGPUs(gpu, n, 0)
			if err != nil {
				return MemoryChart{}, err
			}
			r, err := costmodel.Estimate(m, cl, p, a)
			if err != nil {
				return MemoryChart{}, err
			}
			s.X, s.Y, budget = append(s.X, float64(n)), append(s.Y, r.Memory.Total), r.Memory.Budget
		}
		c.Series = append(c.Series, s)
	}
	c.Limits = []Limit{{Name: fmt.Sprintf("budget (%v)", budget), Bytes: budget}}
	return c, nil
}

// KVChart estimates the KV cache per GPU of serving m with plan base for
// each number of users and each context length, and returns the chart of
// it against the memory left for KV once weights and overheads are in
// (the budget minus the inventory's other lines). Sliding-window layers,
// MLA latents, tensor parallelism and the KV dtype are the ones
// EstimateServe applies.
func KVChart(m *costmodel.Model, c hardware.Cluster, base costmodel.ServePlan, a costmodel.Assumptions, contexts, users []int) (MemoryChart, error) {
	ch := MemoryChart{Title: fmt.Sprintf("%s on %d x %s: KV cache per GPU (%s)", m.Name, c.GPUs(), c.GPU.Name, base.KV),
		XLabel: "context length (tokens per sequence)", LogX: true, LogY: true}
	var free hardware.Bytes
	for _, u := range users {
		s := Series{Name: fmt.Sprintf("%d users", u)}
		if u == 1 {
			s.Name = "1 user"
		}
		for _, n := range contexts {
			p := base
			p.Context, p.Users = n, u
			r, err := costmodel.EstimateServe(m, c, p, a)
			if err != nil {
				return MemoryChart{}, err
			}
			kv := r.Memory.Group(costmodel.GroupKV)
			s.X, s.Y = append(s.X, float64(n)), append(s.Y, kv)
			free = r.Memory.Budget - (r.Memory.Total - kv)
		}
		ch.Series = append(ch.Series, s)
	}
	if free > 0 {
		ch.Limits = []Limit{{Name: fmt.Sprintf("room for KV (%v)", free), Bytes: free}}
	}
	return ch, nil
}
