package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotebookInstall installs the kernel with a stand-in gonb that prints
// its arguments, then starts the kernel's script from a folder of this
// module and from a folder outside it: both must hand gonb a --go_work
// naming a planner checkout, the module's own first and the installing
// checkout otherwise.
func TestNotebookInstall(t *testing.T) {
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "bin", "gonb")
	writeExec(t, fake, "#!/bin/sh\necho \"$@\"\n")
	data := filepath.Join(tmp, "jupyter")
	var out, errb bytes.Buffer
	args := []string{"notebook", "install", "--data-dir", data, "--gonb", fake, "--root", "/checkout", "--raw-error"}
	if code := run(args, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	dir := filepath.Join(data, "kernels", kernelName)
	var spec struct {
		Argv        []string `json:"argv"`
		DisplayName string   `json:"display_name"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil || json.Unmarshal(b, &spec) != nil {
		t.Fatalf("kernel.json: %v %s", err, b)
	}
	if spec.DisplayName != "Planner (Go)" || len(spec.Argv) != 2 || spec.Argv[1] != "{connection_file}" {
		t.Fatalf("kernel.json = %+v", spec)
	}
	here, _ := os.Getwd()
	repo := filepath.Dir(filepath.Dir(here))
	for folder, want := range map[string]string{here: repo, tmp: "/checkout"} {
		got := startKernel(t, spec.Argv[0], folder)
		if wantArgs := "--kernel conn.json --go_work=" + want + " --raw_error"; got != wantArgs {
			t.Errorf("kernel started in %s ran gonb %q, want %q", folder, got, wantArgs)
		}
	}
}

func TestNotebookUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"notebook", "uninstall"}, &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
}

// startKernel runs the kernel's start script in folder, as Jupyter does,
// and returns what the stand-in gonb printed.
func startKernel(t *testing.T, script, folder string) string {
	t.Helper()
	cmd := exec.Command(script, "conn.json")
	cmd.Dir = folder
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeExec(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
