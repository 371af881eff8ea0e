package costmodel

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// The HTTP front ends a request can pass through on its way to the
// engine.
const (
	// FrontendNative is the engine's own OpenAI-compatible server (vllm
	// serve, python -m sglang.launch_server, trtllm-serve): its cost is
	// the engine's RequestOverhead.
	FrontendNative = "native"
	// FrontendDynamo is NVIDIA Dynamo's: python3 -m dynamo.frontend
	// takes the HTTP request, tokenizes it and routes it over Dynamo's
	// request plane to a python3 -m dynamo.<engine> worker, which hands
	// it to the engine (ai-dynamo/aiconfigurator, generator
	// backend_templates/<engine>/run.sh.j2, the deployment its
	// gap-analysis sweeps measure).
	FrontendDynamo = "dynamo"
)

// FrontendOverheads are the time each front end adds to a request
// before its first token, beyond the engine's RequestOverhead. Dynamo's
// is fitted on the 336 gap-analysis sweep points of measured-serving.csv,
// deployed behind it, against the InferenceMAX points behind the
// engines' own servers (costmodel/servingcal; TestFittedDefaults checks
// it).
var FrontendOverheads = map[string]hardware.Seconds{FrontendNative: 0, FrontendDynamo: 44.3e-3}

// FrontendNames are the front ends, sorted.
var FrontendNames = []string{FrontendDynamo, FrontendNative}

// WithFrontend returns e behind front end name, with its overhead.
func (e Engine) WithFrontend(name string) (Engine, error) {
	o, ok := FrontendOverheads[strings.ToLower(name)]
	if !ok {
		return e, fmt.Errorf("costmodel: unknown front end %q (valid: %s)", name, strings.Join(FrontendNames, ", "))
	}
	e.Frontend, e.FrontendOverhead = strings.ToLower(name), o
	if e.Frontend == FrontendNative {
		e.Frontend = ""
	}
	return e, nil
}

// PerRequestOverhead is the time a request spends outside the engine's
// steps before its first token: the engine's RequestOverhead and the
// front end's FrontendOverhead.
func (e Engine) PerRequestOverhead() hardware.Seconds {
	return e.RequestOverhead + e.FrontendOverhead
}
