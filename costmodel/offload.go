package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

const (
	srcZeROOffload  = "Ren et al. 2021, ZeRO-Offload (arXiv:2101.06840), sec. 4: fp32 master, moments and the Adam step on the CPU"
	srcZeROInfinity = "Rajbhandari et al. 2021, ZeRO-Infinity (arXiv:2104.07857), sec. 5: parameters offloaded, fetched per layer"
	srcDSBucket     = "DeepSpeed ZeRO config: reduce_bucket_size default 500,000,000 elements"
)

// offloadBucket is DeepSpeed's reduce_bucket_size default in elements:
// with the optimizer offloaded, a rank's gradients leave the GPU bucket
// by bucket, so the GPU holds at most one bucket of them.
const offloadBucket = 5e8

// HostFraction is the share of host memory offloaded states may take:
// the rest is left to the operating system, the data loaders and pinned
// staging buffers (an assumption; DeepSpeed pins the offloaded states).
const HostFraction = 0.8

// cpuAdamEfficiency is the share of the host memory's peak bandwidth the
// CPU optimizer step streams at. ZeRO-Offload's CPU-Adam is vectorized
// and memory-bound (Ren et al. 2021, sec. 5.1); 0.5 is an assumption for
// a multi-threaded stream over two sockets (STREAM triad reaches 70-80%
// of peak on one).
const cpuAdamEfficiency = 0.5

// HostStateBytes is the host memory per offloaded parameter: ZeRO-Offload
// keeps an fp32 copy of the gradient beside the fp32 master weights and
// the moments (Ren et al. 2021, sec. 4.1: "fp32 parameters, fp16
// gradients ... and all optimizer states" on the CPU, with the gradients
// upcast to fp32 for the update),
//
//	4 (gradient) + master + moments = 16 B/param with Adam,
//
// and ZeRO-Infinity also the 16-bit weights it fetches from (weight bytes
// more).
func HostStateBytes(sb StateBytes, params bool) float64 {
	b := 4 + sb.Master + sb.Moments
	if sb.Master == 0 {
		b += sb.Weight // fp32 training: the weights are the master
	}
	if params {
		b += sb.Weight
	}
	return b
}

// offloadStates moves the offloaded states of a stage to the host: the
// optimizer states (and the weights with OffloadParams) leave the GPU;
// the gradients on the GPU shrink to one reduce bucket.
func (e *Evaluator) offloadStates(p Plan, s *StageMemory) {
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	trained := s.Params
	if p.Task.Adapted() {
		trained = s.AdapterParams
	}
	shard := trained / float64(p.ShardDegree())
	s.Host = hardware.Bytes(shard * HostStateBytes(sb, p.Offload == OffloadParams))
	s.MasterWeights, s.Moments = 0, 0
	s.Gradients = min(s.Gradients, hardware.Bytes(offloadBucket*sb.Grad))
	if p.Offload == OffloadParams {
		s.Weights = 0
		if p.Task.Adapted() {
			s.Host += s.BaseWeights
			s.BaseWeights = 0
		}
	}
}

// HostBudget is the host memory offloaded states may use per GPU.
func (e *Evaluator) HostBudget() hardware.Bytes {
	return hardware.Bytes(HostFraction) * hardware.HostOf(e.c.GPU).DRAM
}

// HostFits reports whether the states plan p offloads fit the host
// budget on every stage (the first stage holds the most parameters or
// equal to the most, but every stage is checked).
func (e *Evaluator) HostFits(p Plan) bool {
	if p.Offload == NoOffload && p.OffloadActivationLayers == 0 {
		return true
	}
	for r := range p.PP {
		if e.stageHost(p, r) > e.HostBudget() {
			return false
		}
	}
	return true
}

// stageHost is stage r's host memory: offloaded states and activations.
func (e *Evaluator) stageHost(p Plan, r int) hardware.Bytes {
	if p.OffloadActivationLayers == 0 {
		return e.stageStates(p, r).Host
	}
	s := e.Stage(p, r)
	return s.Host + s.HostActivations
}

// hostLines itemizes the host memory of stage s.
func (e *Evaluator) hostLines(p Plan, s StageMemory) []Line {
	var lines []Line
	if s.HostActivations > 0 {
		lines = append(lines, hostActivationLine(p, s))
	}
	if p.Offload == NoOffload {
		return lines
	}
	sb := e.a.ModelStateBytes(p.Precision, p.Optimizer)
	what, src := "optimizer", srcZeROOffload
	if p.Offload == OffloadParams {
		what, src = "optimizer and weights", srcZeROInfinity
	}
	return append([]Line{{Name: "host: offloaded " + what + " states", Group: GroupStates, Bytes: s.Host,
		Formula: fmt.Sprintf("%s x trained params/GPU / %d (dp*cp)", perParam(HostStateBytes(sb, p.Offload == OffloadParams)), p.ShardDegree()),
		Source:  src}}, lines...)
}

// HostInventory is the host memory of the peak stage against its budget.
type HostInventory struct {
	Server string         `json:"server"`
	Lines  []Line         `json:"lines"`
	Total  hardware.Bytes `json:"total_bytes"`
	Budget hardware.Bytes `json:"budget_bytes"`
	Fits   bool           `json:"fits"`
}

// hostInventory is nil without offload of states or activations.
func (e *Evaluator) hostInventory(p Plan, s StageMemory) *HostInventory {
	lines := e.hostLines(p, s)
	if lines == nil {
		return nil
	}
	h := hardware.HostOf(e.c.GPU)
	inv := newInventory(lines, h.DRAM, HostFraction)
	return &HostInventory{Server: h.Server, Lines: inv.Lines, Total: inv.Total, Budget: inv.Budget, Fits: e.HostFits(p)}
}
