package costmodel

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestSlidingNote checks that a training estimate says when it prices
// sliding-window layers as full attention, and only then.
func TestSlidingNote(t *testing.T) {
	c, err := hardware.ClusterForGPUs(mustGPU(t, "h100"), 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model string
		seq   int
		want  string
	}{
		{"gpt-oss-20b", 4096, "12 of 24 layers attend over a 128-token sliding window"},
		{"gpt-oss-20b", 128, ""},
		{"mistral-7b", 32768, "32 of 32 layers attend over a 4096-token sliding window"},
		{"mistral-7b", 4096, ""},
		{"llama3-8b", 8192, ""},
	} {
		m, err := LookupModel(tc.model)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEvaluator(m, c, DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		p := Plan{TP: 1, PP: 1, CP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 8, Seq: tc.seq}
		got := e.slidingNote(p)
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s at seq %d: note %q, want one starting %q", tc.model, tc.seq, got, tc.want)
		}
	}
}
