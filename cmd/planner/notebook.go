package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// kernelName is the Jupyter kernel the notebooks name in their metadata.
const (
	kernelName    = "planner"
	kernelDisplay = "Planner (Go)"
	modulePath    = "github.com/gpu-planner/planner"
)

// runNotebook dispatches "planner notebook install".
func runNotebook(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "install" {
		return badInputf(`want "notebook install" (registers the %q Jupyter kernel)`, kernelDisplay)
	}
	return runNotebookInstall(args[1:], stdout, stderr)
}

// runNotebookInstall writes the kernel spec: a kernel.json whose argv runs
// a small start script next to it. The script starts GoNB with --go_work
// set to this module, found from the notebook's folder (the folder Jupyter
// starts kernels in) and else the checkout that ran the install, so a
// notebook's cells import the planner's packages with no setup cell.
func runNotebookInstall(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notebook install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data-dir", jupyterDataDir(), "Jupyter data folder (the kernel goes in its kernels/"+kernelName+")")
	root := fs.String("root", "", "the planner checkout notebooks outside it use (default: the module of the current folder)")
	gonb := fs.String("gonb", "", "the gonb binary (default: found on PATH, then in $(go env GOPATH)/bin)")
	rawError := fs.Bool("raw-error", false, "plain-text compile errors (for headless runs and logs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spec, err := newKernelSpec(*root, *gonb, *rawError)
	if err != nil {
		return err
	}
	dir := filepath.Join(*data, "kernels", kernelName)
	if err := spec.write(dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed Jupyter kernel %q in %s (gonb %s, default module %s)\n", kernelDisplay, dir, spec.gonb, spec.root)
	return nil
}

// jupyterDataDir is where Jupyter looks for user kernels: $JUPYTER_DATA_DIR
// or ~/.local/share/jupyter.
func jupyterDataDir() string {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "jupyter")
}

// kernelSpec is what the kernel folder records: absolute paths, because
// Jupyter starts kernels from the notebook's folder with its own PATH.
type kernelSpec struct {
	gonb, root string
	rawError   bool
}

func newKernelSpec(root, gonb string, rawError bool) (kernelSpec, error) {
	var err error
	if root == "" {
		if root, err = goOutput("list", "-m", "-f", "{{.Path}} {{.Dir}}"); err != nil {
			return kernelSpec{}, fmt.Errorf("finding the module: %v", err)
		}
		path, dir, _ := strings.Cut(root, " ")
		if path != modulePath {
			return kernelSpec{}, badInputf("run it inside the planner checkout (module %s), not %s, or pass --root", modulePath, path)
		}
		root = dir
	}
	if gonb == "" {
		if gonb, err = findGonb(); err != nil {
			return kernelSpec{}, err
		}
	}
	root, _ = filepath.Abs(root)
	gonb, _ = filepath.Abs(gonb)
	return kernelSpec{gonb: gonb, root: root, rawError: rawError}, nil
}

// findGonb looks on PATH, then where scripts/install-notebook-tools.sh
// puts it.
func findGonb() (string, error) {
	if p, err := exec.LookPath("gonb"); err == nil {
		return p, nil
	}
	gopath, err := goOutput("env", "GOPATH")
	if err == nil {
		p := filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin", "gonb")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("gonb not found on PATH or in $(go env GOPATH)/bin: run scripts/install-notebook-tools.sh")
}

func goOutput(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// write creates dir with kernel.json and the start script.
func (s kernelSpec) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	script := filepath.Join(dir, "start-kernel")
	if err := os.WriteFile(script, []byte(s.script()), 0o755); err != nil {
		return err
	}
	spec := map[string]any{
		"argv":           []string{script, "{connection_file}"},
		"display_name":   kernelDisplay,
		"language":       "go",
		"interrupt_mode": "message",
		"env":            map[string]string{},
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644)
}

// script is the kernel's start script. It puts gonb's folder (where
// goimports lives too) on PATH, picks the planner module that holds the
// notebook or else the installing checkout, and runs gonb with --go_work
// on it: GoNB then adds the module to each notebook's scratch go.work and
// a replace to its go.mod, so "import .../kernel" needs no setup cell.
// (A cell that imports gonbui itself fails under --go_work: its build list
// lacks gonb. Notebooks reach gonbui through the kernel package.)
func (s kernelSpec) script() string {
	flags := ""
	if s.rawError {
		flags = " --raw_error"
	}
	return fmt.Sprintf(`#!/bin/sh
# Starts the %[1]q Jupyter kernel (written by "planner notebook install").
PATH=%[2]s:$PATH
export PATH
root="$(go list -m -f '{{if eq .Path "%[3]s"}}{{.Dir}}{{end}}' 2>/dev/null)"
[ -n "$root" ] || root=%[4]s
exec %[5]s --kernel "$1" --go_work="$root"%[6]s
`, kernelDisplay, shellQuote(filepath.Dir(s.gonb)), modulePath, shellQuote(s.root), shellQuote(s.gonb), flags)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
