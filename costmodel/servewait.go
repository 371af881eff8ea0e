package costmodel

import "math"

// batchWait is the mean time a prompt is held back before its prefill
// is scheduled: the scheduler's polling interval (recvWait) and
// TensorRT-LLM's two waiting rules (holdWait), with step the decode
// step, rate the prompts per second arriving at one rank (one attention
// data-parallel rank, or the replica), decodes the sequences decoding
// there and dp the attention data-parallel ranks.
func (e Engine) batchWait(step, rate, decodes float64, input, dp int) float64 {
	return e.recvWait(step, decodes) + e.holdWait(step, rate, decodes, input, dp)
}

// recvWait is the wait of a prompt for the scheduler to take it in when
// it polls for new requests only every RecvInterval decode steps
// (SGLang's --scheduler-recv-interval, 1 by default: every step;
// SchedulerRecvSkipper, python/sglang/srt/managers/
// scheduler_recv_skipper.py, counts a decode step 1 and any other step
// 1000 towards the interval, so a prefill step brings in the waiting
// prompts at once). A prompt arriving while only decodes run waits
// (RecvInterval - 1) / 2 steps on average beyond the step under way
// (StepWait), with probability min(decodes, 1).
func (e Engine) recvWait(step, decodes float64) float64 {
	if e.RecvInterval <= 1 || step <= 0 || decodes <= 0 {
		return 0
	}
	return min(decodes, 1) * float64(e.RecvInterval-1) / 2 * step
}

// holdWait is the wait under TensorRT-LLM's batch-waiting and
// balancing rules.
//
// Batch waiting (Engine.BatchWaitIters, BatchWaitTokenRatio: TorchLlmArgs
// batch_wait_timeout_iters and batch_wait_max_tokens_ratio, both 0 by
// default; PyExecutor._waiting_requests, tensorrt_llm/_torch/pyexecutor/
// py_executor.py, without attention DP): while generation requests run,
// the context requests are held until they have been held
// BatchWaitIters iterations or the step's tokens (the prompts' plus one
// per decode) reach BatchWaitTokenRatio x max_num_tokens (ChunkTokens):
// n = ceil((ratio x ChunkTokens - decodes) / input) prompts.
//
// Attention-DP balance (Engine.ADPBalanceIters: attention_dp_config
// enable_balance with timeout_iters; PyExecutor._balance_adp_requests):
// the context requests are held until every rank has one, n = dp
// prompts over the dp ranks, or for ADPBalanceIters iterations.
//
// Each held iteration is a decode step, so the first prompt of a batch
// waits T = iterations x step, or less when the n - 1 other prompts
// arrive first, (n - 1) / (arrival rate) later. The prompts arriving
// during the wait (Poisson, rate x T of them) wait T/2 on average, so
// the mean over the batch is T (1 + x/2) / (1 + x), x = rate x T. No
// rule waits without a running decode: the wait applies with
// probability min(decodes, 1).
func (e Engine) holdWait(step, rate, decodes float64, input, dp int) float64 {
	iters, n, arrivals := e.waitRule(decodes, input, dp)
	if iters <= 0 || step <= 0 || decodes <= 0 || n <= 1 {
		return 0
	}
	t := float64(iters) * step
	if rate > 0 && !math.IsInf(n, 1) {
		t = min(t, (n-1)/(arrivals*rate))
	}
	x := arrivals * rate * t
	return min(decodes, 1) * t * (1 + x/2) / (1 + x)
}

// waitRule is the rule that applies to a plan with dp attention ranks:
// its iterations, the prompts that end the wait (infinite when only the
// iterations do) and how many ranks' arrivals count towards them.
func (e Engine) waitRule(decodes float64, input, dp int) (iters int, n, arrivals float64) {
	if dp > 1 {
		return e.ADPBalanceIters, float64(dp), float64(dp)
	}
	n = math.Inf(1)
	if e.BatchWaitTokenRatio > 0 && e.ChunkTokens > 0 {
		n = math.Ceil((e.BatchWaitTokenRatio*float64(e.ChunkTokens) - decodes) / float64(input))
	}
	return e.BatchWaitIters, n, 1
}
