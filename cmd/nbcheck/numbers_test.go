package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestStatedNumbers(t *testing.T) {
	md := "Weights take 16.1 GB, 8.03 B parameters, 128 KiB per token, 1.5× the traffic, 8x, 90% of HBM and 4 bytes.\n" +
		"Not checked: Llama 3 70B, 64 GPUs, `2 GB in code`, $3 \\times 141$ GB, [a link](http://x/9 GB), tp8.\n" +
		"> A source's rounded 295 GB."
	var got []string
	for _, s := range statedNumbers(md) {
		got = append(got, s.text+"|"+s.unit)
	}
	want := []string{"16.1 GB|GB", "8.03 B|B", "128 KiB|KiB", "1.5 ×|×", "8 x|×", "90 %|%", "4 bytes|bytes"}
	if !slices.Equal(got, want) {
		t.Errorf("stated numbers\n got %q\nwant %q", got, want)
	}
}

// notebookOf builds an executed notebook from alternating cells: a
// string starting with "#" is markdown, any other is a code cell's
// stdout.
func notebookOf(t *testing.T, cells ...string) *notebook {
	t.Helper()
	var raw []map[string]any
	for _, c := range cells {
		if strings.HasPrefix(c, "#") {
			raw = append(raw, map[string]any{"cell_type": "markdown", "source": c})
			continue
		}
		raw = append(raw, map[string]any{"cell_type": "code", "source": "%%", "execution_count": 1,
			"outputs": []any{map[string]any{"output_type": "stream", "name": "stdout", "text": c},
				map[string]any{"output_type": "display_data", "data": map[string]any{"text/html": "<td>7.00</td><td>3 MiB</td>"}}}})
	}
	b, _ := json.Marshal(map[string]any{"cells": raw})
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	return &nb
}

// TestUnprintedNumbers: a stated number passes when a neighbouring cell
// printed it, rounded as the prose writes it, in the same unit or with
// none; the opening and closing cells may use any cell.
func TestUnprintedNumbers(t *testing.T) {
	nb := notebookOf(t,
		"# Intro: 42 GB later.",
		"weights 16.06 GB, ratio 1.50x",
		"# About 16 GB, 16.1 GB, 1.5×, 7 GB (a unitless table cell) and 3 GB (printed as MiB). Also 17 GB.",
		"nothing here",
		"# Middle: 16.1 GB is two cells away.",
		"the answer is 42.0 GB",
		"# Closing: 16.1 GB and 42 GB.")
	got := strings.Join(nb.unprintedNumbers(), "\n")
	for _, want := range []string{`cell 2 (markdown): "3 GB"`, `cell 2 (markdown): "17 GB"`, `cell 4 (markdown): "16.1 GB"`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if n := len(nb.unprintedNumbers()); n != 3 {
		t.Errorf("%d problems, want 3:\n%s", n, got)
	}
}
