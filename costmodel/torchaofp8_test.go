package costmodel

import "testing"

// TestCompiledAmaxCasts checks that Assumptions.CompiledAmax drops one
// 16-bit read from each tensorwise cast (FP8CS) and leaves the other
// recipes as they are.
func TestCompiledAmaxCasts(t *testing.T) {
	for _, tc := range []struct {
		p    Precision
		want float64
	}{{FP8CS, 1}, {FP8Rowwise, 1}, {MXFP8, 1}, {NVFP4, 2}} {
		e := &Evaluator{a: Assumptions{CompiledAmax: true}}
		if got := e.rates(Plan{Precision: tc.p}).castReads; got != tc.want {
			t.Errorf("%v: cast reads %g under CompiledAmax; want %g", tc.p, got, tc.want)
		}
	}
	e := &Evaluator{}
	if got := e.rates(Plan{Precision: FP8CS}).castReads; got != 2 {
		t.Errorf("fp8-cs without CompiledAmax: cast reads %g; want 2", got)
	}
}

// TestFP8TPAllGatherShare checks that the tensor-parallel all-gathers of
// a tensorwise FP8 plan carry one byte an element under
// Assumptions.FP8TPAllGather, and two otherwise.
func TestFP8TPAllGatherShare(t *testing.T) {
	on := &Evaluator{a: Assumptions{FP8TPAllGather: true}}
	for _, tc := range []struct {
		e    *Evaluator
		p    Precision
		want float64
	}{{on, FP8CS, 0.5}, {on, BF16, 1}, {on, FP8Rowwise, 1}, {&Evaluator{}, FP8CS, 1}} {
		if got := tc.e.tpGatherShare(Plan{Precision: tc.p}); got != tc.want {
			t.Errorf("%v (FP8TPAllGather %v): share %g; want %g", tc.p, tc.e.a.FP8TPAllGather, got, tc.want)
		}
	}
}
