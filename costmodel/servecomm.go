package costmodel

import "github.com/gpu-planner/planner/hardware"

// The communication of a serving step, in three small private functions. They
// use the latency-bandwidth (alpha-beta) cost of Hockney (1994, "The
// communication challenge for MPP") with the ring collectives of Thakur,
// Rabenseifner and Gropp (2005, "Optimization of Collective Communication
// Operations in MPICH", sec. 4): an all-reduce is a reduce-scatter and an
// all-gather, each moving (n-1)/n of the message over every link. For the
// kilobyte messages of decode the fixed latency dominates; for the
// megabyte messages of a long prefill the bandwidth does.
//
// They are separate from the training collectives (collectives.go, NCCL's
// ring and tree with per-step latencies) because serving engines run the
// kilobyte all-reduces of decode with one-shot custom kernels (vLLM's and
// TensorRT-LLM's custom all-reduce) whose fixed cost, about 10 µs on 8
// H100s, is several times below an NCCL ring's. A message past the custom
// kernel's size (customAllReduceMax, a long prefill's) goes to NCCL, and
// the load model prices it with the measured NCCL all-reduce the
// training collectives use (scaleUpFits), for every engine alike.

// link is the tier a serving collective runs on: its per-direction
// bandwidth per GPU and the fixed latency of one operation; nccl, on an
// NVLink generation with measured collectives, NCCL's all-reduce there
// (scaleUpFits), which takes the messages too large for the custom
// kernel.
type link struct {
	bw      hardware.Bandwidth
	latency hardware.Seconds
	eff     float64
	nccl    scaleUpFit
	hasNCCL bool
}

// customAllReduceMax is the largest all-reduce the engines' custom
// kernel takes: vLLM's CustomAllreduce(max_size=8192 * 1024)
// (vllm/distributed/device_communicators/custom_all_reduce.py), which
// SGLang's tensor parallelism uses as well; a larger tensor, a long
// prefill's activations, falls back to NCCL.
const customAllReduceMax = 8 << 20

// scaleUpLink is the NVLink (or the GPU's scale-up fabric) inside a node.
func scaleUpLink(c hardware.Cluster, a Assumptions) link {
	return link{bw: c.GPU.ScaleUp, latency: a.ServeAllReduceLatency, eff: a.ServeLinkEfficiency}
}

// ncclAllReduce is NCCL's measured all-reduce on g's NVLink generation
// (scaleUpFits); ok is false where it was not measured.
func ncclAllReduce(g hardware.GPU) (f scaleUpFit, ok bool) {
	fits, found := scaleUpFits[nvlinkGeneration(g.Arch)]
	return fits[AllReduce], found && fits[AllReduce].share > 0
}

// scaleOutLink is the network between nodes.
func scaleOutLink(c hardware.Cluster, a Assumptions) link {
	return link{bw: c.GPU.ScaleOut, latency: a.ServeNetworkLatency, eff: a.ServeLinkEfficiency}
}

// serveAllReduce is one all-reduce of bytes over n GPUs: the custom
// kernel's latency + 2(n-1)/n x bytes / (bandwidth x efficiency) up to
// customAllReduceMax, and above it NCCL's measured all-reduce where the
// link has one (a 134 MB prefill all-reduce on 8 B200s: 0.68 of NVLink
// against the custom kernel's 0.8).
func serveAllReduce(n int, bytes float64, l link) hardware.Seconds {
	if n <= 1 {
		return 0
	}
	if l.hasNCCL && bytes > customAllReduceMax {
		return hardware.Seconds(l.nccl.time(AllReduce, n, bytes, float64(l.bw)))
	}
	return l.latency + hardware.Seconds(2*float64(n-1)/float64(n)*bytes/(float64(l.bw)*l.eff))
}

// serveAllGather is one all-gather of a bytes result over n GPUs:
// latency + (n-1)/n x bytes / (bandwidth x efficiency).
func serveAllGather(n int, bytes float64, l link) hardware.Seconds {
	if n <= 1 {
		return 0
	}
	return l.latency + hardware.Seconds(float64(n-1)/float64(n)*bytes/(float64(l.bw)*l.eff))
}

// serveSend is one point-to-point message of bytes (a pipeline hand-off):
// latency + bytes / (bandwidth x efficiency).
func serveSend(bytes float64, l link) hardware.Seconds {
	return l.latency + hardware.Seconds(bytes/(float64(l.bw)*l.eff))
}
