package servingcal

import (
	"regexp"
	"strconv"
)

// Layout is the GPUs of one deployment as the engine ran it: tensor
// parallel TP inside each of DP attention data-parallel ranks, PP
// pipeline stages, the routed experts over EP ranks.
type Layout struct {
	TP, PP, DP, EP int
}

// GPUs is tp x pp x dp.
func (l Layout) GPUs() int { return l.TP * l.PP * l.DP }

// idTP is the tensor-parallel size an id names ("..._c64_tp8_ep8_937").
var idTP = regexp.MustCompile(`_tp(\d+)_`)

// engineLayout reads the layout of point p. The source records an
// aggregated MoE deployment as tp_size x attention_dp_size =
// moe_tp_size x moe_ep_size GPUs (aiconfigurator's
// resolve_moe_parallelism, sdk/config.py). Some DeepSeek-R1 and
// gpt-oss rows instead carry the engine's own flags, TensorRT-LLM's
// tensor_parallel_size and moe_expert_parallel_size or SGLang's --tp and
// --ep, in moe_tp_size and moe_ep_size, with tp_size (or
// attention_dp_size) their product: the ids that name their layout say
// so ("..._tp8_ep8_937" is recorded as tp_size 64 = 8 x 8, moe_tp 8,
// moe_ep 8), and the rows are InferenceMAX's single-node benchmarks (8
// GPUs of an H200 or B200 node; SemiAnalysis InferenceMAX, 2025).
// There the engine's tp spans the deployment's GPUs: an id's tpN gives
// the GPU count; without one, a recorded moe_tp and moe_ep both above 1
// whose product is the recorded width gives moe_tp GPUs. The GPUs then
// run attention tensor parallel, or as that many attention data-parallel
// ranks when the row records attention dp, with the experts over moe_ep
// ranks.
func engineLayout(p Point) (l Layout, reread bool) {
	l = Layout{TP: p.TP, PP: p.PP, DP: p.AttentionDP, EP: p.ExpertEP}
	width := p.TP * p.AttentionDP
	gpus := width
	if m := idTP.FindStringSubmatch(p.ID); m != nil {
		gpus, _ = strconv.Atoi(m[1])
	} else if p.ExpertTP > 1 && p.ExpertEP > 1 && p.ExpertTP*p.ExpertEP == width {
		gpus = p.ExpertTP
	}
	if gpus == width || gpus < 1 || width%gpus != 0 {
		return l, false
	}
	if p.AttentionDP > 1 {
		l.TP, l.DP = 1, gpus
	} else {
		l.TP = gpus
	}
	return l, true
}
