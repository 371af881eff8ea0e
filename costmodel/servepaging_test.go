package costmodel

import (
	"strings"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// TestPagedKV: Llama 3 70B in bf16 keeps 320 KiB per token. In 16-token
// blocks (vLLM's default) a 8,000-token sequence fills 500 blocks
// exactly; 8,001 tokens need a 501st block that is 15 tokens empty, 15 x
// 320 KiB = 4.69 MiB; over a sequence's growth the empty part averages
// 7.5 tokens = 2.34 MiB (Kwon et al. 2023, sec. 4.1).
func TestPagedKV(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	exact := m.PagedKV(8000, 16, DTypeBF16)
	if exact.BlocksPerSequence != 500 || exact.PaddingTokens != 0 || exact.PaddingPerSequence != 0 {
		t.Errorf("8,000 tokens: %+v", exact)
	}
	p := m.PagedKV(8001, 16, DTypeBF16)
	if p.BlocksPerSequence != 501 || p.PaddingTokens != 15 || p.PaddingPerSequence != 15*320*hardware.KiB {
		t.Errorf("8,001 tokens: %+v", p)
	}
	if p.AveragePaddingPerSequence != 7.5*320*hardware.KiB || !within(p.WasteFraction, 15.0/8016, 1e-9) {
		t.Errorf("average %v, waste %.5f", p.AveragePaddingPerSequence, p.WasteFraction)
	}
	if none := m.PagedKV(8001, 0, DTypeBF16); none.PaddingPerSequence != 0 || none.BlockTokens != 0 {
		t.Errorf("contiguous: %+v", none)
	}
	// Mistral 7B's layers all use a 4,096-token window: past it the
	// cache stops growing, and so does the padding.
	mi, _ := LookupModel("mistral-7b")
	if w := mi.PagedKV(10000, 16, DTypeBF16); w.PaddingPerSequence != 0 {
		t.Errorf("windowed at 10,000 tokens: %+v", w)
	}
}

// TestServePaddingLine: the inventory carries the padding as its own
// line and the capacity counts whole blocks.
func TestServePaddingLine(t *testing.T) {
	m, _ := LookupModel("llama3.1-8b")
	c := cluster(t, "h100-sxm", 1)
	s := ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 4100, Users: 10, BlockTokens: 16}
	r, err := EstimateServe(m, c, s, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	var pad Line
	for _, l := range r.Memory.Lines {
		if strings.HasPrefix(l.Name, "KV block padding") {
			pad = l
		}
	}
	// 4,100 tokens take 257 blocks = 4,112 tokens: 12 empty x 128 KiB x 10.
	if pad.Bytes != 10*12*128*hardware.KiB {
		t.Errorf("padding line %+v", pad)
	}
	s.BlockTokens = 0
	flat, _ := EstimateServe(m, c, s, DefaultAssumptions())
	if !(flat.MaxUsers >= r.MaxUsers && flat.Memory.Total < r.Memory.Total) {
		t.Errorf("paged: %d users, %v; contiguous: %d users, %v", r.MaxUsers, r.Memory.Total, flat.MaxUsers, flat.Memory.Total)
	}
}

// TestLongestContext: Llama 3.1 8B alone on one H100 holds one sequence
// as long as its KV capacity in tokens (to a block); Llama 3 70B on two
// H100s holds its 141 GB of weights, but one 128k-token conversation
// (43 GB of cache) is more than the 3.7 GB per GPU the weights leave:
// "weights fit, users do not", and the longest context is 22k tokens.
func TestLongestContext(t *testing.T) {
	m, _ := LookupModel("llama3.1-8b")
	r, _ := EstimateServe(m, cluster(t, "h100-sxm", 1), ServePlan{TP: 1, PP: 1, Replicas: 1, Context: 4096, Users: 1, BlockTokens: 16}, DefaultAssumptions())
	if d := r.KVCapacityTokens - float64(r.LongestContext); d < 0 || d >= 16 {
		t.Errorf("longest context %d, capacity %.0f tokens", r.LongestContext, r.KVCapacityTokens)
	}
	l70, _ := LookupModel("llama3-70b")
	r2, _ := EstimateServe(l70, cluster(t, "h100-sxm", 2), ServePlan{TP: 2, PP: 1, Replicas: 1, Context: 131072, Users: 1, BlockTokens: 16}, DefaultAssumptions())
	free := r2.Memory.Budget - (r2.Memory.Total - r2.Memory.Group(GroupKV))
	// The longest that fits: free / (320 KiB / tp=2) tokens, to a block.
	longest := float64(free) / float64(160*hardware.KiB)
	if !(free > 3e9 && free < 4.5e9) || r2.MaxUsers != 0 || float64(r2.LongestContext) > longest || float64(r2.LongestContext) < longest-16 {
		t.Errorf("free %v per GPU, %d users, longest %d tokens", free, r2.MaxUsers, r2.LongestContext)
	}
	if !strings.Contains(strings.Join(r2.Notes, "\n"), "weights fit, users do not") {
		t.Errorf("notes %q lack the warning", r2.Notes)
	}
}
