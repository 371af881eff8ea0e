package calibration

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// rowModel builds the model from the row's shape and the family its name
// or notes give: Megatron GPT (LayerNorm, GeLU, biases, dropout, learned
// positions, tied embeddings), Llama (RMSNorm, SwiGLU, no biases, untied),
// Nemotron-4 (LayerNorm, a two-matrix squared-ReLU MLP, no biases) or
// BLOOM (LayerNorm, GeLU, biases, ALiBi, tied, no dropout). The trained
// sequence length is the maximum position: Megatron sizes its learned
// position table by --max-position-embeddings, set to the sequence length
// in these runs.
func rowModel(r Row, assumed *[]string) (*costmodel.Model, error) {
	var dims [4]int
	for i, col := range []string{"layers", "hidden", "heads", "seq_len"} {
		n, err := count(r, col)
		if err != nil {
			return nil, err
		}
		dims[i] = n
	}
	layers, hidden, heads, seq := dims[0], dims[1], dims[2], dims[3]
	kv, err := optional(r, "kv_heads", heads)
	if err != nil {
		return nil, err
	}
	ffn, err := optional(r, "ffn_hidden", 0)
	if err != nil {
		return nil, err
	}
	vocab, err := optional(r, "vocab", 0)
	if err != nil {
		return nil, err
	}
	m := &costmodel.Model{Name: r.Get("model"), Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv,
		FFN: ffn, Vocab: vocab, MaxSeq: seq, Norm: costmodel.LayerNorm, MLP: costmodel.GeLU,
		Source: "calibration row " + r.ID()}
	if hidden%heads != 0 {
		return nil, fmt.Errorf("hidden %d is not a multiple of %d heads", hidden, heads)
	}
	m.HeadDim = hidden / heads
	name := r.Get("model")
	switch {
	case has(name, "llama"):
		m.Family, m.Norm, m.MLP = "llama", costmodel.RMSNorm, costmodel.SwiGLU
	case has(name, "nemotron"):
		m.Family = "nemotron"
	case has(name, "bloom"):
		m.Family, m.Bias, m.TiedEmbeddings = "bloom", true, true
	case has(name, "gpt") || has(name, "mt-nlg"):
		m.Family, m.Bias, m.Dropout, m.LearnedPositions, m.TiedEmbeddings = "gpt", true, true, true, true
	default:
		return nil, fmt.Errorf("architecture family of %q is not known", name)
	}
	if m.FFN == 0 {
		if m.Family != "gpt" {
			return nil, fmt.Errorf("FFN width not stated")
		}
		m.FFN = 4 * hidden
		assume(assumed, "ffn=4h (GPT)")
	}
	if m.Vocab == 0 {
		if m.Family != "gpt" {
			return nil, fmt.Errorf("vocabulary not stated")
		}
		m.Vocab = 51200
		assume(assumed, "vocab=51200 (GPT-2 BPE padded, as Megatron)")
	}
	return m, m.Validate()
}

// rowCluster builds the cluster. The GPUs are the catalog's; the network
// is the catalog's one NIC per GPU unless the row's interconnect names
// another (Jean Zay: 4 x 100 Gb/s Omni-Path per 8-GPU node).
func rowCluster(r Row, assumed *[]string) (hardware.Cluster, error) {
	name := r.Get("gpu")
	var key string
	switch {
	case has(name, "a100"):
		key = "a100-80gb"
		if r.Get("gpu_mem_gb") == "40" {
			key = "a100-40gb"
		}
	case has(name, "h100"):
		key = "h100-sxm"
	default:
		return hardware.Cluster{}, fmt.Errorf("GPU %q is not in the catalog", name)
	}
	g, err := hardware.LookupGPU(key)
	if err != nil {
		return hardware.Cluster{}, err
	}
	gpus, err := count(r, "num_gpus")
	if err != nil {
		return hardware.Cluster{}, err
	}
	per, err := count(r, "gpus_per_node")
	if err != nil {
		return hardware.Cluster{}, err
	}
	ic := r.Get("interconnect")
	switch {
	case has(ic, "omni-path"):
		g.ScaleOut = 4 * 100 * hardware.GbitPerSecond / hardware.Bandwidth(per)
	case ic == "" || has(ic, "not stated"):
		assume(assumed, "network: %v per GPU (catalog %s)", g.ScaleOut, g.Name)
	}
	return hardware.ClusterForGPUs(g, gpus, per)
}

