package costmodel

// PyTorch's micro-pipeline tensor parallelism (torchtitan's AsyncTP), as
// torch._inductor's micro_pipeline_tp pass and
// torch.distributed._symmetric_memory run it.

// asyncTPExposed is the exposed time per layer, forward and backward, of
// the sequence-parallel collectives c (all-gather a, reduce-scatter b,
// c.perPass of each per pass) under micro-pipeline TP over tp ranks:
//
//   - Each fused all-gather-matmul (_pipelined_all_gather_and_consume)
//     runs the local shard's GEMM, then for each of the tp-1 peers a
//     copy-engine pull of its shard followed by that shard's GEMM, the
//     pulls on one stream beside the GEMMs on the other; the last
//     shard's GEMM runs after the last pull, so tp-1 of the tp GEMM
//     chunks hide the transfers. Each fused matmul-reduce-scatter
//     (_pipelined_produce_and_all2all) mirrors it: the first chunk's
//     GEMM runs before any copy.
//   - The backward's reduce-scatters are not fused: their input is the
//     sum of several GEMMs (the query, key and value, or the gate and up
//     projections' input gradients), which the pass does not match
//     (pytorch/pytorch#149946: "only valid ... mm-reduce-scatter
//     patterns in the forward graph, but not in the backward graph").
//     The backward's all-gathers (of the output gradient, before the
//     row-parallel layers' input-gradient GEMMs) are: they hide behind
//     the input-gradient half of the backward GEMMs.
//   - What is hidden is not free: each hidden second costs
//     AsyncTPContention seconds of GEMM, fitted (calibration's
//     FitAsyncTPContention) because no source measures its parts: the
//     copy-engine pulls read and write HBM beside the GEMM, the chunks
//     synchronize all ranks by barriers (a rank's late chunk stalls the
//     others), and the local shard's copy into the symmetric buffer
//     runs before the first GEMM. The chunk GEMMs (m/tp rows) are not
//     priced apart: the two streams run independent chunks side by side,
//     which the code says "greatly reduc[es] quantization inefficiency",
//     and at the benchmarks' 12-16 k rows per chunk the GEMM curve is
//     flat.
//
// Source: torch/distributed/_symmetric_memory/__init__.py,
// _pipelined_multi_all_gather_and_consume and
// _pipelined_produce_and_all2all.
func (e *Evaluator) asyncTPExposed(c layerComm, d layerCost, tp int) (fwd, bwd float64) {
	chunks := float64(tp-1) / float64(tp)
	t := c.perPass * (c.a.time + c.b.time)
	fwd = e.asyncHidden(t, chunks*d.fwd.gemm)
	ag := c.perPass * c.a.time
	bwd = e.asyncHidden(ag, chunks*d.bwd.gemm/2) + c.perPass*c.b.time
	return fwd, bwd
}

// asyncHidden is the exposed part of transfers of time t pipelined
// beside GEMM chunks of time window: what the window cannot cover, plus
// AsyncTPContention of what it does.
func (e *Evaluator) asyncHidden(t, window float64) float64 {
	hidden := min(t, window)
	return t - hidden + e.a.AsyncTPContention*hidden
}
