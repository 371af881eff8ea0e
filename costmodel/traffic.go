package costmodel

import "github.com/gpu-planner/planner/hardware"

// CommKind is the parallelism a collective serves; exposed communication
// is reported per kind.
type CommKind int

const (
	// CommTP is tensor (and sequence) parallelism inside each layer.
	CommTP CommKind = iota
	// CommCP is the context-parallel ring of keys and values.
	CommCP
	// CommPP is pipeline parallelism: activations and gradients at
	// stage boundaries, and tied-embedding gradients.
	CommPP
	// CommDPGrads is the gradient reduction over data (x context)
	// parallelism: DDP's all-reduce, ZeRO's reduce-scatter.
	CommDPGrads
	// CommDPParams is ZeRO's weight all-gathers: after the step for
	// ZeRO-1/2, before each forward and backward for ZeRO-3 (FSDP).
	CommDPParams
	// CommEP is expert parallelism: the token dispatch and combine
	// all-to-alls of every MoE layer (and, with etp > 1, the expert
	// tensor-parallel gathers around them).
	CommEP
	numCommKinds
)

var commKindNames = enumNames{"tp", "cp", "pp", "dp-grads", "dp-params", "ep"}

func (k CommKind) String() string               { return commKindNames.name(int(k)) }
func (k CommKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// TrafficLine is one collective of a training step as one GPU of the
// slowest pipeline stage sees it: what it moves, where, how often, how
// long it takes and how much of that is not hidden behind compute.
type TrafficLine struct {
	Name       string        `json:"name"`
	Kind       CommKind      `json:"kind"`
	Collective Collective    `json:"collective"`
	Algorithm  Algorithm     `json:"algorithm"`
	Tier       hardware.Tier `json:"tier"`
	// Group is the communicator's placement, e.g. "8 ranks in 1 node".
	Group string `json:"group"`
	// Message is the buffer of one call; Calls the calls per step.
	Message hardware.Bytes `json:"message_bytes"`
	Calls   float64        `json:"calls_per_step"`
	// Bytes is what this GPU sends per step; NetworkBytes the part of it
	// that crosses the scale-out network.
	Bytes        hardware.Bytes `json:"bytes_per_gpu"`
	NetworkBytes hardware.Bytes `json:"network_bytes_per_gpu"`
	// Time is the collective's time per step; Exposed the part on the
	// critical path; OverlapsWith what hides the rest.
	Time         hardware.Seconds `json:"time_s"`
	Exposed      hardware.Seconds `json:"exposed_s"`
	OverlapsWith string           `json:"overlaps_with,omitempty"`
	Source       string           `json:"source"`
}

// commItem is a TrafficLine before formatting. Its strings are constants,
// so filling a commSet does not allocate.
type commItem struct {
	name, overlap, source string
	kind                  CommKind
	op                    Collective
	g                     group
	msg, calls            float64
	cost                  commCost // one call
	exposed               float64  // seconds per step
}

// maxCommItems bounds the collectives of one step (fewer than 20 kinds
// of lines exist for the dense layers, a dozen more for the experts).
const maxCommItems = 40

// commSet collects the collectives of one stage without allocating. A
// nil *commSet records nothing, so the numbers and the itemized lines
// come from the same code.
type commSet struct {
	items [maxCommItems]commItem
	n     int
}

func (s *commSet) add(it commItem) {
	if s == nil || it.calls == 0 || it.cost.bytes == 0 {
		return
	}
	if s.n == maxCommItems {
		panic("costmodel: more collectives than commSet holds")
	}
	s.items[s.n] = it
	s.n++
}

// lines formats the set as traffic lines, in the order recorded.
func (s *commSet) lines() []TrafficLine {
	out := make([]TrafficLine, 0, s.n)
	for _, it := range s.items[:s.n] {
		out = append(out, TrafficLine{
			Name: it.name, Kind: it.kind, Collective: it.op, Algorithm: it.cost.algo, Tier: it.g.tier(),
			Group: describeGroup(it.g), Message: hardware.Bytes(it.msg), Calls: it.calls,
			Bytes:        hardware.Bytes(it.calls * it.cost.bytes),
			NetworkBytes: hardware.Bytes(it.calls * it.cost.network),
			Time:         hardware.Seconds(it.calls * it.cost.time), Exposed: hardware.Seconds(it.exposed),
			OverlapsWith: it.overlap, Source: it.source,
		})
	}
	return out
}

// Sources of the traffic lines.
const (
	srcTPComm  = "Shoeybi et al. 2019 (arXiv:1909.08053), sec. 3: two all-reduces per layer forward and two backward; Korthikanti et al. 2022, sec. 4.2.2: all-gather + reduce-scatter of the same volume with sequence parallelism"
	srcCPComm  = "Liu et al. 2023, Ring Attention (arXiv:2310.01889); Megatron-Core context parallelism: cp-1 K/V exchanges forward, K/V and dK/dV backward"
	srcPPComm  = "Narayanan et al. 2021 (arXiv:2104.04473), sec. 4.1: one activation per micro-batch and chunk forward, one gradient backward, scatter/gather over tp"
	srcDPComm  = "Li et al. 2020, PyTorch Distributed (arXiv:2006.15704): gradient all-reduce; Rajbhandari et al. 2020, ZeRO, sec. 7: reduce-scatter + all-gather"
	srcZeRO3   = "Rajbhandari et al. 2020, ZeRO, sec. 7.2.2: weight all-gather forward and backward, gradient reduce-scatter (1.5x DDP); Zhao et al. 2023, PyTorch FSDP"
	srcEmbComm = "Shoeybi et al. 2019, sec. 3: the vocabulary-parallel embedding all-reduces its output; Narayanan et al. 2021: tied embedding gradients all-reduced between the first and last stage"
)
