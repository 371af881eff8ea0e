package main

import (
	"strings"
	"testing"
)

// TestExport: the headline plan exports to Megatron-LM and Megatron-Bridge
// and is refused, with the reason and exit 2, by the frameworks that
// cannot run it; bad input names the value.
func TestExport(t *testing.T) {
	plan := "tp8-pp8v4[15,15]-cp2-dp8-zero1-sp-none-mb1"
	for _, tt := range []struct {
		to   string
		code int
		want string
	}{
		{"megatron", 0, "--context-parallel-size 2"},
		{"nemo", 0, "model.context_parallel_size=2"},
		{"torchtitan", 2, "FSDP2 has no ZeRO-1"},
		{"deepspeed", 2, "no ring context parallelism"},
	} {
		code, out, errs := runCLI(t, "export", "--to", tt.to, plan, "--model", "llama3-405b")
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("export --to %s: exit %d, %q %q; want exit %d and %q", tt.to, code, out, errs, tt.code, tt.want)
		}
		if code == 2 && out != "" {
			t.Errorf("export --to %s wrote %q although it cannot express the plan", tt.to, out)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "jax", plan, "--model", "llama3-405b"}, `unknown framework "jax" (valid: megatron, torchtitan, nemo, deepspeed)`},
		{[]string{"--to", "megatron", "--model", "llama3-405b"}, "give the plan to export"},
		{[]string{"--to", "megatron", "tp8-pp3", "--model", "llama3-405b"}, `plan "tp8-pp3" has no cp`},
		{[]string{"--to", "megatron", plan, "extra", "--model", "llama3-405b"}, `unexpected argument "extra"`},
	} {
		code, _, errs := runCLI(t, append([]string{"export"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("export %v: exit %d, %q; want exit 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestSearchExport: --export appends the winner's launch config.
func TestSearchExport(t *testing.T) {
	code, out, errs := runCLI(t, "search", "--model", "llama3-70b", "--gpus", "64", "--top", "2", "--export", "megatron,deepspeed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"launch config, megatron, for", "MEGATRON_ARGS=(", "launch config, deepspeed, for"} {
		if !strings.Contains(out, want) {
			t.Errorf("search --export lacks %q", want)
		}
	}
}
