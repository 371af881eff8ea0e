package costmodel

import (
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// KVTransfer is the hand-off of one prompt's KV cache from the prefill
// worker that computed it to the decode worker that continues it
// (Dynamo's disaggregated flow: the prefill engine computes the KV
// cache, transfers it to the decode engine, and the decode engine
// computes the decode phase, NIXL moving it directly from the prefill
// GPUs' memory to the decode GPUs'; docs.nvidia.com/dynamo, design docs
// "Disaggregated Serving"; vLLM's KV connectors, docs/features/
// disagg_prefill.md). Every GPU of the prefill worker sends its own
// shard (its pipeline stage's layers, its tensor-parallel share of the
// KV heads) and every GPU of the decode worker receives its own, all in
// parallel, so the time is that of the largest shard on either side.
type KVTransfer struct {
	// Bytes is the prompt's KV cache over all layers, unsharded:
	// InputTokens x KV per token (2 x layers x kv_heads x head_dim x
	// bytes, Pope et al. 2022, sec. 2; MLA's latent for DeepSeek).
	Bytes hardware.Bytes `json:"bytes"`
	// SendPerGPU and ReceivePerGPU are the largest shard a prefill GPU
	// sends and a decode GPU receives.
	SendPerGPU    hardware.Bytes `json:"send_per_gpu_bytes"`
	ReceivePerGPU hardware.Bytes `json:"receive_per_gpu_bytes"`
	// ScaleUp says both pools sit in one NVLink (scale-up) domain, so the
	// KV cache moves over it; otherwise over the network.
	ScaleUp    bool               `json:"scale_up"`
	Bandwidth  hardware.Bandwidth `json:"bandwidth_per_gpu"`
	Efficiency float64            `json:"link_efficiency"`
	Latency    hardware.Seconds   `json:"latency_s"`
	// Time is Latency + max(SendPerGPU, ReceivePerGPU) / (Bandwidth x
	// Efficiency) (serveSend, the alpha-beta cost of servecomm.go).
	Time hardware.Seconds `json:"time_s"`
}

// kvTransfer prices the hand-off of a prompt of n tokens from a worker
// of plan p to one of plan d. The link is the scale-up fabric when every
// GPU of both pools fits one domain of perNode GPUs (a GB200 NVL72 rack
// holds 72), else the network between nodes, each at its per-GPU
// bandwidth and ServeLinkEfficiency (scaleUpLink, scaleOutLink).
func kvTransfer(m *Model, c hardware.Cluster, p, d ServePlan, n int, a Assumptions) KVTransfer {
	t := KVTransfer{Bytes: hardware.Bytes(m.kvPerSequence(n, m.Layers, m.SlidingLayers, 1, p.KV)),
		SendPerGPU: kvShard(m, p, n), ReceivePerGPU: kvShard(m, d, n)}
	l := scaleOutLink(c, a)
	if p.GPUs()+d.GPUs() <= c.GPUsPerNode {
		l, t.ScaleUp = scaleUpLink(c, a), true
	}
	t.Bandwidth, t.Efficiency, t.Latency = l.bw, l.eff, l.latency
	t.Time = serveSend(float64(max(t.SendPerGPU, t.ReceivePerGPU)), l)
	return t
}

// kvShard is the largest KV shard of a prompt of n tokens on one GPU of
// plan s: its most loaded stage's layers, split over tp as the cache is
// (kvPerSequence; KV heads replicate past tp = kv_heads, MLA's latent on
// every rank).
func kvShard(m *Model, s ServePlan, n int) hardware.Bytes {
	layout, err := (Plan{TP: s.TP, PP: s.PP, VPP: 1}).balanceLayers(m.Layers)
	if err != nil {
		return hardware.Bytes(m.kvPerSequence(n, m.Layers, m.SlidingLayers, s.TP, s.KV))
	}
	most := 0.0
	for st := range s.PP {
		g := serveStage(m, s, layout, st)
		most = math.Max(most, m.kvPerSequence(n, g.layers, g.sliding, s.TP, s.KV))
	}
	return hardware.Bytes(most)
}
