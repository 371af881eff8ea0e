package main

import (
	"flag"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/costmodel/efficiency"
	"github.com/gpu-planner/planner/hardware"
)

// perfFlags override the step-time assumptions of
// costmodel.DefaultAssumptions.
type perfFlags struct {
	a        costmodel.Assumptions
	order    string
	kernelUS float64
	kernel   string
}

func (f *perfFlags) register(fs *flag.FlagSet) {
	d := costmodel.DefaultAssumptions()
	f.a = d
	fs.StringVar(&f.order, "rank-order", string(d.RankOrder), "order of the parallel dimensions over ranks, innermost first")
	fs.BoolVar(&f.a.TPCommOverlap, "tp-comm-overlap", d.TPCommOverlap, "hide tensor-parallel collectives behind the layer GEMMs")
	fs.BoolVar(&f.a.OverlapGradReduce, "overlap-grad-reduce", d.OverlapGradReduce, "overlap the data-parallel gradient reduction with the backward pass")
	fs.BoolVar(&f.a.OverlapParamGather, "overlap-param-gather", d.OverlapParamGather, "overlap ZeRO-1/2's weight all-gather with the next forward")
	fs.Float64Var(&f.a.TPOverlapShare, "tp-overlap-share", d.TPOverlapShare, "share of the overlappable tensor-parallel communication --tp-comm-overlap hides")
	fs.BoolVar(&f.a.AsyncTP, "async-tp", d.AsyncTP, "--tp-comm-overlap runs as PyTorch's micro-pipeline TP (torchtitan AsyncTP), not Transformer Engine userbuffers")
	fs.Float64Var(&f.a.AsyncTPContention, "async-tp-contention", d.AsyncTPContention, "GEMM seconds each second of transfer --async-tp hides costs")
	fs.BoolVar(&f.a.CPAllGather, "cp-all-gather", d.CPAllGather, "context parallelism all-gathers keys and values (Llama 3, torchtitan) instead of Megatron's ring")
	fs.BoolVar(&f.a.OverlapP2P, "overlap-p2p", d.OverlapP2P, "hide pipeline sends and receives behind compute")
	fs.BoolVar(&f.a.EagerCrossEntropy, "eager-cross-entropy", d.EagerCrossEntropy, "the loss is PyTorch's cross_entropy on fp32 logits (torchtitan), whose backward holds 8 more bytes per logit, not a fused in-place kernel")
	fs.BoolVar(&f.a.SeparateProjections, "separate-projections", d.SeparateProjections, "query, key and value (and SwiGLU gate and up) projections are separate linear layers (torchtitan), not one fused GEMM")
	fs.BoolVar(&f.a.UnfusedElementwise, "unfused-elementwise", d.UnfusedElementwise, "norms, rotary embeddings and SwiGLU as unfused eager PyTorch kernels")
	fs.Float64Var(&f.a.GEMMEfficiency, "gemm-efficiency", d.GEMMEfficiency, "share of the tensor-core peak matrix multiplies reach")
	fs.Float64Var(&f.a.AttentionEfficiency, "attention-efficiency", d.AttentionEfficiency, "share of the peak FlashAttention reaches")
	fs.Float64Var(&f.a.HBMEfficiency, "hbm-efficiency", d.HBMEfficiency, "share of the HBM bandwidth memory-bound kernels reach")
	fs.Float64Var(&f.a.ScaleUpEfficiency, "nvlink-efficiency", d.ScaleUpEfficiency, "bus bandwidth of collectives as a share of NVLink (0: measured by GPU generation, operation and message size)")
	fs.Float64Var(&f.a.ScaleOutEfficiency, "network-efficiency", d.ScaleOutEfficiency, "bus bandwidth of collectives as a share of the network")
	fs.Float64Var(&f.a.SustainedClock, "sustained-clock", d.SustainedClock, "share of the datasheet peak the GPU sustains (0: the GPU's default)")
	fs.StringVar(&f.kernel, "attention-kernel", d.AttentionKernel.String(), "fused attention implementation: best (the generation's fastest), fa2, fa3, triton (FlashAttention in Triton), fa4 (cuDNN or FlashAttention-4 on Blackwell)")
	fs.Float64Var(&f.kernelUS, "kernel-overhead-us", float64(d.KernelOverhead)*1e6, "time added to every GPU kernel, µs")
}

// apply copies the step-time fields into a.
func (f *perfFlags) apply(a costmodel.Assumptions) (costmodel.Assumptions, error) {
	p := f.a
	if err := floatIn("kernel-overhead-us", f.kernelUS, 0, 1e6); err != nil {
		return a, err
	}
	a.RankOrder = costmodel.RankOrder(f.order)
	a.TPCommOverlap, a.OverlapGradReduce, a.OverlapParamGather, a.OverlapP2P = p.TPCommOverlap, p.OverlapGradReduce, p.OverlapParamGather, p.OverlapP2P
	a.UnfusedElementwise, a.SustainedClock = p.UnfusedElementwise, p.SustainedClock
	a.TPOverlapShare, a.CPAllGather = p.TPOverlapShare, p.CPAllGather
	a.AsyncTP, a.AsyncTPContention = p.AsyncTP, p.AsyncTPContention
	a.GEMMEfficiency, a.AttentionEfficiency, a.HBMEfficiency = p.GEMMEfficiency, p.AttentionEfficiency, p.HBMEfficiency
	a.ScaleUpEfficiency, a.ScaleOutEfficiency = p.ScaleUpEfficiency, p.ScaleOutEfficiency
	a.KernelOverhead = hardware.Seconds(f.kernelUS / 1e6)
	k, err := efficiency.ParseKernel(f.kernel)
	if err != nil {
		return a, badInput(err)
	}
	a.AttentionKernel = k
	return a, badInput(a.Validate())
}
