package servingcal

import (
	"math"
	"testing"
)

// cases maps the embedded data; the test fails if fewer rows than
// expected are modeled (so a broken mapping cannot pass quietly).
func cases(t *testing.T) []Case {
	t.Helper()
	pts, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 821 {
		t.Fatalf("%d points, want the 821 of measured-serving.csv", len(pts))
	}
	cs, skips := Cases(pts)
	if len(cs) < 741 {
		t.Fatalf("%d cases modeled, want at least 741 (skipped %d, first: %+v)", len(cs), len(skips), skips[0])
	}
	return cs
}

// Gates: the accuracy the defaults reach on the 741 priced rows (TTFT
// median |error| 17.9%, TPOT 10.5%, signed medians -1.7% and +0.1%;
// worst engine x generation group sglang x blackwell, TTFT 65.4%), and
// with each engine held out (TTFT 20.8% sglang, 30.4% trtllm, 72.0% vllm;
// TPOT 10.6%, 12.8%, 20.4%), just above. Each weight GEMM call of a
// step pays a fixed launch, the measured BF16 curve's (costmodel
// GEMMLaunch, 2.3-2.7 µs, part of BatchStep.Linear): the refit's
// objective went from 0.2374 to 0.2330, TPOT from 11.4% to 10.5% (472
// rows within 15%, from 453), vllm x blackwell's TPOT from 13.8% to
// 10.6%, the held-out TPOT from 10.9%, 13.6% and 22.3% to 10.6%, 12.8%
// and 20.4% and the held-out vLLM TTFT from 76.5% to 72.0%, TTFT from
// 18.0% to 17.9%; the step overheads, which held the launches before,
// fell (SGLang 5.34 to 4.46 ms, TensorRT-LLM 3.41 to 2.77, vLLM 2.68 to
// 2.18) and Blackwell's HBM share rose from 0.610 to 0.661, toward the
// 0.69-0.75 its bf16 and fp8 decode-sized GEMMs stream
// (TestHBMShareMatchesStreamingGEMMs). Hopper's share is flat in the
// objective (0.2330 to 0.2334 over 0.80-0.84; the refit's 0.829): it is
// held at 0.821, the top of what Hopper's decode-sized GEMMs stream. A tensor-parallel all-reduce
// past the custom kernel's 8 MiB runs NCCL's measured all-reduce
// (costmodel serveAllReduce, scaleUpFits), a long prefill's slower than
// the custom formula had it: TTFT went from 19.1% to 18.0%, vllm x
// blackwell's from 26.4% to 21.4% and the held-out SGLang and
// TensorRT-LLM TTFT from 21.6% and 31.6% to 20.7% and 30.4%, while the
// held-out vLLM TTFT went from 69.3% to 76.5% (its B200 prefills slower
// under the others' larger request overheads); the objective from 0.2412
// to 0.2375, which a refit takes no further (0.2374). Routed experts split over tensor
// parallelism run at their width's share of the unsplit kernels' speed
// (costmodel expertWidthShare, its half-width fitted on the kernel
// timings, not here): at the defaults before it the objective went from
// 0.2490 to 0.2423 and TTFT from 19.7% to 19.1%, and the refit (0.2412)
// lowered the request overheads (TensorRT-LLM 109 to 98.5 ms, vLLM 45.9
// to 39.3, SGLang 303 to 293) and raised Dynamo's front end from 36.7 to
// 44.4 ms: trtllm x hopper's TTFT 17.9% to 16.3%, vllm x hopper's 13.5%
// to 11.2%, the held-out vLLM TTFT 74.4% to 69.3%. An expert-parallel layer's
// decode reads the weights of its busiest rank's experts
// (costmodel busiestRankExperts), not the mean rank's: the TensorRT-LLM
// DeepSeek-V3 tp 8, ep 8 rows' TPOT went from -33% to -24% (B200) and
// -25% to -15% (H200) signed, its Qwen3-235B tp 4, ep 4 rows' from +5% to
// +9%, TPOT overall from 11.4% to 11.2% and the objective from 0.2512 to
// 0.2490, which a refit takes no further (0.2489). The gap-analysis sweeps ran
// behind Dynamo's front end (aicSweep), the InferenceMAX points behind
// the engines' own servers: fitting the front end's per-request
// overhead (36.7 ms) took TTFT from 21.3% to 19.5%, trtllm x hopper from
// 21.5% to 18.5%, vllm x hopper from 15.2% to 13.6%, TensorRT-LLM's
// request overhead from 130 to 111 ms and the sweeps' rounds from 5.97
// to 7.14, the held-out TTFT from 81.0% to 75.3% without vLLM but from
// 29.1% to 32.0% without TensorRT-LLM; TensorRT-LLM then graphing only
// its generation-only steps (its preset's DecodeOnlyGraphs) moved TTFT
// to 19.7% and the objective from 0.2518 to 0.2512. SGLang's sweeps of 0.5.6.post2
// ran --enable-mixed-chunk (aicSweep), and SGLang graphs only its decode
// batches (its preset's DecodeOnlyGraphs), a prefill batch alone a step
// of its own (prefillStep): sglang x hopper's TTFT went from 20.4% to
// 17.2% (its 16 Llama 3.1 8B H200 points from +318% to +17%), TTFT
// overall from 21.6% to 21.3%, the held-out SGLang TTFT from 25.1% to
// 21.5% and the held-out TPOT from 12.9%, 13.7% and 26.1% to 10.0%,
// 12.5% and 23.0%; the refit raised SGLang's request overhead from 274
// to 303 ms and lowered its step overhead from 5.88 to 5.13 ms, which
// took sglang x blackwell's TTFT from 63.5% to 67.2% and, since a
// held-out engine takes the others' mean overheads, the held-out vLLM
// TTFT from 72.8% to 81.0%. Pricing the burst's stall
// after a request's first token in its TPOT (costmodel addBurstStall:
// under SGLang's prefill-first scheduling a lockstep round's early
// prompts wait for its last before decoding) took TPOT from 12.7% to
// 11.4%, sglang x hopper's TPOT from 21.7% (signed -6.8%) to 8.5%
// (+1.6%), and the held-out TPOT from 30.4%, 19.0% and 33.1% to 12.9%,
// 13.7% and 26.1%; the refit moved SGLang's step overhead from 7.88 to
// 5.88 ms and Hopper's HBM share from 0.762 to 0.799. The InferenceMAX launch
// scripts' settings (launchScript: TensorRT-LLM's batch waiting, ranks'
// balancing, max_num_tokens and KV fractions, SGLang's receive interval,
// the fp8 KV caches) took TTFT from 27.7% to 26.9%, TPOT from 12.9% to
// 12.7% and the held-out TTFT from 36-123% to 33-97%; the fp8-block
// weights' measured shares (with the DeepSeek and Qwen3 FP8 checkpoints
// block-quantized, dtypes) took TTFT to 24.7% and held out to 28-90%;
// leaving out the 12 SGLang B200 points that measured a cold start
// (imaxSGLangColdStart; with them, at these defaults, 817 rows: TTFT
// 23.0%, sglang x blackwell 76.8%) and refitting took TTFT to 23.9% and
// held out to 25-75%; leaving out the 62 TensorRT-LLM DeepSeek-R1
// points that ran MTP speculative decoding (imaxDSR1MTP; with them, at
// these defaults, 805 rows: TTFT 22.8%, TPOT 11.7%; their 145
// TensorRT-LLM DeepSeek rows TTFT 37.5%, signed -35.6%) and refitting
// took TTFT to 21.7% and held out to 25-71%; leaving out the 6 GB200
// points, disaggregated Dynamo runs recorded as aggregated
// (imaxGB200Disaggregated; 4 of them were not modeled), moved no
// fitted parameter and took trtllm x blackwell's TTFT from 37.6% to
// 34.8%; vLLM's Llama 3.1 70B on B200 ran CUDA graphs for the decode-only
// steps alone (FULL_DECODE_ONLY, Engine.DecodeOnlyGraphs: a step with a
// prefill chunk pays its kernel launches), which took vllm x blackwell's
// TTFT from 26.5% (signed -16.5%) to 24.7% (-15.2%) and TTFT overall
// from 21.7% to 21.6%; the refit moves no parameter, and the held-out
// vLLM TTFT went from 70.7% to 72.9% (held out, vLLM takes the others'
// larger overheads and its B200 mixed steps now add launches on top). The FLOP shares are the measured kernels'
// (costmodel.MeasuredKernelShares), not fitted, the
// routed experts' included: against the fitted shares TTFT gains 1.3
// points and TPOT 1.4, while TTFT's signed median moves from -1.6% to
// -3.1% (Blackwell's TTFT, too short with its kernels' speed, is not
// compute). The targets (15% and +-8%, 20% held out) are
// printed; TTFT misses them. Part of the miss is the data: the rows
// that repeat one deployment (same engine version, formats, layout,
// load; 4 pairs once the MTP points, 28 of whose twins without MTP
// seemed repeats, are left out) differ by a median 9% in TTFT and 28%
// in TPOT.
const (
	gateTTFT     = 0.185
	gateTPOT     = 0.11
	gateSigned   = 0.035
	gateGroup    = 0.67 // any engine x generation group of >= 10 rows
	gateHeldTTFT = 0.74 // without vLLM 72.0%: the others' request overheads
	gateHeldTPOT = 0.21
)

