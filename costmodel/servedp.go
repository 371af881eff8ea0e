package costmodel

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// Attention data parallelism and expert parallelism of a serving
// replica (ServePlan.DP and ServePlan.EP), as DeepSeek serves V3: each
// pipeline stage spans tp x dp GPUs; the attention (with the dense
// layers, the shared experts and the embedding) is replicated over the
// dp ranks and split tp ways inside each, every dp rank running its own
// requests with its own KV cache; the routed experts are split over ep
// ranks, each expert further split tp x dp / ep ways (DeepSeek-V3
// technical report, arXiv:2412.19437, sec. 3.4.2: attention TP4 with
// SP and DP8, MoE EP32 in prefill, EP320 in decode; SGLang's
// --enable-dp-attention; TensorRT-LLM's enable_attention_dp with
// moe_expert_parallel_size, where moe_tp x moe_ep = tp_size). With
// dp > 1 each MoE layer sends every token's top-k copies to their
// experts' ranks and back (the dispatch and combine all-to-alls of
// decode); with dp = 1 the tokens are already on every rank of the
// group and the expert outputs are summed by the MLP's all-reduce, as
// with tensor-parallel experts.

// dp is the plan's attention data-parallel ranks (0 counts as 1).
func (s ServePlan) dp() int { return max(s.DP, 1) }

// ep is the plan's expert-parallel ranks (0 counts as 1).
func (s ServePlan) ep() int { return max(s.EP, 1) }

// stageGPUs is the GPUs of one pipeline stage of a replica: tp x dp.
func (s ServePlan) stageGPUs() int { return s.TP * s.dp() }

// splitExperts says the routed experts are laid out apart from the
// attention (dp > 1 or ep > 1).
func (s ServePlan) splitExperts() bool { return s.dp() > 1 || s.ep() > 1 }

// stageLayout names a stage's split: tp=N, with dp and ep when set.
func (s ServePlan) stageLayout() string {
	if !s.splitExperts() {
		return fmt.Sprintf("tp=%d", s.TP)
	}
	return fmt.Sprintf("tp=%d, attention dp=%d, ep=%d", s.TP, s.dp(), s.ep())
}

// Ranks is the request-serving units of the deployment: replicas x dp,
// each with its own batch and KV cache.
func (s ServePlan) Ranks() int { return s.Replicas * s.dp() }

// routedParams is one MoE layer's routed experts on one GPU: E x one
// expert split tp ways without dp and ep, else E/ep experts each split
// tp x dp / ep ways.
func (m *Model) routedParams(s ServePlan) float64 {
	e := float64(m.MoE.Experts)
	if !s.splitExperts() {
		return e * m.expertParams(s.TP)
	}
	return e / float64(s.ep()) * m.expertParams(s.stageGPUs()/s.ep())
}

// splitExpertsParams corrects the parameters per GPU of moe MoE layers
// at tp for the dp and ep layout: the routed experts per GPU of
// routedParams instead of those split tp ways.
func (m *Model) splitExpertsParams(s ServePlan, moe int) float64 {
	if moe == 0 || !s.splitExperts() {
		return 0
	}
	return float64(moe) * (m.routedParams(s) - float64(m.MoE.Experts)*m.expertParams(s.TP))
}

// validateExperts checks the dp and ep of plan s.
func validateExperts(m *Model, s ServePlan) error {
	if s.DP < 0 || s.DP > hardware.MaxGPUs || s.EP < 0 || s.EP > hardware.MaxGPUs {
		return fmt.Errorf("costmodel: attention dp=%d and ep=%d must be in [1, %d] (0 counts as 1)", s.DP, s.EP, hardware.MaxGPUs)
	}
	if !s.splitExperts() {
		return nil
	}
	if m.MoE == nil {
		return fmt.Errorf("costmodel: attention dp=%d and ep=%d apply to mixture-of-experts models; %s is dense (use replicas)", s.dp(), s.ep(), m.Name)
	}
	w := s.stageGPUs()
	if w%s.ep() != 0 || m.MoE.Experts%s.ep() != 0 {
		return fmt.Errorf("costmodel: ep=%d must divide the tp x dp = %d GPUs of a stage and the %d experts", s.ep(), w, m.MoE.Experts)
	}
	return nil
}

// serveAllToAll is one all-to-all of bytes per GPU over n GPUs: latency +
// (n-1)/n x bytes / (bandwidth x efficiency), each GPU keeping 1/n of its
// buffer (nccl-tests doc/PERFORMANCE.md, the bus bandwidth of alltoall;
// the cost epcomm.go uses for training).
func serveAllToAll(n int, bytes float64, l link) hardware.Seconds {
	if n <= 1 {
		return 0
	}
	return l.latency + hardware.Seconds(float64(n-1)/float64(n)*bytes/(float64(l.bw)*l.eff))
}

// expertAllToAll is the dispatch and combine of moe MoE layers in a step
// of tokens tokens per dp rank: each GPU sends its 1/tp of the rank's
// tokens' top-k copies of h activations to the experts' ranks and gets
// their outputs back, over the stage's tp x dp GPUs (NVLink inside a
// node, the network beyond).
func (e speedModel) expertAllToAll(moe int, tokens float64) hardware.Seconds {
	s := e.s
	if moe == 0 || s.dp() <= 1 {
		return 0
	}
	w := s.stageGPUs()
	l := scaleUpLink(e.c, e.a)
	if w > e.c.GPUsPerNode {
		l = scaleOutLink(e.c, e.a)
	}
	msg := math.Ceil(tokens) / float64(s.TP) * float64(e.m.MoE.TopK) * float64(e.m.Hidden) * activationBytes
	return 2 * hardware.Seconds(moe) * serveAllToAll(w, msg, l)
}
