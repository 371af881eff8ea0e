package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// NCCL's default buffer sizes per connection and channel, one for each of
// its three protocols (NVIDIA/nccl src/include/device.h and the
// NCCL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_LL_BUFFSIZE environment
// variables, docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html):
// Simple 4 MiB; LL128 120 elements x 640 threads x 8 steps x 8 B =
// 4,915,200 B; LL 8 lines x 512 threads x 8 steps x 16 B = 524,288 B.
// Together 9,633,792 B (9.19 MiB), within 0.1% of the 9,641,984 B NCCL's
// proxy pins per network connection, as traced on the mmap calls in
// tonyd2wild/DeepSeek-V4.1-Flash-vLLM-DGX-Spark#8.
const (
	ncclSimple = 4 * hardware.MiB
	ncclLL128  = 120 * 640 * 8 * 8
	ncclLL     = 8 * 512 * 8 * 16
)

// Channels and receiving peers per channel NCCL sets up for one
// communicator: up to 32 channels inside an NVLink/NVSwitch domain (nccl
// NCCL_MAX_NCHANNELS; NCCL's init log on 8 H100s reads "32 coll
// channels"), fewer across the network (NCCL_NCHANNELS_PER_NET_PEER 2
// per NIC; 8 assumed for a rail-optimized group); a ring and a tree
// connection receive on each channel. Assumed, not measured; used with
// Assumptions.NCCLByTier (--nccl-by-tier).
const (
	ncclScaleUpChannels  = 32
	ncclScaleOutChannels = 8
	ncclPeers            = 2
)

// NCCLCommBuffers is the device memory of one NCCL communicator:
//
//	channels x peers x (Simple 4 MiB + LL128 4.69 MiB + LL 0.5 MiB)
//
// 588 MiB for 32 channels and 2 peers (a group inside one node), 147 MiB
// for 8 (a group across nodes).
func NCCLCommBuffers(channels, peers int) hardware.Bytes {
	return hardware.Bytes(channels*peers) * (ncclSimple + ncclLL128 + ncclLL)
}

// ncclComm is one communicator of group g: NCCLCommBuffers for the
// group's tier with Assumptions.NCCLByTier, else NCCLPerGroup.
func (a Assumptions) ncclComm(g group) hardware.Bytes {
	switch {
	case g.size <= 1:
		return 0
	case !a.NCCLByTier:
		return a.NCCLPerGroup
	case g.nodes() > 1:
		return NCCLCommBuffers(ncclScaleOutChannels, ncclPeers)
	}
	return NCCLCommBuffers(ncclScaleUpChannels, ncclPeers)
}

// ncclBuffers is the NCCL memory of one rank of plan p: a communicator per
// parallel dimension larger than one (tp, cp, dp, pp), each of
// NCCLPerGroup or, with NCCLByTier, sized by its tier (rank order and
// node size place them).
func (e *Evaluator) ncclBuffers(p Plan) (bytes hardware.Bytes, comms int) {
	pl := place(p, e.order, e.c.GPUsPerNode)
	groups := [...]group{pl.tp, pl.cp, pl.dp, pl.pp, pl.etp, pl.ep, pl.edp}
	n := 4
	if e.m.MoE != nil {
		n = len(groups)
	}
	for _, g := range groups[:n] {
		if b := e.a.ncclComm(g); b > 0 {
			bytes += b
			comms++
		}
	}
	return bytes, comms
}

// ncclFormula describes the NCCL line.
func (a Assumptions) ncclFormula(bytes hardware.Bytes, comms int) string {
	if !a.NCCLByTier {
		return fmt.Sprintf("%s x %v", hardware.Plural(comms, "communicator", "communicators"), a.NCCLPerGroup)
	}
	return fmt.Sprintf("%s: channels x 2 peers x 9.19 MiB (Simple + LL128 + LL), 32 channels in a node, 8 across nodes", hardware.Plural(comms, "communicator", "communicators"))
}

const srcNCCL = "NCCL defaults: NCCL_BUFFSIZE 4 MiB, NCCL_LL128_BUFFSIZE, NCCL_LL_BUFFSIZE per channel and peer (NCCL env docs); channels assumed"

// ncclSource is the NCCL line's source.
func (a Assumptions) ncclSource() string {
	if a.NCCLByTier {
		return srcNCCL
	}
	return srcAssumed
}

// NCCLSummary is the NCCL assumption in words, for printed assumptions.
func (a Assumptions) NCCLSummary() string {
	if !a.NCCLByTier {
		return fmt.Sprintf("NCCL %v per communicator", a.NCCLPerGroup)
	}
	return fmt.Sprintf("NCCL %v per communicator in a node, %v across nodes", NCCLCommBuffers(ncclScaleUpChannels, ncclPeers),
		NCCLCommBuffers(ncclScaleOutChannels, ncclPeers))
}