// TestAccuracy prices every modeled row with the fitted defaults and
// fails when the overall or per-group accuracy regresses.
func TestAccuracy(t *testing.T) {
	res, skips := Evaluate(cases(t), Defaults())
	if len(res) < 741 {
		t.Fatalf("%d rows priced, want at least 741 (%d could not be: %+v)", len(res), len(skips), skips)
	}
	all := Summarize(res, Overall)[0]
	t.Logf("overall %d rows: TTFT median |err| %.1f%% (signed %+.1f%%), TPOT %.1f%% (%+.1f%%); targets 15%% and +-8%%",
		all.Rows, 100*all.TTFTMedian, 100*all.TTFTSigned, 100*all.TPOTMedian, 100*all.TPOTSigned)
	if all.TTFTMedian > gateTTFT || all.TPOTMedian > gateTPOT || math.Abs(all.TTFTSigned) > gateSigned || math.Abs(all.TPOTSigned) > gateSigned {
		t.Errorf("overall accuracy regressed: %+v", all)
	}
	for _, g := range Summarize(res, ByEngineGeneration) {
		t.Logf("%-20s %3d rows: TTFT %.1f%% (%+.1f%%), TPOT %.1f%% (%+.1f%%)", g.Group, g.Rows,
			100*g.TTFTMedian, 100*g.TTFTSigned, 100*g.TPOTMedian, 100*g.TPOTSigned)
		if g.Rows >= 10 && (g.TTFTMedian > gateGroup || g.TPOTMedian > gateGroup) {
			t.Errorf("%s regressed: %+v", g.Group, g)
		}
	}
}

