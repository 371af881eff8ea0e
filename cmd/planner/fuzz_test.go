package main

import (
	"io"
	"strings"
	"testing"
)

// FuzzRun: no command line makes the CLI panic, and every run ends with
// one of the three exit codes.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"estimate --model llama3-70b --gpus 64 --zero 3",
		"estimate --model mixtral-8x7b --tp 8 --pp 2 --gpus 16 --recompute selective --sp",
		"estimate --mode serve --model deepseek-v3 --gpus 16 --tp 8 --pp 2 --context 131072 --users 7",
		"estimate --model llama3-405b --gpus 16384 --tp 8 --pp 16 --vpp 2 --cp 2 --seq 8192 --gbs 1024",
		"estimate --model gpt3-175b --attn eager --tp 8 --pp 8 --gpus 64 --schedule gpipe --mbs 2 --gbs 128",
		"models", "gpus --sources",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		for _, a := range args {
			// Keep the fuzzer away from reading arbitrary files.
			if strings.Contains(a, "/") || strings.HasSuffix(a, ".json") {
				return
			}
		}
		if code := run(args, io.Discard, io.Discard); code < 0 || code > 2 {
			t.Fatalf("planner %s: exit %d", line, code)
		}
	})
}
