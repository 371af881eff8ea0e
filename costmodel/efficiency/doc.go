// Package efficiency models the throughput GPU kernels achieve, by shape,
// GPU generation and format, in place of one global share of the peak:
// GEMMs (GEMMFor, GEMM.Time, GEMM.Grouped for MoE experts) and
// FlashAttention-style fused attention (AttentionFor, Attention.Forward,
// Attention.Backward).
//
// A GEMM's time is a roofline whose compute side follows how a tiled
// kernel runs: tiles of 128x128 outputs, waves of one tile per SM (a
// partial wave costs a full one), split-K for skinny products, a fixed
// per-tile cost worth KHalf steps of k, a memory-bound floor at a share
// of HBM bandwidth and a per-call overhead. Four parameters per
// (generation, format) — Ceiling, KHalf, Launch, HBMEff — are fitted by
// least squares in log time on measured TensorRT-LLM GEMM timings
// (testdata/gemm.csv, from NVIDIA's AIConfigurator database); the GPU's
// datasheet peak, bandwidth and SM count carry the curve from one part of
// a generation to another. Where nothing is measured (MXFP8, rowwise FP8,
// AMD) a stated neighbour curve is used and Evidence says Extrapolated.
//
// Clock: the measurements are short CUDA-graph replays, which run at the
// boost clock the datasheet peak assumes (the fitted Hopper BF16 curve
// reaches 83% of 989 TFLOP/s, above the 82% a power-limited H100 holds
// under sustained load). So Ceiling does not include sustained-clock
// throttling: a step-time model of long runs multiplies by
// hardware.GPU.Sustained() once (GEMM.Sustained), and must not treat the
// ceiling as already throttled.
//
// Reproduce the fits and their errors with
//
//	go test ./costmodel/efficiency -run 'Fits|LeaveOne|Published|Attention' -v
package efficiency