// plan reads the layout and the job settings.
func (c *Case) plan() error {
	r, fw := c.Row, c.fw
	p := costmodel.Plan{CP: 1, PP: 1, VPP: 1, Attention: fw.attention, Optimizer: costmodel.Adam}
	var err error
	if p.TP, err = count(r, "tp"); err != nil {
		return err
	}
	for _, f := range []struct {
		col string
		dst *int
	}{{"pp", &p.PP}, {"cp", &p.CP}, {"vpp", &p.VPP}, {"micro_batch", &p.MicroBatch}, {"dp", &p.DP}} {
		if *f.dst, err = optional(r, f.col, *f.dst); err != nil {
			return err
		}
	}
	if p.GlobalBatch, err = count(r, "global_batch"); err != nil {
		return err
	}
	if p.Seq, err = count(r, "seq_len"); err != nil {
		return err
	}
	gpus := c.Cluster.GPUs()
	if p.DP == 0 {
		p.DP = gpus / (p.TP * p.PP * p.CP)
	}
	if p.MicroBatch == 0 {
		p.MicroBatch = fw.microBatch
		assume(&c.Assumed, "mbs=%d", p.MicroBatch)
	}
	c.virtualStages(&p)
	if p.Precision, err = c.precision(); err != nil {
		return err
	}
	c.zero(&p)
	c.sequenceParallel(&p)
	if err := c.recompute(&p); err != nil {
		return err
	}
	c.Plan, err = p.Normalize(c.Model, gpus)
	return err
}

// virtualStages reads the interleaving. A source that names the
// interleaved schedule without its count gets the smallest count above
// one that divides the layers per stage; Llama 3's modified schedule
// gets one-layer chunks, ceil(layers/pp) per stage: Meta removes "one
// Transformer layer each from the first and the last stages", after
// which "the first model chunk on the first stage has only the
// embedding" (Dubey et al. 2024, sec. 3.3.2), so a chunk held one layer
// (126 layers on pp 16: 128 chunk slots, v 8).
func (c *Case) virtualStages(p *costmodel.Plan) {
	s := c.Row.Get("pp_schedule")
	if p.VPP > 1 || p.PP == 1 || !has(s, "interleaved") {
		return
	}
	if has(s, "modified interleaved") {
		p.VPP = (c.Model.Layers + p.PP - 1) / p.PP
		assume(&c.Assumed, "vpp=%d (one-layer chunks: the first chunk holds only the embedding)", p.VPP)
		return
	}
	per := c.Model.Layers / p.PP
	for v := 2; v <= per; v++ {
		if c.Model.Layers%(p.PP*v) == 0 {
			p.VPP = v
			assume(&c.Assumed, "vpp=%d (interleaved, count not stated)", v)
			return
		}
	}
}

func (c *Case) precision() (costmodel.Precision, error) {
	s := c.Row.Get("precision")
	if has(s, "not stated") {
		assume(&c.Assumed, "precision from the MFU/peak ratio")
	}
	switch {
	case has(s, "fp8"):
		return costmodel.FP8, nil
	case has(s, "bf16"):
		return costmodel.BF16, nil
	case has(s, "fp16") || has(s, "16-bit"):
		return costmodel.FP16, nil
	}
	return 0, fmt.Errorf("precision %q not understood", s)
}

func (c *Case) zero(p *costmodel.Plan) {
	s := c.Row.Get("zero_fsdp")
	switch {
	case has(s, "stage 3") || has(s, "full shard"):
		p.ZeRO = 3
	case has(s, "stage 1") || has(s, "zero-1"):
		p.ZeRO = 1
	case has(s, "distributed optimizer"):
		p.ZeRO = 1
	case has(s, "none"):
		p.ZeRO = 0
	default:
		p.ZeRO = c.fw.zero
		assume(&c.Assumed, "zero=%d", p.ZeRO)
	}
}

