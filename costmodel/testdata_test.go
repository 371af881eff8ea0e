package costmodel

import (
	"encoding/csv"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readTestCSV reads a CSV file of testdata and returns its rows without
// the header line; a missing or malformed file fails the test.
func readTestCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no header line", path)
	}
	return recs[1:]
}

// logSignedMedians logs the signed median of each group's relative
// errors, in the order of the groups' names.
func logSignedMedians(t *testing.T, by map[string][]float64) {
	t.Helper()
	keys := make([]string, 0, len(by))
	width := 0
	for k := range by {
		keys = append(keys, k)
		width = max(width, len(k))
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("%s%s rows %3d  signed median %+6.1f%% (negative: predicted faster)", k, strings.Repeat(" ", width-len(k)+2), len(by[k]), 100*median(by[k]))
	}
}

// atof parses a number of a testdata row, failing the test on a bad one.
func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("testdata number %q: %v", s, err)
	}
	return v
}
