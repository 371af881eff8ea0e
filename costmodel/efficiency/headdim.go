package efficiency

import "github.com/gpu-planner/planner/hardware"

// Fused attention at small head dims is bound by the softmax's
// exponentials, not by its matmuls. Each score costs the matmuls
// 2 (dqk + dv) FLOPs but one exponential whatever the head dim, and the
// exponential units are far slower than the tensor cores: the H100 SXM5
// has 989 TFLOP/s of FP16 matmul against 3.9 TFLOP/s of special
// functions, so at head dim 128 "exponential can take 50% of the cycle
// time compared to matmul" (Shah et al. 2024, FlashAttention-3,
// arXiv:2407.08608, sec. 3). FlashAttention-3 and its successors overlap
// the two (ping-pong and intra-warpgroup pipelining, same section), so a
// tile runs at the slower of them: its matmul time down to a head dim
// where the exponentials take as long, and flat below it. The floor is
// measured on forwards; the backward's is scaled (backwardExpShare).
// FlashAttention-3's own forward at head dim 64 agrees with the Hopper
// floor: 497/648 of head dim 128's rate at 16k tokens (0.77) against
// 64/87.6 = 0.73. The measured floors sit higher on Blackwell (100
// against 88 in bf16), as a tensor-core rate grown faster than the
// exponential units' would put them.
//
// expHeadDims is that head dim, per generation and format: 64 / r, with
// r the median over the fitted GPUs (fitGPUs) of the FLOP rate at head
// dim 64 over the rate at head dim 128 in TRT-LLM's context FMHA, at the
// same batch, sequence (1,024 to 16,384 tokens), heads and kv heads
// (testdata/attention_headdim.csv, from the same aiconfigurator tables
// as the curves; TestExpHeadDimsReproduce). Every value is below 128, so
// the curves, fitted at head dim 128, are unchanged there. Head dims
// above 128 are not sped up: the measured rate at 256 is only 7-27%
// above 128's. Ampere (the A100 rows have head dim 128 only) and Ada are
// not measured: no floor.
var expHeadDims = []struct {
	arch   hardware.Arch
	format Format
	dim    float64
}{
	{hardware.Hopper, BF16, 87.6},
	{hardware.Hopper, FP8, 93.2},
	{hardware.Blackwell, BF16, 99.9},
	{hardware.Blackwell, FP8, 106.6},
	{hardware.BlackwellUltra, BF16, 95.2},
	{hardware.BlackwellUltra, FP8, 99.5},
}

// backwardExpShare is the backward's floor over the forward's, from
// FlashAttention-3's H100 figures (Shah et al. 2024, Figs. 5 and 6, BF16,
// FlashAttention-3, 512, 1k and 2k tokens): head dim 64 runs at 333/467,
// 392/565 and 460/625 of head dim 128's forward rate (0.714 mean) and
// 272/316, 363/424 and 422/501 of its backward rate (0.853), so the
// backward binds at 0.714/0.853 = 0.84 of the forward's head dim. The
// backward has five matmuls to the forward's two around one exponential
// per score, but also the elementwise dS = P (dP - D) per score.
const backwardExpShare = 0.84

// expHeadDim is the exponentials' floor of generation a's attention in
// format f (expHeadDims), 0 where none is measured.
func expHeadDim(a hardware.Arch, f Format) float64 {
	for _, e := range expHeadDims {
		if e.arch == a && e.format == f {
			return e.dim
		}
	}
	return 0
}
