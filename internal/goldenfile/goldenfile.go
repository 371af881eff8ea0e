// Package goldenfile compares a test's output with a file of expected
// output (a golden file) and rewrites the file when the tests run with
// -update, so that a change of output is a reviewed diff in testdata.
package goldenfile

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path, or writes got there under
// -update. A difference fails the test with the lines that differ.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (if the change is intended, rerun with -update and review the diff):\n%s",
			path, diffLines(string(want), got))
	}
}

// diffLines lists the lines that differ, position by position: "- " the
// expected line, "+ " the one got.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("- " + wl + "\n+ " + gl + "\n")
		}
	}
	return b.String()
}
