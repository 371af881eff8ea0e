package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// loadFlags describe serving under load: the request shape, the load,
// the engine, pinned layouts and latency targets.
type loadFlags struct {
	input, output     int
	concurrency, rate float64
	engine            string
	chunk             int
	stepMS, requestMS float64
	frontend          string
	rounds            float64
	memoryFraction    float64
	waitIters         int
	waitRatio         float64
	balanceIters      int
	recvInterval      int
	decodeOnlyGraphs  bool
	mixedPrefill      bool
	tp, pp            int
	dp, ep            int
	ttft, tpot        time.Duration
	disagg            disaggFlags
}

// loadFlagNames are the flags that switch `planner serve` to the load
// model; --context and --users then act as aliases.
var loadFlagNames = []string{"input-tokens", "output-tokens", "concurrency", "rate", "engine", "chunked-prefill",
	"step-overhead-ms", "request-overhead-ms", "frontend", "rounds", "memory-fraction",
	"batch-wait-iters", "batch-wait-token-ratio", "adp-balance-iters", "recv-interval", "decode-only-graphs", "mixed-prefill", "tp", "pp", "dp-attention", "ep", "ttft", "tpot",
	"disaggregated", "prefill-tp", "prefill-pp", "decode-tp", "decode-pp"}

func (f *loadFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.input, "input-tokens", 1024, "serving under load: prompt tokens per request")
	fs.IntVar(&f.output, "output-tokens", 1024, "serving under load: generated tokens per request (the KV cache grows from input to input+output)")
	fs.Float64Var(&f.concurrency, "concurrency", 0, "serving under load: requests in flight (--users is an alias)")
	fs.Float64Var(&f.rate, "rate", 0, "serving under load: requests per second (concurrency by Little's law)")
	fs.StringVar(&f.engine, "engine", "vllm", "serving under load: engine preset: vllm, sglang, trtllm")
	fs.IntVar(&f.chunk, "chunked-prefill", -1, "serving under load: prefill tokens per step (0: whole prompts; default: the engine's)")
	fs.Float64Var(&f.stepMS, "step-overhead-ms", -1, "serving under load: fixed time per engine step, ms (default: the engine's, fitted)")
	fs.Float64Var(&f.requestMS, "request-overhead-ms", -1, "serving under load: time per request outside the engine's steps before its first token (its server's HTTP handling, tokenization, streaming; --frontend adds its own), ms (default: the engine's, fitted)")
	fs.StringVar(&f.frontend, "frontend", costmodel.FrontendNative, "serving under load: the HTTP front end before the engine: native (the engine's own server) or dynamo (NVIDIA Dynamo's front end and workers, adding its fitted per-request overhead)")
	fs.Float64Var(&f.rounds, "rounds", 0, "serving under load, with --concurrency: requests each client sends in a finite benchmark, the first of each at once (0: a long run; the calibration benchmarks send 10)")
	fs.Float64Var(&f.memoryFraction, "memory-fraction", 0, "serving under load: share of HBM the engine takes (default: the engine's, vLLM 0.9)")
	fs.IntVar(&f.waitIters, "batch-wait-iters", -1, "serving under load: hold new prompts back up to this many steps while decodes run, to batch their prefills (TensorRT-LLM batch_wait_timeout_iters; 0: off, the default)")
	fs.Float64Var(&f.waitRatio, "batch-wait-token-ratio", -1, "serving under load, with --batch-wait-iters: stop holding once the step's tokens reach this share of the prefill budget (TensorRT-LLM batch_wait_max_tokens_ratio; 0: off)")
	fs.IntVar(&f.balanceIters, "adp-balance-iters", -1, "serving under load, with --dp-attention: hold new prompts until every attention-DP rank has one, up to this many steps (TensorRT-LLM attention_dp_config enable_balance, timeout_iters; 0: off, the default)")
	fs.IntVar(&f.recvInterval, "recv-interval", -1, "serving under load: the scheduler takes in new requests every this many decode steps (SGLang --scheduler-recv-interval; 1: every step, the default)")
	fs.BoolVar(&f.decodeOnlyGraphs, "decode-only-graphs", false, "serving under load: CUDA graphs for the decode-only steps alone, a step with a prefill chunk running eagerly (vLLM cudagraph_mode FULL_DECODE_ONLY; default: the engine's, SGLang's and TensorRT-LLM's decode batches only, vLLM's every step; =false graphs every step)")
	fs.BoolVar(&f.mixedPrefill, "mixed-prefill", false, "serving under load: prefill chunks run in the same steps as the decodes (SGLang --enable-mixed-chunk; default: the engine's, on for vLLM and TensorRT-LLM, off for SGLang; =false runs prefill batches alone)")
	fs.IntVar(&f.tp, "tp", 0, "serving under load: pin the tensor-parallel degree (up to the NVLink domain)")
	fs.IntVar(&f.pp, "pp", 0, "serving under load: pin the pipeline-parallel degree")
	fs.IntVar(&f.dp, "dp-attention", 0, "serving under load, MoE models: attention data-parallel ranks per replica (attention replicated, each rank its own requests and KV cache; a stage spans tp x dp GPUs)")
	fs.IntVar(&f.ep, "ep", 0, "serving under load, MoE models: expert-parallel ranks of the MoE layers (dividing tp x dp and the experts)")
	fs.DurationVar(&f.ttft, "ttft", 0, "serving under load: time-to-first-token target, e.g. 500ms")
	fs.DurationVar(&f.tpot, "tpot", 0, "serving under load: time-per-output-token target, e.g. 30ms")
	f.disagg.register(fs)
}

