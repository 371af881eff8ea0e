package costmodel

import "github.com/gpu-planner/planner/hardware"

// scaleUpFit is the measured cost of one NCCL collective inside one
// NVLink domain, fitted per GPU generation and operation on the
// nccl-tests timings NVIDIA AIConfigurator collected (2, 4 and 8 GPUs,
// 4 MiB to 512 MiB for this large-message form, 64 KiB to 4 MiB for the
// small-message pair below; testdata/nccl/intranode.csv, a subset of
// calibration/kernels/comm.csv, fitted by TestScaleUpFit):
//
//	time = latency + s x (busFactor + chunk/n) / (share x NVLink)
//
// latency is the fixed time of a call (kernel launch, channel setup,
// the pipeline's fill and drain), share the bus bandwidth a large
// message reaches as a share of the per-direction NVLink bandwidth, and
// chunk the extra buffers' worth of traffic a rank moves beyond the
// bus factor (the local copy of the out-of-place collective and the
// ring's last partial chunk, which weigh more the fewer the ranks: at 2
// GPUs the bus bandwidth is 25-30% below the 8-GPU one on every
// generation). Message size enters through latency: a 4 MiB all-gather
// on 8 H100s reaches about a quarter of NVLink, a 512 MiB one three
// quarters.
//
// Below 4 MiB NCCL switches to its low-latency protocols (LL, LL128:
// flags stored with the data, so no separate synchronization, at a
// fraction of the bandwidth) when its tuner predicts them faster
// (src/graph/tuning.cc, ncclTopoTuneModel, one latency and bandwidth per
// protocol). The small-message pair, fitted on the 64 KiB to 4 MiB rows
// of the same data, prices that protocol, and a call takes the faster of
// the two, as the tuner picks:
//
//	small = smallLatency + s x busFactor / (smallShare x NVLink)
type scaleUpFit struct {
	latency float64 // seconds
	share   float64
	chunk   float64
	// smallLatency (seconds) and smallShare price the low-latency
	// protocols.
	smallLatency float64
	smallShare   float64
}

// time is one call of op over n ranks of an s-byte buffer on NVLink
// bandwidth up (bytes/s): the faster of the large-message fit and the
// small-message one.
func (f scaleUpFit) time(op Collective, n int, s, up float64) float64 {
	bf := busFactor(op, n)
	large := f.latency + s*(bf+f.chunk/float64(n))/(f.share*up)
	small := f.smallLatency + s*bf/(f.smallShare*up)
	return min(large, small)
}

// scaleUpFits are TestScaleUpFit's least-squares fits (relative error)
// of the nccl-tests rows AIConfigurator uses by default (aic_default 1,
// fp16), pooled by generation over A100 SXM (NCCL 2.27.3), H100 and
// H200 SXM (data measured with NCCL 2.29.2) and B200, B300, GB200,
// GB300 (NCCL 2.29.2), in the order latency, share, chunk,
// smallLatency, smallShare. Hopper's 8-GPU all-reduce runs NVLink SHARP
// (NVLS: the NVSwitch reduces), so its share is the highest. Priced with
// them, the 1,064 rows have median |error| 6.8%.
var scaleUpFits = map[hardware.Arch][5]scaleUpFit{
	hardware.Ampere: {
		AllReduce:     {41.9e-6, 0.695, 0.146, 14.9e-6, 0.282},
		AllGather:     {34.7e-6, 0.662, 0.331, 13.6e-6, 0.229},
		ReduceScatter: {34.6e-6, 0.678, 0.169, 12.5e-6, 0.237},
		AllToAll:      {30.0e-6, 0.664, 0.234, 13.6e-6, 0.238},
	},
	hardware.Hopper: {
		AllReduce:     {25.0e-6, 0.890, 0.550, 8.5e-6, 0.300},
		AllGather:     {22.0e-6, 0.751, 0.314, 7.4e-6, 0.260},
		ReduceScatter: {17.7e-6, 0.755, 0.405, 7.3e-6, 0.313},
		AllToAll:      {15.3e-6, 0.692, 0.116, 11.6e-6, 0.535},
	},
	hardware.Blackwell: {
		AllReduce:     {31.6e-6, 0.683, 0.044, 12.6e-6, 0.289},
		AllGather:     {22.4e-6, 0.658, 0.219, 11.1e-6, 0.224},
		ReduceScatter: {20.4e-6, 0.656, 0.321, 10.8e-6, 0.250},
		AllToAll:      {16.8e-6, 0.666, 0.747, 14.6e-6, 0.339},
	},
}

// measuredScaleUp is the fit for op on the evaluator's GPU: ok is false
// when ScaleUpEfficiency is set (the override: one share for every
// operation, with NCCL's latency model) or the generation was not
// measured. A send to one peer is priced as a 2-rank all-gather, which
// moves the same bytes over one link pair.
// The fits are looked up once per GPU (Evaluator.setCurves).
func (e *Evaluator) measuredScaleUp(op Collective) (scaleUpFit, bool) {
	if op == SendRecv {
		op = AllGather
	}
	f := e.scaleUp[op]
	return f, e.scaleUpMeasured && f.share > 0
}

// nvlinkGeneration is the key of an architecture in scaleUpFits:
// Blackwell Ultra (B300, GB300) shares Blackwell's NVLink 5 and NVSwitch,
// and its measured bus bandwidths match B200's within 2%
// (calibration/kernels/comm.csv).
func nvlinkGeneration(a hardware.Arch) hardware.Arch {
	if a == hardware.BlackwellUltra {
		return hardware.Blackwell
	}
	return a
}

// scaleUpBusBandwidth is the NVLink bus bandwidth of op over n ranks:
// NVLink x share x busFactor / (busFactor + chunk/n) with the measured
// fit, NVLink x ScaleUpEfficiency (or the held default share where the
// generation was not measured) otherwise.
func (e *Evaluator) scaleUpBusBandwidth(op Collective, n int) float64 {
	up := float64(e.c.GPU.ScaleUp)
	f, ok := e.measuredScaleUp(op)
	if !ok {
		return up * e.a.scaleUpShare()
	}
	m := op
	if op == SendRecv {
		m, n = AllGather, 2
	}
	bf := busFactor(m, n)
	return up * f.share * bf / (bf + f.chunk/float64(n))
}

// heldScaleUpEfficiency is the one NVLink share used where no
// generation fit applies (GPUs outside scaleUpFits): the value fitted
// on the training rows before the measured model, at which NCCL's
// all-to-alls inside a Hopper node came within a few percent.
const heldScaleUpEfficiency = 0.613

// scaleUpShare is ScaleUpEfficiency when set, else heldScaleUpEfficiency.
func (a Assumptions) scaleUpShare() float64 {
	if a.ScaleUpEfficiency > 0 {
		return a.ScaleUpEfficiency
	}
	return heldScaleUpEfficiency
}