func (c *Case) sequenceParallel(p *costmodel.Plan) {
	s := c.Row.Get("sequence_parallel")
	switch {
	case has(s, "yes"):
		p.SP = true
	case (s == "" || has(s, "not stated")) && p.TP > 1 && c.fw.tpOverlap:
		// Megatron-Core's TP overlap requires sequence parallelism.
		p.SP = true
		assume(&c.Assumed, "sp (implied by tp-comm-overlap)")
	case (s == "" || has(s, "not stated")) && p.TP > 1 && c.fw.sp:
		p.SP = true
		assume(&c.Assumed, "sp (tensor parallelism after Korthikanti et al.)")
	}
}

func (c *Case) recompute(p *costmodel.Plan) error {
	s := c.Row.Get("recompute")
	switch {
	case has(s, "(layer)") || has(s, "(op)"):
		c.HalfRecompute = true
	case has(s, "full"):
		p.Recompute = costmodel.Full
	case has(s, "selective"):
		p.Recompute = costmodel.Selective
	case s == "none":
		p.Recompute = costmodel.NoRecompute
	case has(s, "not stated") || has(s, "per recipe"):
		p.Recompute = c.fw.recompute
		assume(&c.Assumed, "recompute=%s", p.Recompute)
	default:
		return fmt.Errorf("recompute %q not understood", s)
	}
	return nil
}

// rowTarget picks the measured value: a convention-free column first
// (step_time_s, tokens_per_s_per_gpu, then the derived ones), else the
// source's TFLOP/s converted with the source's own FLOP convention.
func rowTarget(r Row, m *costmodel.Model, seq int) (Target, error) {
	if r.Get("measurement_type") == "per_layer_time" {
		f, ok1 := r.Metric("layer_fwd_ms")
		b, ok2 := r.Metric("layer_bwd_ms")
		if !ok1 || !ok2 {
			return Target{}, fmt.Errorf("per-layer row without layer_fwd_ms and layer_bwd_ms")
		}
		return Target{Metric: LayerTime, Value: (f + b) / 1e3, Forward: f / 1e3, Backward: b / 1e3,
			From: "other_metrics: layer_fwd_ms + layer_bwd_ms"}, nil
	}
	for _, col := range []struct {
		name   string
		metric Metric
	}{{"step_time_s", StepTime}, {"tokens_per_s_per_gpu", TokensPerGPU},
		{"derived_step_time_s", StepTime}, {"derived_tokens_per_s_per_gpu", TokensPerGPU}} {
		v, ok, err := r.Float(col.name)
		if err != nil {
			return Target{}, err
		}
		if ok && v > 0 {
			return Target{Metric: col.metric, Value: v, From: col.name}, nil
		}
	}
	tf, ok, err := r.Float("tflops_per_gpu")
	if err != nil || !ok || tf <= 0 {
		return Target{}, fmt.Errorf("no step time, tokens/s or TFLOP/s to compare with")
	}
	var perToken float64
	var conv string
	switch r.Source() {
	case "megatron_core_readme_h100_weak":
		perToken, conv = megatronFLOPsPerToken(m, seq), "Megatron-LM's model FLOPs"
	case "bloom176b_tr11":
		perToken, conv = narayananFLOPsPerToken(m, seq), "Megatron-DeepSpeed's recompute-inclusive FLOPs (Narayanan eq. 3)"
	case "llama3_paper_table4":
		perToken, conv = palmFLOPsPerToken(m, seq), "PaLM's 6N + 12LHQT (Chowdhery et al., as Llama 3 reports MFU)"
	default:
		return Target{}, fmt.Errorf("only TFLOP/s given, and the source's FLOP convention is not stated")
	}
	return Target{Metric: TokensPerGPU, Value: tf * 1e12 / perToken,
		From: fmt.Sprintf("tflops_per_gpu %g / %.4g FLOP per token (%s)", tf, perToken, conv)}, nil
}
