package costmodel

import (
	"fmt"

	"github.com/gpu-planner/planner/hardware"
)

// Activation offload follows Megatron-Core's cpu_offloading with
// cpu_offloading_num_layers N (megatron/core/transformer/
// transformer_config.py: "cpu_offloading_num_layers: Tells the number of
// transformer layers for which activations has to be offloaded"; the
// transformer block wraps each layer in Transformer Engine's
// get_cpu_offload_context(enabled, num_layers, model_layers,
// offload_activations, ...), transformer_engine/pytorch/cpu_offload.py).
// TE's AsyncDoubleBufferGroupOffloadHandler counts each layer as a
// group and offloads the groups below num_offload_group, the first N
// layers of the block: a layer's saved tensors are copied to the host on
// a side stream after its forward, their GPU memory freed once the copy
// is synchronized at the next window layer, and brought back ahead of the
// layer's backward (bulk_reload_group one group ahead, the prefetch).
const (
	srcActOffload = "Megatron-Core transformer_config.py (cpu_offloading, cpu_offloading_num_layers); " +
		"Transformer Engine pytorch/cpu_offload.py (get_cpu_offload_context, AsyncDoubleBufferGroupOffloadHandler)"
	srcActOffloadOverlap = "Transformer Engine cpu_offload.py, AsyncDoubleBufferGroupOffloadHandler: \"D2h and h2d copying are " +
		"completely hidden behind computation if computation time of a layer is longer than host-device communication time\""
)

// checkActOffload validates OffloadActivationLayers as Megatron-Core
// does (transformer_config.py: "CPU offloading can be done only for
// layers less than num_layers", 0 <= N < num_layers, the last layer's
// backward following its forward at once; "CPU offloading does not work
// when activation recomputation is enabled"), with num_layers the
// fewest layers of any pipeline stage, since the context wraps one
// stage's transformer block. Megatron-Core also rejects pipeline
// parallelism with cpu_offloading; the planner models a 1F1B or GPipe
// stage the same way per micro-batch in flight, but not the interleaved
// schedule, whose chunks each hold a block of their own.
func (p Plan) checkActOffload(m *Model) error {
	n := p.OffloadActivationLayers
	if n == 0 {
		return nil
	}
	fewest := m.Layers
	for r := range p.PP {
		l, _ := p.stageLayers(m.kinds(), r)
		fewest = min(fewest, l)
	}
	switch {
	case n < 0 || n >= fewest:
		return fmt.Errorf("costmodel: offload activations %d is not in [0, %d]: Megatron-Core offloads fewer layers than the %d of the smallest pipeline stage (cpu_offloading_num_layers < num_layers)",
			n, max(fewest-1, 0), fewest)
	case p.Recompute != NoRecompute:
		return fmt.Errorf("costmodel: offload activations %d needs recompute none (got %s): Megatron-Core's CPU offloading does not work with activation recomputation", n, p.Recompute)
	case p.Interleaved():
		return fmt.Errorf("costmodel: offload activations %d is not modeled with the interleaved schedule (vpp=%d); Megatron-Core's CPU offloading has no pipeline support", n, p.VPP)
	}
	return nil
}

// stageFirstLayer is the index of the first layer of non-interleaved
// pipeline stage r.
func (p Plan) stageFirstLayer(layers, r int) int {
	lo, _ := p.chunkRange(layers, p.middleChunk(layers), r)
	return lo
}

// isMoELayer reports whether layer i is a mixture-of-experts layer.
func (k layerKinds) isMoELayer(i int) bool { return k.moe(i, i+1) == 1 }

// offloadActivations moves the saved tensors of the stage's first
// OffloadActivationLayers layers to the host, for every micro-batch in
// flight:
//
//	host = sum over the offloaded layers of saved bytes per layer x in flight,
//
// and keeps one layer's saved tensors of one micro-batch on the GPU as
// the transfer buffer: TE frees an offloaded layer's GPU tensors only
// when its copy is synchronized at the next layer's commit, and reloads
// one layer ahead of the backward (AsyncDoubleBufferGroupOffloadHandler:
// bulk_offload_group, synchronize_on_group_commit_forward,
// bulk_reload_group), so one layer is in transfer at any time. The
// heaviest offloaded layer sets the buffer.
func (e *Evaluator) offloadActivations(p Plan, r int, la layerActs, s *StageMemory) {
	n := p.OffloadActivationLayers
	if n <= 0 || s.Layers == 0 {
		return
	}
	k := e.m.kinds()
	lo := p.stageFirstLayer(k.layers, r)
	moe := k.moe(lo, lo+n)
	per := float64(n-moe)*la.dense + float64(moe)*la.moe
	host := hardware.Bytes(s.InFlight * per)
	s.HostActivations = host
	s.LayerActivations -= host
	s.MoEActivations -= hardware.Bytes(s.InFlight * float64(moe) * la.moeMLP)
	s.ActivationOffloadBuffer = hardware.Bytes(la.dense)
	if moe > 0 {
		s.ActivationOffloadBuffer = hardware.Bytes(max(la.dense, la.moe))
		if moe == n {
			s.ActivationOffloadBuffer = hardware.Bytes(la.moe)
		}
	}
}

// actOffloadBufferLine is the GPU side of the activation offload.
func actOffloadBufferLine(s StageMemory) Line {
	return Line{Name: "activations: offload buffer (one layer in transfer)", Group: GroupActivations,
		Bytes:   s.ActivationOffloadBuffer,
		Formula: "saved tensors of one offloaded layer, one micro-batch, on the GPU while copied out or back",
		Source:  srcActOffload}
}

// hostActivationLine is the host side of the activation offload.
func hostActivationLine(p Plan, s StageMemory) Line {
	return Line{Name: "host: offloaded activations", Group: GroupActivations, Bytes: s.HostActivations,
		Formula: fmt.Sprintf("%d offloaded layers x saved bytes per layer x %s in flight", p.OffloadActivationLayers, microBatches(s.InFlight)),
		Source:  srcActOffload}
}

// actOffloadTime is what the activation copies of stage r leave exposed
// per step. Each offloaded layer's saved bytes b (one micro-batch) cross
// the host link of hardware.HostOf once each way: to the host behind the
// next layer's forward, back behind the next layer's backward (the
// prefetch one layer ahead), each hidden up to that compute time (TE's
// double buffer, srcActOffloadOverlap):
//
//	exposed = m x sum over offloaded layers i of
//	          max(0, b_i/B_link - fwd_{i+1}) + max(0, b_i/B_link - bwd_{i+1}),
//
// with fwd and bwd one layer's kernels for one micro-batch (no
// recompute: Megatron-Core rejects it with offload) and B_link the
// per-direction link bandwidth. The link is taken as free of the model
// state offload's traffic, which runs mostly at the step's end. Like
// offloadTime, the result is added once per step to the stage, not to
// the per-micro-batch time the pipeline bubble scales with.
func (e *Evaluator) actOffloadTime(in *stepInput, r int) float64 {
	n := in.p.OffloadActivationLayers
	if n <= 0 {
		return 0
	}
	k := e.m.kinds()
	lo := in.p.stageFirstLayer(k.layers, r)
	link := float64(hardware.HostOf(e.c.GPU).Link)
	var t float64
	for i := lo; i < lo+n; i++ {
		b := in.acts.dense
		if k.isMoELayer(i) {
			b = in.acts.moe
		}
		next := in.dense
		if k.isMoELayer(i + 1) {
			next = in.moe
		}
		copyT := b / link
		t += max(0, copyT-next.fwd.total()) + max(0, copyT-next.bwd.total())
	}
	return in.m * t
}
