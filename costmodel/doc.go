// Package costmodel estimates what training or serving a transformer costs
// on a GPU cluster: an itemized per-GPU memory inventory in which every line
// carries its formula and source.
//
// Three separate inputs produce a report: a Model (from the catalog or a
// Hugging Face config.json), a hardware.Cluster, and a Plan (the parallel
// layout and execution choices), plus Assumptions for everything that is
// neither (efficiencies, overheads, the HBM budget). Estimate returns a
// training Report; EstimateServe a serving ServeReport. For many plans of
// one model, NewEvaluator precomputes what plans share and evaluates a plan
// without allocating.
//
// The activation accounting follows Korthikanti et al. 2022 ("Reducing
// Activation Recomputation in Large Transformer Models") tensor by tensor,
// so that GPT-style layers reproduce their s*b*h*(34 + 5*a*s/h) bytes
// exactly and other architectures get their own constant from the same
// list. Model states follow ZeRO (Rajbhandari et al. 2020).
package costmodel
