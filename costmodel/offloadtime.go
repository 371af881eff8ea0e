package costmodel

import "github.com/gpu-planner/planner/hardware"

// paramSplit is a stage's parameters per GPU: all of them, those the
// optimizer trains (the adapters under LoRA) and the bytes of the
// frozen base (zero when every weight trains).
type paramSplit struct {
	total, trained, frozenBytes float64
}

// weightBytes is what ZeRO-3 gathers: the 16-bit trained weights and the
// frozen base in its dtype.
func (ps paramSplit) weightBytes(sb StateBytes) float64 {
	return ps.trained*sb.Weight + ps.frozenBytes
}

// splitParams splits stage r's parameters (stageParams) into trained and
// frozen.
func (e *Evaluator) splitParams(p Plan, r, layers, moe int) paramSplit {
	total := e.stageParams(p, r, layers, moe)
	if !p.Task.Adapted() {
		return paramSplit{total: total, trained: total}
	}
	body := e.m.layersParams(p.TP, layers-moe, moe)
	return paramSplit{total: total, trained: e.m.stageAdapterParams(p, layers-moe, moe),
		frozenBytes: FrozenBaseBytes(body, total-body, p.BaseDType)}
}

// CPUAdamBytesPerParam is the host memory traffic of one parameter's CPU
// optimizer step: read the fp32 gradient (4), read and write the master
// weight and the moments, write the 16-bit weight copied back to the GPU,
//
//	4 + 2·master + 2·moments + weight = 30 B with mixed-precision Adam
//
// (Ren et al. 2021, sec. 5.1: CPU-Adam fuses these into one pass).
func CPUAdamBytesPerParam(sb StateBytes) float64 {
	master := sb.Master
	if master == 0 {
		master = sb.Weight
	}
	return 4 + 2*master + 2*sb.Moments + sb.Weight
}

// offloadTime is the part of an offloaded step the GPU waits for, per
// step, on the host link of hardware.HostOf (per direction) and the host
// memory bandwidth:
//
//   - gradients to the host, each micro-batch, into the fp32 buffer
//     where they accumulate (ZeRO-Offload, Ren et al. 2021, sec. 4.1),
//     hidden behind the backward but for the last layer's share:
//     m x max(t_d2h - backward·(L-1)/L, t_d2h/L), t_d2h = P_shard x g / B_link;
//   - the CPU optimizer step, memory-bound on the host:
//     P_shard x CPUAdamBytesPerParam / (B_dram x cpuAdamEfficiency);
//   - the updated 16-bit weights back to the GPU: P_shard x w / B_link;
//   - with OffloadParams, each micro-batch fetches the weight shard for
//     the forward and again for the backward (ZeRO-Infinity,
//     Rajbhandari et al. 2021, sec. 5), hidden behind both but for one
//     layer's share: m x max(t_fetch - (fwd+bwd)·(L-1)/L, t_fetch/L).
//
// P_shard is the trained parameters over dp x cp. The step is not
// delayed (DeepSpeed's one-step delayed update is off by default).
func (e *Evaluator) offloadTime(in *stepInput, st *stageTime, ps paramSplit, layers float64) float64 {
	h := hardware.HostOf(e.c.GPU)
	link, dram := float64(h.Link), float64(h.DRAMBandwidth)*cpuAdamEfficiency
	sb, n, L := in.sb, float64(in.p.ShardDegree()), max(layers, 1)
	shard := ps.trained / n
	bwd := (st.bwd.total() + st.rec.total()) * (L - 1) / L
	d2h := shard * sb.Grad / link
	t := in.m * max(d2h-bwd, d2h/L)
	t += shard*CPUAdamBytesPerParam(sb)/dram + shard*sb.Weight/link
	if in.p.Offload == OffloadParams {
		fetch := 2 * ps.weightBytes(sb) / n / link
		t += in.m * max(fetch-(st.fwd.total()*(L-1)/L+bwd), fetch/L)
	}
	return t
}
