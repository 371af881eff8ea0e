package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The testdata notebooks are cells of notebooks/testdata/canary.ipynb as
// nbconvert and the GoNB kernel executed them (canary_missed.ipynb has the
// compile error's output removed, not_executed.ipynb one execution count).
func TestRun(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"ok.ipynb"}, 0, []string{"1 notebook(s) OK"}},
		{[]string{"panic.ipynb"}, 1, []string{"cell 1:", "error ERROR: exit status 2", "1 of 1 checks failed"}},
		{[]string{"test_fail.ipynb"}, 1, []string{"cell 1:", "exit status 1", "--- FAIL: TestCanary"}},
		{[]string{"compile.ipynb"}, 1, []string{"cell 1:", "undefined: costmodel.NoSuchFunction"}},
		{[]string{"exit_status.ipynb"}, 1, []string{"cell 1:", "!false", "exit status 1"}},
		{[]string{"not_executed.ipynb"}, 1, []string{"cell 2: not executed", "fmt.Println"}},
		{[]string{"ok.ipynb", "panic.ipynb"}, 1, []string{"1 of 2 notebook(s) failed"}},
		{[]string{"canary.ipynb"}, 1, []string{"cell 3:", "cell 4:", "cell 5:", "cell 6:"}},
		{[]string{"-canary", "canary.ipynb"}, 0, []string{"1 notebook(s) OK"}},
		{[]string{"-canary", "canary_missed.ipynb"}, 1, []string{"cell 5: tagged must-fail, but no failure was detected"}},
		{[]string{"-canary", "ok.ipynb"}, 1, []string{"no cell is tagged must-fail"}},
		{[]string{"-canary", "panic.ipynb"}, 1, []string{"cell 1: should pass"}},
		{[]string{"-clean", "clean.ipynb"}, 0, []string{"OK"}},
		{[]string{"-clean", "ok.ipynb"}, 1, []string{"cell 1: has outputs", `kernel "gonb", want "planner"`}},
		{[]string{"missing.ipynb"}, 2, nil},
		{[]string{"broken.ipynb"}, 2, nil},
		{nil, 2, nil},
	}
	for _, tt := range tests {
		args := make([]string, len(tt.args))
		for i, a := range tt.args {
			if !strings.HasPrefix(a, "-") {
				a = filepath.Join("testdata", a)
			}
			args[i] = a
		}
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != tt.code {
			t.Errorf("nbcheck %v: exit %d, want %d\n%s%s", tt.args, code, tt.code, out.String(), errOut.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("nbcheck %v: output lacks %q:\n%s", tt.args, w, out.String())
			}
		}
	}
}

// FuzzNotebook: arbitrary bytes never panic the reader or the checks.
func FuzzNotebook(f *testing.F) {
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":["x"],"execution_count":1,"outputs":[{"output_type":"stream","name":"stderr","text":"exit status 2\n"}]}]}`))
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":"x","outputs":[]}]}`))
	f.Add([]byte(`{"cells":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "nb.ipynb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		nb, err := readNotebook(path)
		if err != nil {
			return
		}
		nb.failures()
		nb.outputs()
	})
}
