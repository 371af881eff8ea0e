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
	if moeRow(r) {
		return moeModel(r)
	}
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
	case has(name, "mpt-"):
		mpt(m)
	case has(name, "bloom"):
		m.Family, m.Bias, m.TiedEmbeddings = "bloom", true, true
	case has(name, "gpt") || has(name, "mt-nlg"):
		m.Family, m.Bias, m.Dropout, m.LearnedPositions, m.TiedEmbeddings = "gpt", true, true, true, true
	default:
		return nil, fmt.Errorf("architecture family of %q is not known", name)
	}
	untiedReadme(r, m, assumed)
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

// untiedReadme unties the output layer of the Megatron-Core README's
// H100 models: every size its model table names is the parameter count
// with a separate output layer (12 l h^2 + 2 V h: 1.75B, 7.12B, 16.1B,
// 31.5B, 69.8B, 118.4B, 177.2B, 313.5B, 461.5B for the 1.7B-462B rows)
// and not the tied one (1.48B, 6.58B, 15.3B, 30.5B, 68.7B, 117.1B,
// 175.6B, 311.4B, 459.1B), so the
// runs passed --untie-embeddings-and-output-weights (Megatron-LM
// arguments.py; tied is Megatron's default).
func untiedReadme(r Row, m *costmodel.Model, assumed *[]string) {
	if !has(r.Source(), "megatron_core_readme") {
		return
	}
	m.TiedEmbeddings = false
	assume(assumed, "untied output layer (the table's model sizes count it)")
}

// moeRow: the row is a mixture of experts (experts stated, or expert
// parallelism above 1).
func moeRow(r Row) bool {
	return r.Get("moe_experts") != "" || (r.Get("ep") != "" && r.Get("ep") != "1")
}

// moeModel is the catalog model a mixture-of-experts row names: the CSV
// gives the shape only in words (shared experts, dense leading layers,
// MLA, sliding windows), which the catalog's configs carry. The row's
// layers, hidden size and expert count must agree with it.
func moeModel(r Row) (*costmodel.Model, error) {
	m, err := costmodel.LookupModel(r.Get("model"))
	if err != nil {
		return nil, err
	}
	if m.MoE == nil {
		return nil, fmt.Errorf("catalog model %s is dense", m.Name)
	}
	for _, d := range []struct {
		col  string
		want int
	}{{"layers", m.Layers}, {"hidden", m.Hidden}, {"moe_experts", m.MoE.Experts}, {"moe_topk", m.MoE.TopK}} {
		if n, ok, err := r.Int(d.col); err != nil || ok && n != d.want {
			return nil, fmt.Errorf("%s %s disagrees with catalog model %s (%d)", d.col, r.Get(d.col), m.Name, d.want)
		}
	}
	return m, nil
}

// gpuKeys maps the CSV's GPU names to catalog keys, most specific
// first ("GB200" before "B200").
var gpuKeys = []struct{ sub, key string }{
	{"gb300", "gb300"}, {"gb200", "gb200"}, {"b300", "b300"}, {"b200", "b200"}, {"h200", "h200"}, {"h100", "h100-sxm"},
	{"a100", "a100-80gb"}, {"v100", ""},
}

// rowGPU picks the catalog GPU of a row. The A100 is the 80 GB part
// unless the row says 40; torchtitan's Grand Teton H100 has 96 GB
// (calibration README, sec. 4.2), set from gpu_mem_gb. That part is
// capped at 500 W, and it keeps the 700 W part's sustained clock: FBGEMM
// measured a 500 W H100's bf16 GEMMs at 585, 575 and 546 TFLOP/s
// (pytorch/FBGEMM#2546: 8192^3, 65536x8192x7168, 65536x3584x8192), 0.715
// of the peak where the 700 W curve holds 0.82, but priced at 0.715 the
// torchtitan rows turn 18% slow (fp8-cs) under the fitted attention share;
// they come to +4% only with the attention share that pricing MosaicML's
// Triton kernels gives (README, "What the figures lean on").
func rowGPU(r Row, assumed *[]string) (hardware.GPU, error) {
	name := r.Get("gpu")
	key := ""
	for _, k := range gpuKeys {
		if has(name, k.sub) {
			key = k.key
			if key == "" {
				return hardware.GPU{}, fmt.Errorf("GPU %q is not in the hardware catalog", name)
			}
			break
		}
	}
	if key == "" {
		return hardware.GPU{}, fmt.Errorf("GPU %q is not in the catalog", name)
	}
	if key == "a100-80gb" && r.Get("gpu_mem_gb") == "40" {
		key = "a100-40gb"
	}
	g, err := hardware.LookupGPU(key)
	if err != nil {
		return hardware.GPU{}, err
	}
	if has(name, "96gb") {
		g.HBM = 96 * hardware.GB
		assume(assumed, "H100 at 500 W: the 700 W part's sustained clock")
	}
	return g, nil
}