// loadMode reports whether any load flag was given.
func loadMode(set map[string]bool) bool {
	for _, n := range loadFlagNames {
		if set[n] {
			return true
		}
	}
	return false
}

// serveLoad resolves the aliases: --users is the concurrency when
// neither --concurrency nor --rate is given; --context is input +
// output when --input-tokens is not given.
func (f *serveCmdFlags) serveLoad(set map[string]bool) (costmodel.ServeLoad, error) {
	l := costmodel.ServeLoad{InputTokens: f.load.input, OutputTokens: f.load.output, Concurrency: f.load.concurrency, Rate: f.load.rate,
		Rounds: f.load.rounds}
	if set["context"] && !set["input-tokens"] {
		if f.serve.context <= l.OutputTokens {
			return l, badInputf("--context %d must exceed --output-tokens %d (it is input + output)", f.serve.context, l.OutputTokens)
		}
		l.InputTokens = f.serve.context - l.OutputTokens
	}
	if !set["concurrency"] && !set["rate"] {
		l.Concurrency = float64(f.serve.users)
	}
	switch {
	case l.Concurrency < 0:
		return l, badInputf("--concurrency %g is not a load: give the requests in flight, more than 0", l.Concurrency)
	case l.Rate < 0:
		return l, badInputf("--rate %g is not a load: give the requests per second, more than 0", l.Rate)
	case l.Concurrency > 0 && l.Rate > 0:
		return l, badInputf("--concurrency %g and --rate %g: give one load, not both", l.Concurrency, l.Rate)
	}
	return l, badInput(l.Validate())
}

// resolveEngine is the preset with the overrides given.
func (f *loadFlags) resolveEngine(set map[string]bool, blockTokens int) (costmodel.Engine, error) {
	e, err := costmodel.LookupEngine(f.engine)
	if err != nil {
		return e, badInput(err)
	}
	if f.chunk >= 0 {
		e.ChunkTokens = f.chunk
	}
	if f.stepMS >= 0 {
		e.StepOverhead = hardware.Seconds(f.stepMS / 1e3)
	}
	if f.requestMS >= 0 {
		e.RequestOverhead = hardware.Seconds(f.requestMS / 1e3)
	}
	if e, err = e.WithFrontend(f.frontend); err != nil {
		return e, badInput(err)
	}
	if set["memory-fraction"] {
		e.MemoryFraction = f.memoryFraction
	}
	if set["batch-wait-iters"] {
		e.BatchWaitIters = f.waitIters
	}
	if set["batch-wait-token-ratio"] {
		e.BatchWaitTokenRatio = f.waitRatio
	}
	if set["adp-balance-iters"] {
		e.ADPBalanceIters = f.balanceIters
	}
	if set["recv-interval"] {
		e.RecvInterval = f.recvInterval
	}
	if set["decode-only-graphs"] {
		e.DecodeOnlyGraphs = f.decodeOnlyGraphs
	}
	if set["mixed-prefill"] {
		e.MixedPrefill = f.mixedPrefill
	}
	if set["block-size"] {
		e.BlockTokens = blockTokens
	}
	return e, badInput(e.Validate())
}

