package costmodel

import "math"

// DeepSpeed v0.3.13's ZeRO-3 keeps tensors under
// stage3_param_persistence_threshold elements whole through the step
// (the norms and biases; default 1e5, deepspeed/runtime/zero/constants.py:
// the Megatron example config misspells the key,
// "stage3_param_persitance_threshold", so the default holds). Yet every
// backward ends in _partition_all_parameters (stage3.py), which
// partitions them too, and the optimizer's _post_step gathers them again
// with a synchronous all_gather: partition_parameters.py's
// _allgather_params gathers their concatenated partitions in one call,
// then rebuilds each tensor in a Python loop over the ranks, one
// partitions[i].narrow, view, narrow and copy_ per tensor and rank whose
// slice starts inside the tensor.
const (
	dsPersistThreshold = 1e5
	dsPersistOps       = 4
)

const srcZeRO3Persist = "DeepSpeed v0.3.13 stage3.py: _partition_all_parameters after each backward, _post_step " +
	"all_gather of the persistent parameters; partition_parameters.py _allgather_params: narrow, view, narrow, copy_ " +
	"per tensor and rank in Python, 3.3 µs of host time an op (pytorch/pytorch#32194)"

// nameZ3Persist is the step's gather of the persistent tensors.
const nameZ3Persist = "zero-3: norms and biases, after step"

// persistentTensors are the element counts of one layer's tensors on one
// tensor-parallel rank that DeepSpeed keeps whole: its norms (weight,
// and bias for LayerNorm) and linear biases under dsPersistThreshold.
func (m *Model) persistentTensors(tp int) []float64 {
	h, t := float64(m.Hidden), float64(max(tp, 1))
	var out []float64
	norm := []float64{h, h}
	if m.Norm == RMSNorm {
		norm = norm[:1]
	}
	out = append(out, norm...)
	out = append(out, norm...)
	qkv := float64((m.Heads+2*m.KVHeads)*m.HeadDim) / t
	if m.Bias || m.QKVBias {
		out = append(out, qkv)
	}
	if m.Bias {
		in := float64(m.FFN) / t
		if m.MLP == SwiGLU {
			in *= 2
		}
		out = append(out, h, in, h)
	}
	kept := out[:0]
	for _, n := range out {
		if n < dsPersistThreshold {
			kept = append(kept, n)
		}
	}
	return kept
}

// persistRanks is how many of n ranks hold a slice that starts inside a
// tensor of e elements: DeepSpeed pads each partition to ceil(e/n).
func persistRanks(e, n float64) float64 {
	return math.Ceil(e / math.Ceil(e/n))
}

// zero3Persist adds the step's gather of the persistent tensors of a
// stage of L layers over the n ranks of g: the one all-gather of their
// partitions and the host loop that rebuilds them,
//
//	L x sum over a layer's persistent tensors of ranks(e, n) x 4 x t_op
//
// exposed whole: it runs after the optimizer step, before the next
// forward.
func (e *Evaluator) zero3Persist(in *stepInput, st *stageTime, set *commSet, g group, layers float64) {
	var elems, ranks float64
	for _, n := range e.m.persistentTensors(in.p.TP) {
		elems += n
		ranks += persistRanks(n, float64(g.size))
	}
	if elems <= 0 {
		return
	}
	L := max(layers, 1)
	c := e.cost(AllGather, L*elems*in.sb.Weight, g)
	c.time += L * ranks * dsPersistOps * dsHostOp
	st.addComm(set, commItem{name: nameZ3Persist, kind: CommDPParams, op: AllGather, g: g, msg: L * elems * in.sb.Weight,
		calls: 1, cost: c, exposed: c.time, source: srcZeRO3Persist}, false, in.m)
}

// nameZ3SmallRS is the per-tensor reduce-scatter of the persistent
// tensors' gradients.
const nameZ3SmallRS = "zero-3: norm and bias reduce-scatters"

// persistentGrads is one reduce-scatter of a persistent tensor's
// gradient and how many a micro-batch's backward issues: DeepSpeed
// v0.3.13 reduces every parameter's gradient with its own list-form
// reduce_scatter (stage3.py reduce_ipg_grads, average_tensor;
// partition_parameters.py _reduce_scatter_gradients), the norms and
// biases too, L x (persistent tensors a layer) calls of their mean size.
func (e *Evaluator) persistentGrads(in *stepInput, g group, L float64) (c commCost, msg, calls float64) {
	ts := e.m.persistentTensors(in.p.TP)
	if len(ts) == 0 {
		return commCost{}, 0, 0
	}
	var elems float64
	for _, n := range ts {
		elems += n
	}
	s := elems / float64(len(ts)) * in.sb.Grad
	return listFormCall(e.cost(ReduceScatter, s, g), ReduceScatter, s, float64(g.size), in.r), s, L * float64(len(ts))
}
