package costmodel

import (
	"fmt"
	"math"
	"testing"
)

// gptLayer is Korthikanti et al.'s GPT layer of hidden h and a heads.
func gptLayer(h, a int) *Model {
	return megatronGPT(fmt.Sprintf("gpt-h%d-a%d", h, a), "test", 1, h, a, 51200, 1<<20)
}

// layerBytes is one layer's saved activations for one micro-batch.
func layerBytes(m *Model, p Plan) float64 {
	var sum float64
	for _, t := range LayerActivations(m, p) {
		if !t.Recomputed {
			sum += float64(t.Bytes)
		}
	}
	if p.Recompute == Full {
		sum = newActShape(m, p).layerInput()
	}
	return sum
}

// TestMegatronActivationFormulas reproduces Korthikanti et al. 2022,
// Table 2, exactly, for several shapes and TP degrees.
func TestMegatronActivationFormulas(t *testing.T) {
	shapes := []struct{ h, a, s, b, t int }{
		{8192, 64, 8192, 1, 1}, {6144, 64, 2048, 4, 8}, {12288, 96, 2048, 1, 8}, {2048, 16, 4096, 2, 4},
	}
	for _, sh := range shapes {
		m := gptLayer(sh.h, sh.a)
		s, b, h, a, tp := float64(sh.s), float64(sh.b), float64(sh.h), float64(sh.a), float64(sh.t)
		sbh := s * b * h
		p := Plan{TP: sh.t, PP: 1, CP: 1, DP: 1, Seq: sh.s, MicroBatch: sh.b, Attention: Eager}
		tests := []struct {
			name string
			p    Plan
			want float64
		}{
			{"no parallelism", withTP(p, 1, false, NoRecompute), sbh * (34 + 5*a*s/h)},
			{"tensor parallel", withTP(p, sh.t, false, NoRecompute), sbh * (10 + 24/tp + 5*a*s/(h*tp))},
			{"tensor + sequence parallel", withTP(p, sh.t, true, NoRecompute), sbh / tp * (34 + 5*a*s/h)},
			{"tp + selective recompute", withTP(p, sh.t, false, Selective), sbh * (10 + 24/tp)},
			{"tp + sp + selective recompute", withTP(p, sh.t, true, Selective), sbh * 34 / tp},
			{"full recompute", withTP(p, sh.t, false, Full), 2 * sbh},
		}
		for _, tt := range tests {
			if got := layerBytes(m, tt.p); math.Abs(got-tt.want) > 1e-9*tt.want {
				t.Errorf("%v %s: %.0f bytes per layer, want %.0f", sh, tt.name, got, tt.want)
			}
		}
	}
}

func withTP(p Plan, t int, sp bool, r Recompute) Plan {
	p.TP, p.SP, p.Recompute = t, sp, r
	return p
}

// TestQuadraticTerm: for h = 8192, a = 64, s = 8192, b = 1 without
// FlashAttention the linear term is 2.3 GB and the quadratic term 21 GB
// per layer; 80 such layers hold 1.9 TB; with FlashAttention 182 GB.
func TestQuadraticTerm(t *testing.T) {
	m := gptLayer(8192, 64)
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 8192, MicroBatch: 1, Attention: Eager}
	var linear, quad float64
	for _, ts := range LayerActivations(m, p) {
		if ts.Quadratic {
			quad += float64(ts.Bytes)
		} else {
			linear += float64(ts.Bytes)
		}
	}
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"linear term", linear, 2.3e9, 0.02},
		{"quadratic term", quad, 21e9, 0.025},
		{"80 layers", 80 * (linear + quad), 1.9e12, 0.01},
	}
	p.Attention = Flash
	checks = append(checks, struct {
		name      string
		got, want float64
		tol       float64
	}{"80 layers, FlashAttention", 80 * layerBytes(m, p), 182e9, 0.005})
	for _, c := range checks {
		if !within(c.got, c.want, c.tol) {
			t.Errorf("%s: %.4g bytes, want %.3g", c.name, c.got, c.want)
		}
	}
}

// TestFlashKeepsLogSumExp: FlashAttention removes the three s² tensors
// and adds one fp32 log-sum-exp per query row and head.
func TestFlashKeepsLogSumExp(t *testing.T) {
	m := gptLayer(4096, 32)
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 4096, MicroBatch: 1, Attention: Flash}
	sbh := 4096.0 * 4096
	want := 34*sbh + 4*4096*32
	if got := layerBytes(m, p); got != want {
		t.Errorf("flash layer: %.0f bytes, want 34sbh + 4as = %.0f", got, want)
	}
	for _, ts := range LayerActivations(m, p) {
		if ts.Quadratic {
			t.Errorf("flash layer keeps quadratic tensor %q", ts.Name)
		}
	}
}

// TestLlamaConstant: the same tensor list gives Llama 3 70B's constant:
// norms 4 + QKV input 2 + Q 2 + K and V 2*2*kv/a = 0.5 + attention output 2
// + MLP input 2 + SwiGLU 6f/h = 21, i.e. 33.5 sbh, plus the log-sum-exp.
func TestLlamaConstant(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 8192, MicroBatch: 1}
	s, h, a := 8192.0, 8192.0, 64.0
	want := s*h*33.5 + 4*a*s
	if got := layerBytes(m, p); got != want {
		t.Errorf("llama3-70b layer: %.0f bytes, want %.0f (33.5 sbh + 4as)", got, want)
	}
	// With tp=8 and SP every tensor splits eight ways; the 8 KV heads
	// give one per rank.
	p.TP, p.SP = 8, true
	if got := layerBytes(m, p); math.Abs(got-want/8) > 1e-9*want {
		t.Errorf("llama3-70b tp=8 sp: %.0f bytes, want %.0f", got, want/8)
	}
}

// TestKVHeadsReplicateBeyondTP: with tp above the KV heads, each rank
// keeps one KV head.
func TestKVHeadsReplicateBeyondTP(t *testing.T) {
	m, _ := LookupModel("llama3-70b") // 8 KV heads of 128
	p := Plan{TP: 16, PP: 1, CP: 1, DP: 1, Seq: 1024, MicroBatch: 1}
	for _, ts := range LayerActivations(m, p) {
		if ts.Name == "keys K" {
			if want := 1024.0 * 128 * 2; float64(ts.Bytes) != want {
				t.Errorf("keys at tp=16: %v, want one head %.0f bytes", ts.Bytes, want)
			}
			if ts.Formula != "2·s·b·kv·d/8" {
				t.Errorf("keys formula %q", ts.Formula)
			}
		}
	}
}

// TestContextParallelDividesSequence: cp divides every saved tensor.
func TestContextParallelDividesSequence(t *testing.T) {
	m, _ := LookupModel("llama3-8b")
	p := Plan{TP: 1, PP: 1, CP: 1, DP: 1, Seq: 32768, MicroBatch: 1}
	one := layerBytes(m, p)
	p.CP = 4
	if got := layerBytes(m, p); math.Abs(got-one/4) > 1e-9*one {
		t.Errorf("cp=4: %.0f, want %.0f", got, one/4)
	}
}
