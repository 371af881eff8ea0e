package servingcal

import (
	"math"
	"sort"
	"testing"
)

// TestBatchWaitPairs checks the batch waiting of the InferenceMAX
// TensorRT-LLM Llama 3.1 70B scripts (launchScript) where the data
// isolates it: the same deployment and concurrency measured at 1k/1k
// (batch waiting on at TP < 8) and at 1k/8k (off). The measured TTFT
// difference of each pair, which nothing else of the two runs explains
// (the same prompts, engine and layout; their TPOTs differ by under
// 10%), is about batch_wait_timeout_iters decode steps; the model's
// difference is held within 15% of it in the median and within 40% for
// every pair where neither run waits for a KV slot (the model's falls
// short at 64 and 128 requests in flight, 0.66-0.68x).
func TestBatchWaitPairs(t *testing.T) {
	res, _ := Evaluate(cases(t), Defaults())
	type key struct {
		gpu, layout string
		conc        float64
	}
	pairs := map[key][2]*Result{}
	for i := range res {
		r := &res[i]
		if r.Engine != "trtllm" || r.Model != "llama3.1-70b" || harness(r.ID) != HarnessInferenceMAX || r.Input != 1024 {
			continue
		}
		k := key{r.GPU, r.Layout, r.Concurrency}
		p := pairs[k]
		switch r.Output {
		case 1024:
			p[0] = r
		case 8192:
			p[1] = r
		}
		pairs[k] = p
	}
	var ratios []float64
	for k, p := range pairs {
		if p[0] == nil || p[1] == nil || p[1].MeasuredTTFT > 2 || p[0].MeasuredTTFT > 2 {
			continue // unpaired, or a run that waited for KV slots
		}
		measured := p[0].MeasuredTTFT - p[1].MeasuredTTFT
		predicted := p[0].PredictedTTFT - p[1].PredictedTTFT
		ratio := predicted / measured
		ratios = append(ratios, ratio)
		t.Logf("%s %s c%g: TTFT 1k/1k - 1k/8k measured %.0f ms, predicted %.0f ms (%.2fx)", k.gpu, k.layout, k.conc, 1e3*measured, 1e3*predicted, ratio)
		if math.Abs(ratio-1) > 0.40 {
			t.Errorf("%s %s c%g: the batch wait predicts %.0f ms of the measured %.0f ms", k.gpu, k.layout, k.conc, 1e3*predicted, 1e3*measured)
		}
	}
	if len(ratios) < 12 {
		t.Fatalf("%d pairs, want at least 12", len(ratios))
	}
	sort.Float64s(ratios)
	if m := ratios[len(ratios)/2]; math.Abs(m-1) > 0.15 {
		t.Errorf("median predicted/measured difference %.2f, want within 15%% of 1", m)
	}
}

// TestColdStartStall checks the signature of the cold start that makes
// SGLang's B200 points not comparable (imaxSGLangColdStart): each one's
// TTFT over the model's, times the run's requests per client, is one
// stall of about a minute whatever the concurrency and lengths (43-86
// s), while the B200 points whose first burst fits a chunk are within a
// second of the model on that scale. The runner sent CONC x 50 prompts
// for the points of 2025-11-02 (runners/launch_b200-nvd.sh, 15b7c00b:
// 50 at OSL 1024 for nvidia/DeepSeek-R1-0528-FP4, the model name until
// 17d5e204, 2025-11-03) and CONC x 10 after.
func TestColdStartStall(t *testing.T) {
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	p := Defaults()
	cold, warm := 0, 0
	for _, q := range pts {
		if q.Engine != "sglang" || q.GPU != "b200" || q.Harness != HarnessInferenceMAX {
			continue
		}
		c, err := newCase(q)
		_, isCold := err.(notComparable)
		if err != nil && !isCold {
			t.Fatalf("%s: %v", q.ID, err)
		}
		pr, err := Predict(c, p)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		rounds := 10.0
		if q.Measured < "2025-11-03" {
			rounds = 50
		}
		stall := (q.TTFT - pr.TTFT) * rounds
		t.Logf("%s (cold %v): TTFT %.2f s, model %.2f s: %.0f s x %g requests per client", q.ID, isCold, q.TTFT, pr.TTFT, stall, rounds)
		switch {
		case isCold:
			cold++
			if stall < 40 || stall > 95 {
				t.Errorf("%s: a stall of %.0f s, want about a minute", q.ID, stall)
			}
		default:
			warm++
			if math.Abs(stall) > 5 {
				t.Errorf("%s: %.0f s over the model at a first burst that fits a chunk", q.ID, stall)
			}
		}
	}
	if cold != 12 || warm != 6 {
		t.Errorf("%d cold and %d warm B200 points, want 12 and 6", cold, warm)
	}
}

// TestMTPSignature checks the points imaxDSR1MTP marks not comparable:
// the 62 TensorRT-LLM DeepSeek-R1 points of the MTP sweeps, and against
// each one's twin without MTP (the STP sweep of 2025-12-15 ran the MTP
// configs' image, release:1.1.0rc2.post2, which the MTP points before
// 0aae52d4 ran; the same GPU, layout, lengths and concurrency: 28
// pairs) the signature of speculative decoding: a shorter TPOT in every
// pair (0.47-0.83x), a longer TTFT in the median (1.38x).
func TestMTPSignature(t *testing.T) {
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		gpu     string
		lay     Layout
		in, out int
		conc    float64
	}
	stp, mtp := map[key]Point{}, map[key]Point{}
	n := 0
	for _, p := range pts {
		if p.Engine != "trtllm" || p.Model != "deepseek-v3" || p.Harness != HarnessInferenceMAX {
			continue
		}
		lay, _ := engineLayout(p)
		k := key{p.GPU, lay, p.Input, p.Output, p.Concurrency}
		switch {
		case imaxDSR1MTP(p) != "":
			n++
			if p.Measured < "2026-02-06" {
				mtp[k] = p
			}
		case p.Measured == "2025-12-15":
			stp[k] = p
		}
	}
	if n != 62 {
		t.Errorf("%d MTP points, want 62", n)
	}
	var ttft []float64
	for k, m := range mtp {
		s, ok := stp[k]
		if !ok {
			continue
		}
		ttft = append(ttft, m.TTFT/s.TTFT)
		if r := m.TPOT / s.TPOT; r > 0.85 {
			t.Errorf("%s against %s: TPOT %.2fx, want the shorter TPOT of MTP", m.ID, s.ID, r)
		}
	}
	if len(ttft) != 28 {
		t.Fatalf("%d pairs, want 28", len(ttft))
	}
	sort.Float64s(ttft)
	if m := ttft[len(ttft)/2]; m < 1.2 {
		t.Errorf("median TTFT %.2fx its twin without MTP, want the longer TTFT of MTP", m)
	}
}
