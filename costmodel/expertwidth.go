package costmodel

// expertWidthHalf is the half-saturation width of the routed experts'
// grouped GEMMs: split etp ways over tensor parallelism, each GPU's
// experts are ExpertFFN/etp wide, and a kernel of width N runs at
// N/(N + expertWidthHalf) of its ceiling. Fitted on NVIDIA
// AIConfigurator's fused-MoE timings at 8,192 tokens, the count at which
// MeasuredKernelShares' MoE shares are taken (testdata/moe/moe_split.csv:
// each tensor-split layer against the same layer on one GPU, over H100,
// H200, B200, B300 and GB200, bf16, fp8, fp8-block and NVFP4: 637 split
// layers, median |error| 11%, 90th percentile 37%; TestExpertWidthShare).
const expertWidthHalf = 900

// expertWidthShare is the speed of the routed experts' GEMMs split etp
// ways over tensor parallelism relative to unsplit ones, at the same
// FLOPs per GPU: (N + h)/(N + etp x h) with N = ffn and h =
// expertWidthHalf. DeepSeek-V3's 2,048-wide experts split 8 ways run at
// 0.32 of the unsplit speed, gpt-oss's 2,880 at 0.38.
func expertWidthShare(ffn, etp int) float64 {
	if etp <= 1 || ffn <= 0 {
		return 1
	}
	n := float64(ffn)
	return (n + expertWidthHalf) / (n + float64(etp)*expertWidthHalf)
}

// expertTP is the tensor split of each routed expert in plan s: tp
// without dp and ep, else the stage's tp x dp GPUs over the ep ranks.
func (s ServePlan) expertTP() int {
	if !s.splitExperts() {
		return s.TP
	}
	return s.stageGPUs() / s.ep()
}
