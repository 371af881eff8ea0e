package costmodel

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// dsServe is DeepSeek-V3 in fp8 on 8 H200s with attention dp and ep as
// given.
func dsServe(t *testing.T, tp, dp, ep int) (*Model, hardware.Cluster, ServePlan) {
	t.Helper()
	m, err := LookupModel("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	return m, cluster(t, "h200", tp*dp), ServePlan{TP: tp, PP: 1, DP: dp, EP: ep, Replicas: 1, Context: 2048, Users: 64,
		Weights: DTypeFP8, KV: DTypeBF16}
}

// TestExpertSplitWeights: with attention dp 8 and ep 8 on 8 GPUs every
// GPU holds the whole attention, dense layers, shared experts and
// embedding (tp=1) and 1/8 of the routed experts: its weights are the
// tp=1 weights less 7/8 of the routed experts. With tp 8 and no dp, the
// same 8 GPUs hold 1/8 of everything.
func TestExpertSplitWeights(t *testing.T) {
	m, c, s := dsServe(t, 1, 8, 8)
	r, err := EstimateServe(m, c, s, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	moe := float64(m.Layers - m.MoE.DenseLayers)
	routed := moe * float64(m.MoE.Experts) * m.expertParams(1)
	all := m.layersParams(1, m.MoE.DenseLayers, int(moe)) + m.embeddingParams(1) + m.finalNormParams() + m.outputParams(1, false)
	want := (all - routed*7/8) * DTypeFP8.Bytes()
	if got := float64(r.Memory.Group(GroupStates)); !within(got, want, 1e-9) {
		t.Errorf("dp8 ep8 weights %.4g B per GPU, want %.4g (whole attention, 1/8 of the experts)", got, want)
	}
	m, c, s = dsServe(t, 8, 1, 1)
	tp, err := EstimateServe(m, c, s, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	if !(tp.Memory.Group(GroupStates) < r.Memory.Group(GroupStates)) {
		t.Errorf("tp8 weights %v per GPU should be below dp8-ep8's %v (attention replicated)", tp.Memory.Group(GroupStates), r.Memory.Group(GroupStates))
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "split over ep=8") {
		t.Errorf("notes %q do not say the experts are split", r.Notes)
	}
}

// TestAttentionDPKV: each dp rank keeps its own requests' KV cache, so
// the sequences the deployment holds are dp x the sequences one GPU's
// free memory holds (MLA's latent cache is whole on every GPU either
// way).
func TestAttentionDPKV(t *testing.T) {
	m, c, s := dsServe(t, 1, 8, 8)
	r, err := EstimateServe(m, c, s, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	free := float64(r.Memory.Budget - (r.Memory.Total - r.Memory.Group(GroupKV)))
	perSeq := m.kvPerSequenceBlocks(s.Context, s.BlockTokens, m.Layers, 0, 1, s.KV)
	if want := 8 * int(free/perSeq); r.MaxUsers != want {
		t.Errorf("max users %d, want 8 dp ranks x %d", r.MaxUsers, want/8)
	}
}

// TestExpertAllToAll: with attention dp every MoE layer of a decode step
// dispatches and combines its tokens (two all-to-alls per MoE layer, no
// MLP all-reduce); with tp alone there is no all-to-all.
func TestExpertAllToAll(t *testing.T) {
	l := ServeLoad{InputTokens: 1024, OutputTokens: 1024, Concurrency: 64}
	e := Engines["trtllm"]
	m, c, s := dsServe(t, 1, 8, 8)
	r, err := EstimateServeLoad(m, c, s, l, e, ServeAssumptions(DefaultAssumptions(), c.GPU))
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBatchModel(m, c, s, e, ServeAssumptions(DefaultAssumptions(), c.GPU))
	if err != nil {
		t.Fatal(err)
	}
	moe := m.Layers - m.MoE.DenseLayers
	a2a := b.expertAllToAll(moe, r.DecodeBatch)
	if a2a <= 0 || r.Decode.Communication < a2a {
		t.Errorf("decode communication %v, want at least the all-to-alls %v", r.Decode.Communication, a2a)
	}
	lk := scaleUpLink(c, b.a)
	msg := r.DecodeBatch * float64(m.MoE.TopK*m.Hidden*activationBytes)
	if want := 2 * float64(moe) * (float64(lk.latency) + 7.0/8*msg/(float64(lk.bw)*lk.eff)); !within(float64(a2a), want, 0.05) {
		t.Errorf("all-to-alls %v, want %.4g s (2 per MoE layer, 7/8 of the top-k copies)", a2a, want)
	}
	if r.Running*8 < 63 {
		t.Errorf("%.1f requests per dp rank, want the 64 split over 8 ranks", r.Running)
	}
	m, c, s = dsServe(t, 8, 1, 1)
	b, err = newBatchModel(m, c, s, e, ServeAssumptions(DefaultAssumptions(), c.GPU))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.expertAllToAll(moe, 64); got != 0 {
		t.Errorf("tp8 without dp: all-to-all %v, want none", got)
	}
}

// TestServeExpertLayoutErrors: dp and ep need a mixture-of-experts model, ep
// dividing the stage's GPUs and the experts, and tp x pp x dp x
// replicas GPUs.
func TestServeExpertLayoutErrors(t *testing.T) {
	dense, err := LookupModel("llama3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	a := DefaultAssumptions()
	s := ServePlan{TP: 1, PP: 1, DP: 2, Replicas: 1, Context: 1024, Users: 1, Weights: DTypeBF16, KV: DTypeBF16}
	if _, err := EstimateServe(dense, cluster(t, "h100-sxm", 2), s, a); err == nil || !strings.Contains(err.Error(), "mixture-of-experts") {
		t.Errorf("dense model with dp: %v, want an error naming mixture-of-experts", err)
	}
	m, c, s := dsServe(t, 1, 8, 3)
	if _, err := EstimateServe(m, c, s, a); err == nil || !strings.Contains(err.Error(), "ep=3") {
		t.Errorf("ep 3 of 8 GPUs: %v, want an error naming ep=3", err)
	}
	m, _, s = dsServe(t, 1, 8, 8)
	if _, err := EstimateServe(m, cluster(t, "h200", 4), s, a); err == nil || !strings.Contains(err.Error(), "tp*pp*dp*replicas") {
		t.Errorf("8 GPUs of layout on 4: %v, want the GPU count error", err)
	}
	m, c, s = dsServe(t, 1, 8, 8)
	if _, err := EstimateServeSpeed(m, c, s, a); err == nil {
		t.Error("EstimateServeSpeed with dp: no error, want one pointing at EstimateServeLoad")
	}
}