// rowCluster builds the cluster. The network is the catalog's one NIC
// per GPU unless the row's interconnect names another (Jean Zay: 4 x
// 100 Gb/s Omni-Path per 8-GPU node). An NVL72 rack's NVLink domain is
// 72 GPUs, not the 4 of a compute tray that gpus_per_node gives
// (calibration README, sec. 1); a job on it gets the largest domain of
// at most 72 GPUs that divides its GPU count.
func rowCluster(r Row, assumed *[]string) (hardware.Cluster, error) {
	g, err := rowGPU(r, assumed)
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
	case has(ic, "nvl72"):
		per = nvlDomain(gpus, g.ScaleUpDomain)
		if per < min(gpus, g.ScaleUpDomain) {
			assume(assumed, "NVLink domain of %d GPUs (divides %d)", per, gpus)
		}
	case ic == "" || has(ic, "not stated"):
		assume(assumed, "network: %v per GPU (catalog %s)", g.ScaleOut, g.Name)
	}
	return hardware.ClusterForGPUs(g, gpus, per)
}

// nvlDomain is the largest divisor of gpus that is at most domain.
func nvlDomain(gpus, domain int) int {
	for d := min(gpus, domain); d > 1; d-- {
		if gpus%d == 0 {
			return d
		}
	}
	return 1
}

// plan reads the layout and the job settings.
func (c *Case) plan() error {
	r, fw := c.Row, c.fw
	p := costmodel.Plan{CP: 1, PP: 1, VPP: 1, Attention: fw.Attention, Optimizer: costmodel.Adam}
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
		p.MicroBatch = fw.MicroBatch
		assume(&c.Assumed, "mbs=%d", p.MicroBatch)
	}
	c.pipelineMicrobatches(&p)
	if moeRow(r) {
		if p.EP, err = count(r, "ep"); err != nil {
			return err
		}
		p.ETP = 1
		if c.Row.Get("etp") != "" {
			if p.ETP, err = count(r, "etp"); err != nil {
				return err
			}
		} else {
			assume(&c.Assumed, "etp=1 (Megatron-Bridge MoE recipes: expert_tensor_parallel_size 1)")
		}
		if err := foldable(p); err != nil {
			return err
		}
	}
	c.virtualStages(&p)
	if err := c.lora(&p); err != nil {
		return err
	}
	c.packing(&p)
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
	if c.impliedInterleaving(p) {
		s = "interleaved"
	}
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

// impliedInterleaving reports a row whose source names no schedule but
// says its pipeline communication overlapped compute: the Megatron-Core
// README's H100 runs (r0.8.0) overlap "pipeline-parallel communication
// (enabled by default)", and Megatron-LM r0.8.0 overlaps the pipeline's
// sends and receives only under the interleaved schedule
// (megatron/training/arguments.py: without
// --num-layers-per-virtual-pipeline-stage it sets overlap_p2p_comm False,
// "non-interleaved schedule does not support overlapping p2p
// communication"), so those runs were interleaved.
func (c *Case) impliedInterleaving(p *costmodel.Plan) bool {
	return p.PP > 1 && c.Row.Get("pp_schedule") == "not stated" &&
		c.Row.Source() == "megatron_core_readme_h100_weak"
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

// foldable checks a MoE row's layout against Megatron-Core's parallel
// folding (megatron/core/parallel_state.py, initialize_model_parallel):
// the expert layers of a pipeline stage regroup its tp x cp x dp GPUs
// as etp x ep x edp, so ep x etp must divide tp x cp x dp; no etp lets an
// ep larger than a stage's GPUs run.
func foldable(p costmodel.Plan) error {
	stage := p.TP * p.CP * p.DP
	if stage%(p.EP*p.ETP) == 0 {
		return nil
	}
	fix := "no etp makes it valid"
	if stage%p.EP == 0 {
		fix = "a smaller etp would"
	}
	return fmt.Errorf("layout inconsistent under Megatron-Core's parallel folding: ep %d x etp %d does not divide a stage's tp x cp x dp = %d x %d x %d = %d GPUs (pp %d); %s",
		p.EP, p.ETP, p.TP, p.CP, p.DP, stage, p.PP, fix)
}

// pipelineMicrobatches splits torchtitan's local batch into pipeline
// micro-batches. torchtitan's tables give the local batch per data-parallel
// rank (training.batch_size), and its pipeline schedule runs it as
// experimental.pipeline_parallel_microbatches micro-batches, by default
// the pipeline degree (torchtitan 2024 parallelisms/pipeline_llama.py:
// n_microbatches = pipeline_parallel_microbatches or pp degree).
func (c *Case) pipelineMicrobatches(p *costmodel.Plan) {
	if !has(c.Row.Source(), "torchtitan") || p.PP <= 1 || p.MicroBatch%p.PP != 0 {
		return
	}
	local := p.MicroBatch
	p.MicroBatch = local / p.PP
	assume(&c.Assumed, "local batch %d in %d pipeline micro-batches of %d (torchtitan default: the pp degree)", local, p.PP, p.MicroBatch)
}