// loadQuery turns the flags into a load query.
func (f *serveCmdFlags) loadQuery(set map[string]bool) (search.LoadQuery, error) {
	var q search.LoadQuery
	base, err := f.query()
	if err != nil {
		return q, err
	}
	l, err := f.serveLoad(set)
	if err != nil {
		return q, err
	}
	e, err := f.load.resolveEngine(set, f.serve.blockTokens)
	if err != nil {
		return q, err
	}
	if f.load.ttft < 0 || f.load.tpot < 0 || f.load.tp < 0 || f.load.pp < 0 {
		return q, badInputf("--ttft %v, --tpot %v, --tp %d, --pp %d must not be negative", f.load.ttft, f.load.tpot, f.load.tp, f.load.pp)
	}
	if f.load.dp < 0 || f.load.ep < 0 {
		return q, badInputf("--dp-attention %d and --ep %d must not be negative (0 or 1: none)", f.load.dp, f.load.ep)
	}
	if (f.load.dp > 1 || f.load.ep > 1) && base.Model.MoE == nil {
		return q, badInputf("--dp-attention %d and --ep %d apply to mixture-of-experts models; %s is dense (more replicas serve it data-parallel)", f.load.dp, f.load.ep, base.Model.Name)
	}
	a := base.Assumptions
	if !set["decode-hbm-efficiency"] && !set["prefill-flop-efficiency"] {
		a = costmodel.ServeAssumptions(a, base.GPU)
	}
	return search.LoadQuery{Model: base.Model, GPU: base.GPU, GPUsPerNode: base.GPUsPerNode, TP: f.load.tp, PP: f.load.pp,
		DP: f.load.dp, EP: f.load.ep, Weights: base.Load.Weights, KV: base.Load.KV, Load: l, Engine: e,
		TTFT: hardware.Seconds(f.load.ttft.Seconds()), TPOT: hardware.Seconds(f.load.tpot.Seconds()), Assumptions: a}, nil
}

// runServeLoad answers `planner serve` under load. Like a search, it
// exits 1 (errNothingFits) when no layout meets the targets, after
// printing why each one misses.
func (f *serveCmdFlags) runServeLoad(set map[string]bool, stdout, stderr io.Writer) error {
	q, err := f.loadQuery(set)
	if err != nil {
		return err
	}
	warnPastMaxSeq(stderr, q)
	if f.load.disagg.on {
		return f.runServeDisagg(set, q, stdout)
	}
	if err := f.load.disagg.rejectPins(set); err != nil {
		return err
	}
	r, err := search.ServeLoad(q)
	if err != nil {
		return badInput(err)
	}
	return f.writeServeAnswer(stdout, r, r.Best() != nil, func(s tableStyle) { writeLoadResult(stdout, q, r, f.top, s) })
}

// warnPastMaxSeq warns when a request's prompt and output run past the
// model's max_position_embeddings: the answer is still priced, as for
// --context, but the model was not trained that long.
func warnPastMaxSeq(stderr io.Writer, q search.LoadQuery) {
	if n := q.Load.InputTokens + q.Load.OutputTokens; n > q.Model.MaxSeq {
		fmt.Fprintf(stderr, "planner serve: warning: --input-tokens %d + --output-tokens %d = %d exceed %s's maximum of %d tokens (max_position_embeddings); the model was not trained that long\n",
			q.Load.InputTokens, q.Load.OutputTokens, n, q.Model.Name, q.Model.MaxSeq)
	}
}

// writeServeAnswer prints answer r as JSON, Markdown or text (text
// renders the latter two in a style); an answer that met no target
// (met false) then ends in errNothingFits, so the CLI exits 1.
func (f *serveCmdFlags) writeServeAnswer(stdout io.Writer, r any, met bool, text func(tableStyle)) error {
	var err error
	switch {
	case f.json:
		err = writeJSON(stdout, r)
	case f.markdown:
		text(markdownStyle)
	default:
		text(f.textStyle())
	}
	if err == nil && !met {
		err = errNothingFits
	}
	return err
}
