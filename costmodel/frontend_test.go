package costmodel

import (
	"strings"
	"testing"
)

// TestFrontendDynamo: behind Dynamo's front end a request's TTFT grows
// by the front end's overhead and nothing else moves; "native" is the
// engine's own server, and an unknown front end is an error naming the
// valid ones.
func TestFrontendDynamo(t *testing.T) {
	native, dynamo := launchPair(t, func(e *Engine) {
		var err error
		if *e, err = e.WithFrontend("Dynamo"); err != nil {
			t.Fatal(err)
		}
	})
	want := FrontendOverheads[FrontendDynamo]
	if want <= 0 {
		t.Fatalf("Dynamo's front-end overhead %v, want a positive fitted value", want)
	}
	if d := dynamo.TTFT - native.TTFT; !within(float64(d), float64(want), 1e-9) {
		t.Errorf("TTFT behind Dynamo %v, native %v: %v more, want %v", dynamo.TTFT, native.TTFT, d, want)
	}
	if dynamo.RequestOverhead != Engines["vllm"].RequestOverhead+want || dynamo.TPOT != native.TPOT {
		t.Errorf("request overhead %v (want %v + %v), TPOT %v (want %v)", dynamo.RequestOverhead, Engines["vllm"].RequestOverhead, want, dynamo.TPOT, native.TPOT)
	}
	back, err := Engines["vllm"].WithFrontend("dynamo")
	if err == nil {
		back, err = back.WithFrontend("native")
	}
	if err != nil || back != Engines["vllm"] {
		t.Errorf("dynamo then native: %+v (%v), want the preset", back, err)
	}
	if _, err := Engines["vllm"].WithFrontend("nginx"); err == nil || !strings.Contains(err.Error(), `"nginx"`) || !strings.Contains(err.Error(), "valid: dynamo, native") {
		t.Errorf("unknown front end: %v", err)
	}
	e := Engines["vllm"]
	e.FrontendOverhead = -1e-3
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "front-end overhead") {
		t.Errorf("negative front-end overhead: %v", err)
	}
}
