package main

import (
	"flag"
	"io"

	"github.com/gpu-planner/planner/search"
)

// disaggFlags ask for disaggregated serving: a prefill pool and a decode
// pool, each layout searched or pinned.
type disaggFlags struct {
	on                   bool
	prefillTP, prefillPP int
	decodeTP, decodePP   int
}

// disaggPins are the flags that pin one pool's layout.
var disaggPins = []string{"prefill-tp", "prefill-pp", "decode-tp", "decode-pp"}

func (f *disaggFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "disaggregated", false, "serving under load: disaggregated prefill and decode (separate prefill workers and decode workers, the prompt's KV cache sent from one to the other); finds the fewest GPUs of both pools and sets the aggregated answer beside it")
	fs.IntVar(&f.prefillTP, "prefill-tp", 0, "serving under load, --disaggregated: pin the prefill workers' tensor-parallel degree (default: --tp, else search)")
	fs.IntVar(&f.prefillPP, "prefill-pp", 0, "serving under load, --disaggregated: pin the prefill workers' pipeline-parallel degree (default: --pp, else search)")
	fs.IntVar(&f.decodeTP, "decode-tp", 0, "serving under load, --disaggregated: pin the decode workers' tensor-parallel degree (default: --tp, else search)")
	fs.IntVar(&f.decodePP, "decode-pp", 0, "serving under load, --disaggregated: pin the decode workers' pipeline-parallel degree (default: --pp, else search)")
}

// rejectPins fails on a pool pin given without --disaggregated.
func (f *disaggFlags) rejectPins(set map[string]bool) error {
	for _, n := range disaggPins {
		if set[n] {
			return badInputf("--%s has no effect without --disaggregated (aggregated serving has one layout: --tp, --pp)", n)
		}
	}
	return nil
}

// query checks the pins and builds the search query.
func (f *disaggFlags) query(set map[string]bool, q search.LoadQuery) (search.DisaggQuery, error) {
	d := search.DisaggQuery{LoadQuery: q, PrefillTP: f.prefillTP, PrefillPP: f.prefillPP, DecodeTP: f.decodeTP, DecodePP: f.decodePP}
	for _, p := range []struct {
		name string
		v    int
	}{{"prefill-tp", f.prefillTP}, {"prefill-pp", f.prefillPP}, {"decode-tp", f.decodeTP}, {"decode-pp", f.decodePP}} {
		if p.v < 0 || (set[p.name] && p.v == 0) {
			return d, badInputf("--%s %d is not a degree: give at least 1, or leave it out to search", p.name, p.v)
		}
	}
	if set["rounds"] {
		return d, badInputf("--rounds has no effect with --disaggregated (its model is the steady state, with no opening burst)")
	}
	for _, n := range []string{"batch-wait-iters", "batch-wait-token-ratio", "adp-balance-iters", "recv-interval"} {
		if set[n] {
			return d, badInputf("--%s has no effect with --disaggregated (it holds prompts back while decodes run; a prefill worker runs none)", n)
		}
	}
	return d, nil
}

// runServeDisagg answers `planner serve --disaggregated`.
func (f *serveCmdFlags) runServeDisagg(set map[string]bool, q search.LoadQuery, stdout io.Writer) error {
	d, err := f.load.disagg.query(set, q)
	if err != nil {
		return err
	}
	r, err := search.ServeDisaggregated(d)
	if err != nil {
		return badInput(err)
	}
	return f.writeServeAnswer(stdout, r, r.Best() != nil, func(s tableStyle) { writeDisaggResult(stdout, d, r, f.top, s) })
}
