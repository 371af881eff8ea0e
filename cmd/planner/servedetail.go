package main

import (
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/search"
)

// writeMemory prints one layout's per-GPU inventory and capacity.
func writeMemory(w io.Writer, r *costmodel.ServeReport, s tableStyle) {
	inv := r.Memory
	if s != markdownStyle {
		writeInventory(w, inv, r.Assumptions.HBMFraction)
	} else {
		t := table{header: []string{"line", "bytes", "formula"}, right: []bool{false, true, false}}
		for _, l := range inv.Lines {
			t.add(l.Name, l.Bytes.String(), l.Formula)
		}
		t.add("**total**", inv.Total.String(), "")
		t.add(fmt.Sprintf("budget (%g%% of %v)", 100*r.Assumptions.HBMFraction, inv.Capacity), inv.Budget.String(), "")
		t.add("headroom", inv.Headroom.String(), fitsWord(inv))
		t.write(w, s)
		fmt.Fprintln(w)
	}
	each := fmt.Sprintf("%s fit up to %s tokens each", plural(r.Plan.Users, "user", "users"), longest(r.LongestContext))
	if r.Plan.Users == 1 {
		each = fmt.Sprintf("one user fits up to %s tokens", longest(r.LongestContext))
	}
	line(w, s, "capacity: %s tokens of KV cache = %s at %d tokens; %s",
		costmodel.FormatCount(r.KVCapacityTokens), plural(r.MaxUsers, "user", "users"), r.Plan.Context, each)
	line(w, s, "weights take %.1f%% of each GPU's HBM", 100*r.WeightsFraction)
}

func fitsWord(inv costmodel.Inventory) string {
	if inv.Fits {
		return "fits"
	}
	return fmt.Sprintf("does NOT fit: over budget by %v", -inv.Headroom)
}

// writeSpeed prints the decode and prefill times of a layout, term by
// term, and where decode turns compute-bound.
func writeSpeed(w io.Writer, l *search.ServeLayout, s tableStyle) {
	v, p, g := l.Speed, l.Plan, l.Cluster.GPU
	a := l.Memory.Assumptions
	d := v.Decode
	line(w, s, "decode, one step of %s at %d tokens: %v per output token = %.1f tokens/s per user, %.0f tokens/s in all",
		plural(v.Batch, "sequence", "sequences"), p.Context, v.TimePerOutputToken, v.TokensPerSecondPerUser, v.TokensPerSecond)
	line(w, s, "  HBM %v (%v per GPU at %.0f%% of %v), compute %v, tensor-parallel all-reduces %v, pipeline hand-offs %v; %s",
		d.Memory, d.BytesPerGPU, 100*a.ServeHBMEfficiency, g.MemBandwidth, d.Compute, d.TensorParallel, d.Pipeline, bound(d))
	f := v.Prefill
	line(w, s, "prefill of one %d-token prompt: time to first token %v", p.Context, v.TimeToFirstToken)
	line(w, s, "  compute %v (%v per GPU at %.0f%% of %v), HBM %v, tensor-parallel all-reduces %v, pipeline hand-offs %v; %s",
		f.Compute, f.FLOPsPerGPU, 100*a.ServeFLOPEfficiency, v.Peak, f.Memory, f.TensorParallel, f.Pipeline, bound(f))
	crossover := fmt.Sprintf("decode stays memory-bound at any batch at %d tokens (the KV cache read grows as fast as the compute)", p.Context)
	if v.ComputeBoundBatch > 0 {
		crossover = fmt.Sprintf("decode turns compute-bound at a batch of %.0f sequences per replica at %d tokens", v.ComputeBoundBatch, p.Context)
	}
	line(w, s, "%s; at %.0f with short contexts (ops:byte %.0f FLOP/B = %v / %v)",
		crossover, v.ComputeBoundBatchShort, v.OpsPerByte, v.Peak, g.MemBandwidth)
	line(w, s, "%s", isolatedStepNote)
}

// isolatedStepNote says what the isolated step leaves out and where the
// calibrated answer is.
const isolatedStepNote = "these are the kernels of one isolated step, no engine: --input-tokens, --output-tokens and " +
	"--concurrency (or --rate) price an engine serving that load, with its step and request overheads, queueing and " +
	"batching, fitted on measured-serving.csv (planner validate --serving)"

func bound(t costmodel.ServeStep) string {
	if t.MemoryBound {
		return "memory-bound"
	}
	return "compute-bound"
}

// alternativesTable sets the three answers side by side.
func alternativesTable(alts []search.Alternative) table {
	t := table{
		header:   []string{"answer", "change", "GPUs", "layout", "headroom/GPU", "TTFT", "TPOT", "tok/s/user", "tok/s"},
		right:    []bool{false, false, false, false, true, true, true, true, true},
		optional: []bool{2: true, 4: true, 7: true}, // GPUs (the layout's), headroom, 1/TPOT
	}
	for _, a := range alts {
		if a.Best == nil {
			t.add(a.Kind, a.Change, "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		b := a.Best
		t.add(a.Kind, a.Change, fmt.Sprintf("%d x %s", a.GPUs, a.GPU), b.Layout, b.Memory.Memory.Headroom.String(),
			b.Speed.TimeToFirstToken.String(), b.Speed.TimePerOutputToken.String(),
			fmt.Sprintf("%.1f", b.Speed.TokensPerSecondPerUser), fmt.Sprintf("%.0f", b.Speed.TokensPerSecond))
	}
	return t
}

// writeServeAssumptions prints the memory and speed assumptions of a
// serving answer.
func writeServeAssumptions(w io.Writer, a costmodel.Assumptions, s tableStyle) {
	line(w, s, "memory: HBM budget %g%%, CUDA context %v, %s, serving workspace %v",
		100*a.HBMFraction, a.CUDAContext, a.NCCLSummary(), a.ServeWorkspace)
	line(w, s, "speed: %.0f%% of HBM bandwidth in decode, %.0f%% of the tensor-core peak in prefill, %.0f%% of link bandwidth; all-reduce latency %v, network latency %v",
		100*a.ServeHBMEfficiency, 100*a.ServeFLOPEfficiency, 100*a.ServeLinkEfficiency, a.ServeAllReduceLatency, a.ServeNetworkLatency)
}
