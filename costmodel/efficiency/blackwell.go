package efficiency

import "github.com/gpu-planner/planner/hardware"

// srcCuDNNBench is NVIDIA's own training-attention benchmark on
// Blackwell: cuDNN frontend, benchmark/sdpa_benchmark_training, the
// Llama 3.1 configuration (batch 2, 64 query and 8 key/value heads, head
// dim 128, bf16), cuDNN 9.23 against FlashAttention-4 (flash-attn
// 4.0.0b15), forward and backward, causal (top_left) and not, 2k to 32k
// tokens; FLOPs counted as FlashAttention's benchmarks count them
// (Flops). The full tables are kept as test data (blackwell_test.go).
const srcCuDNNBench = "NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training/results/llama3.1/<gpu>/llama3.1_20260529_*.csv " +
	"(cuDNN 9.23, batch 2 x 64 heads, head dim 128, bf16, no mask, 16k tokens)"

// srcFA2Blackwell is FlashAttention-2's figures on Blackwell.
const srcFA2Blackwell = "NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training/artifacts/sdpa_bf16_benchmark_results_NVIDIA_<gpu>.csv " +
	"(PyTorch SDPA flash backend, batch 1 x 128 heads, head dim 128, bf16, causal, 16k tokens)"

// blackwellBenchmarks are cuDNN fused attention's figures on Blackwell
// and Blackwell Ultra at 16k tokens without a mask, forward and backward
// TFLOP/s, on GB200 and GB300 (2,500 dense bf16 TFLOP/s each; B200 and
// B300 take the same share of their 2,250). cuDNN is what Transformer
// Engine's DotProductAttention runs on Blackwell (its fused-attention
// backend; Megatron-Core and NeMo call it), and FlashAttention-4 is within
// 9% of its forward and 11% of its backward (FlashAttention-4's the
// faster) at every length of the same table (blackwell_test.go), so one
// figure stands for the class. The B200 figures of the same
// benchmark with cuDNN 9.13 (artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv,
// causal, 128 heads) come within 7% of this share of peak at 32k
// tokens. Blackwell Ultra's higher figure is the doubled exponential
// throughput of Blackwell Ultra: "doubling SFU throughput over the
// standard NVIDIA Blackwell architecture" for softmax's MUFU.EX2
// (NVIDIA technical blog, "Making Softmax More Efficient with NVIDIA
// Blackwell Ultra").
//
// FlashAttention-2 on Blackwell runs Ampere-style mma.sync code without
// the asynchronous tensor cores, at about a sixth of the peak: PyTorch
// SDPA's flash backend (the FlashAttention-2 kernels PyTorch bundles, as
// torchtitan and DeepSpeed's model code call them) in the same
// benchmark's earlier artifacts (artifacts/sdpa_bf16_benchmark_results_NVIDIA_<gpu>.csv,
// batch 1, 128 query and 8 key/value heads, causal), at 16k tokens: 430
// forward, 352 backward TFLOP/s on GB200; 431 and 351 on GB300, whose
// doubled exponential units do not help a kernel that is not bound by
// them. B200's run of PyTorch's flash backend is 394 and 320, 0.175 of
// its peak against GB200's 0.172.
var blackwellBenchmarks = []benchmark{
	{arch: hardware.Blackwell, kernel: KernelFA2, tflops: 430, bwd: 352, peak: 2500, batchHeads: 128, seq: 16384, causal: true, source: srcFA2Blackwell + ", GB200: forward 430, backward 352 TFLOP/s"},
	{arch: hardware.BlackwellUltra, kernel: KernelFA2, tflops: 431, bwd: 351, peak: 2500, batchHeads: 128, seq: 16384, causal: true, source: srcFA2Blackwell + ", GB300: forward 431, backward 351 TFLOP/s"},
	{arch: hardware.Blackwell, kernel: KernelFA4, tflops: 1549, bwd: 1313, peak: 2500, batchHeads: 128, seq: 16384, source: srcCuDNNBench + ", GB200: forward 1549, backward 1313 TFLOP/s"},
	{arch: hardware.BlackwellUltra, kernel: KernelFA4, tflops: 2163, bwd: 1533, peak: 2500, batchHeads: 128, seq: 16384, source: srcCuDNNBench + ", GB300: forward 2163, backward 1533 TFLOP/s"},
}