// TestFittedDefaults: the presets carry the fitted optimum. Moving any
// fitted parameter by 10% (in the optimizer's coordinates: the log of
// an overhead, the logit of a share) does not lower the objective by
// more than 0.001.
func TestFittedDefaults(t *testing.T) {
	cs := cases(t)
	base := Defaults()
	engs := engines(cs)
	x := vector(base, engs)
	f0 := objective(cs, base)
	for i := range x {
		for _, d := range []float64{-0.1, 0.1} {
			y := append([]float64(nil), x...)
			y[i] += d * math.Max(math.Abs(y[i]), 0.5)
			if f := objective(cs, fromVector(y, base, engs)); f < f0-0.001 {
				t.Errorf("parameter %d moved by %+.0f%%: objective %.4f below the defaults' %.4f: refit", i, 100*d, f, f0)
			}
		}
	}
}

// TestLeaveOneEngineOut refits without each engine and scores it with
// its step and request overheads the mean of the others' (figures in
// the gates' comment). Gates just above them.
func TestLeaveOneEngineOut(t *testing.T) {
	if testing.Short() {
		t.Skip("three fits")
	}
	held, err := LeaveOneEngineOut(cases(t), Defaults(), 300)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range held {
		s := h.Summary
		t.Logf("without %s: TTFT %.1f%% (%+.1f%%), TPOT %.1f%% (%+.1f%%) on its %d rows", h.Engine,
			100*s.TTFTMedian, 100*s.TTFTSigned, 100*s.TPOTMedian, 100*s.TPOTSigned, s.Rows)
		if s.TPOTMedian > gateHeldTPOT || s.TTFTMedian > gateHeldTTFT {
			t.Errorf("without %s: held-out accuracy regressed: %+v", h.Engine, s)
		}
	}
}
