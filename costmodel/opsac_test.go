package costmodel

import (
	"math"
	"strings"
	"testing"
)

// TestOpSACLlamaLayer: torchtitan's op-level SAC on a Llama 3 8B block
// (h 4096, 32 heads of 128, 8 KV heads, f 14336) keeps, per token, the
// block input (h), wq's output (4096), wv's (1024), w1's (14336), w2's
// (h) and the fused attention's output (4096) in bf16 and its fp32
// log-sum-exp (32 heads x 4 B): the mm outputs wk, wo, w3 (the 2nd, 4th
// and 6th of the block) are recomputed (parallelize_llama.py,
// _custom_policy). With tp 8 and sp the column-parallel outputs split 8
// ways (wv's one KV head per rank), the row-parallel w2 output is a
// whole partial sum, and the two reduce-scatter outputs (h/8) join.
func TestOpSACLlamaLayer(t *testing.T) {
	m, err := LookupModel("llama3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 8192, MicroBatch: 2, Recompute: OpSAC}
	tokens := 2.0 * 8192
	tests := []struct {
		name    string
		tp      int
		perTok  float64
		tensors int
	}{
		{"tp1", 1, 2*(4096+4096+1024+4096+14336+4096) + 32*4, 7},
		{"tp8 sp", 8, 2*(4096.0/8+4096.0/8+1024.0/8+4096.0/8+14336.0/8+4096) + 32*4/8 + 2*2*4096.0/8, 9},
	}
	for _, tt := range tests {
		q := withTP(p, tt.tp, tt.tp > 1, OpSAC)
		ts := LayerActivations(m, q)
		var sum float64
		for _, x := range ts {
			if x.Recomputed {
				t.Errorf("%s: %s listed as recomputed", tt.name, x.Name)
			}
			sum += float64(x.Bytes)
		}
		if want := tt.perTok * tokens; math.Abs(sum/want-1) > 1e-9 {
			t.Errorf("%s: %.0f bytes per layer, want %.0f", tt.name, sum, want)
		}
		if len(ts) != tt.tensors {
			t.Errorf("%s: %d tensors, want %d: %v", tt.name, len(ts), tt.tensors, ts)
		}
		e, q := evalPlan(t, "llama3.1-8b", "h100", 0, DefaultAssumptions(), withTP(basePlan(tt.tp, 1, 1), tt.tp, tt.tp > 1, OpSAC))
		q.MicroBatch = 2
		if got := e.layerActs(q).dense; math.Abs(got/(tt.perTok*tokens)-1) > 1e-9 {
			t.Errorf("%s: evaluator saves %.0f bytes per layer, want %.0f", tt.name, got, tt.perTok*tokens)
		}
	}
}

// TestOpSACBetweenPolicies: op-level SAC saves more than full recompute
// and less than no recompute, and recomputes more than the attention
// core (selective) and less than the whole forward (full): its
// recompute is the forward without the saved matmuls (63% of the
// projection FLOPs for Llama 3 8B) and the fused attention, so its
// hardware FLOPs sit between selective's and full's too.
func TestOpSACBetweenPolicies(t *testing.T) {
	e, p := evalPlan(t, "llama3.1-8b", "h100", 0, DefaultAssumptions(), basePlan(1, 1, 8))
	at := func(r Recompute) (acts, rec, hfu float64) {
		q := p
		q.Recompute = r
		s := e.Stage(q, 0)
		perf := e.Performance(q)
		return float64(s.LayerActivations), float64(perf.Breakdown.Recompute), float64(perf.HardwareFLOPsPerToken)
	}
	noneA, _, noneF := at(NoRecompute)
	_, selR, selF := at(Selective)
	fullA, fullR, fullF := at(Full)
	sacA, sacR, sacF := at(OpSAC)
	if !(fullA < sacA && sacA < noneA) {
		t.Errorf("layer activations: full %.3g, opsac %.3g, none %.3g; want increasing", fullA, sacA, noneA)
	}
	if !(selR < sacR && sacR < fullR) {
		t.Errorf("recompute time: selective %.3g, opsac %.3g, full %.3g; want increasing", selR, sacR, fullR)
	}
	if !(noneF < selF && selF < sacF && sacF < fullF) {
		t.Errorf("hardware FLOPs per token: none %.4g, selective %.4g, opsac %.4g, full %.4g; want increasing", noneF, selF, sacF, fullF)
	}
	h, kv, f := 4096.0, 1024.0, 14336.0
	savedShare := (h*h + h*kv + 2*h*f) / (2*h*h + 2*h*kv + 3*h*f)
	if got := e.sacFLOPs[0] / (2 * (2*h*h + 2*h*kv + 3*h*f)); math.Abs(got-savedShare) > 1e-12 || math.Abs(got-0.63) > 0.01 {
		t.Errorf("saved share of the projection FLOPs %.4f, want %.4f (about 0.63)", got, savedShare)
	}
}

// TestOpSACInventoryLine: the layers' line names what OpSAC saves, and
// not the matmul outputs it recomputes.
func TestOpSACInventoryLine(t *testing.T) {
	p := basePlan(1, 1, 8)
	p.Recompute, p.ZeRO = OpSAC, 3
	e, p := evalPlan(t, "llama3.1-8b", "h100", 0, DefaultAssumptions(), p)
	r, err := e.Estimate(p)
	if err != nil {
		t.Fatal(err)
	}
	l := r.Memory.Lines[0]
	for _, x := range r.Memory.Lines {
		if x.Group == GroupActivations {
			l = x
			break
		}
	}
	for _, want := range []string{"wq output", "wv output", "w1 output", "w2 output", "fused attention output"} {
		if !strings.Contains(l.Formula, want) {
			t.Errorf("%s: formula %q does not name %q", l.Name, l.Formula, want)
		}
	}
	for _, not := range []string{"wk output", "wo output", "w3 output", "reduce-scatter"} {
		if strings.Contains(l.Formula, not) {
			t.Errorf("%s: formula %q names %q, which is recomputed or absent", l.Name, l.Formula, not)
		}
	}
}
