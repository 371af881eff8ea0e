// Package servingcal checks the serving model (costmodel.EstimateServeLoad)
// against measured serving points: testdata/measured-serving.csv (821
// TTFT and TPOT measurements of TensorRT-LLM, vLLM and SGLang on H100,
// H200, B200, B300 and GB200, from NVIDIA AIConfigurator's silicon
// samples; documented in testdata/README.md). Each row is mapped to a
// model, a cluster, a plan, a load and an engine, or listed with the
// reason it is not modeled, or not comparable (a point whose measurement
// holds a cost the model does not price, such as a cold start inside the
// measured window, MTP speculative decoding or a disaggregated run
// recorded as aggregated: launchScript). Fit finds the few physical parameters (a
// per-step and a per-request overhead per engine, the achieved HBM share
// per GPU generation, and the requests per client of the sweep harness,
// whose script is not published) on every modeled row; the FLOP shares
// are the measured kernels' (costmodel.MeasuredKernelShares);
// LeaveOneEngineOut refits without each engine and scores that engine.
// The tests fail when the accuracy regresses.
package servingcal
