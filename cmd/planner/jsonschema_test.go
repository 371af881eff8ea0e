package main

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonOutputs are command lines covering every JSON output of the CLI.
var jsonOutputs = []string{
	"estimate --model llama3-70b --gpus 64 --tp 8 --pp 2 --zero 1 --json",
	"estimate --model llama3-8b --pp 10 --gpus 10 --gpus-per-node 1 --json",
	"estimate --model llama3-8b --gpus 8 --zero 1 --offload-activations 8 --json",
	"estimate --mode serve --model llama3.1-8b --gpus 1 --json",
	"search --model llama3-8b --gpus 8 --top 2 --json",
	"search --model llama3-70b --gpus 8 --seq 32768 --gbs 64 --json",
	"search --model llama3-8b --max-gpus 32 --top 2 --json",
	"serve --model llama3-70b --context 8192 --users 32 --json",
	"serve --model llama3.1-405b --gpus 8 --json",
	"serve --model llama3.1-70b --gpu h100 --rate 10 --ttft 2s --tpot 40ms --disaggregated --json",
	"validate --json",
	"models --json",
	"gpus --json",
}

// TestJSONKeysAreSnakeCase walks every JSON output and fails on a key
// that is not snake_case (such as a Go field name, "TP" or
// "FirstStageLayers").
func TestJSONKeysAreSnakeCase(t *testing.T) {
	for _, line := range jsonOutputs {
		code, out, errs := runLine(t, line)
		if code > exitFail {
			t.Errorf("planner %s: exit %d: %s", line, code, errs)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("planner %s: %v", line, err)
			continue
		}
		bad := map[string]bool{}
		walkKeys(v, "", bad)
		if len(bad) > 0 {
			keys := make([]string, 0, len(bad))
			for k := range bad {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			t.Errorf("planner %s: keys not in snake_case: %s", line, strings.Join(keys, ", "))
		}
	}
}

func walkKeys(v any, path string, bad map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeCase.MatchString(k) {
				bad[path+"."+k] = true
			}
			walkKeys(e, path+"."+k, bad)
		}
	case []any:
		for _, e := range x {
			walkKeys(e, path+"[]", bad)
		}
	}
}
