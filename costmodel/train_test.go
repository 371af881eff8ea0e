package costmodel

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestEstimateNotFitNamesLevers(t *testing.T) {
	m, _ := LookupModel("llama3-405b")
	c := cluster(t, "h100-sxm", 16384)
	p := Plan{TP: 8, PP: 16, CP: 1, DP: 128, ZeRO: 1, SP: true, MicroBatch: 1, GlobalBatch: 2048, Seq: 8192}
	r, err := Estimate(m, c, p, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory.Fits {
		t.Fatalf("405B without recompute fits at %v; expected over budget", r.Memory.Total)
	}
	if r.PlanString != "tp8-pp16[7,7]-cp1-dp128-zero1-sp-none-mb1" {
		t.Errorf("plan %s", r.PlanString)
	}
	var fixes []string
	for _, l := range r.Levers {
		if l.Peak >= r.Memory.Total {
			t.Errorf("lever %s does not lower the peak", l.Change)
		}
		if l.Fits {
			fixes = append(fixes, l.Change)
		}
	}
	if !strings.Contains(strings.Join(fixes, ","), "--recompute full") {
		t.Errorf("levers that fit %v; want --recompute full among them", fixes)
	}
	// The most loaded stage is the first full stage: stage 0 has one
	// layer fewer but holds the most micro-batches.
	if r.PeakStage != 1 {
		t.Errorf("peak stage %d, want 1", r.PeakStage)
	}
}

// TestFirstStageHoldsPP: with even stages under 1F1B, stage 0 holds pp
// micro-batches and is the most loaded.
func TestFirstStageHoldsPP(t *testing.T) {
	m, _ := LookupModel("llama3-70b")
	c := cluster(t, "h100-sxm", 64)
	r, err := Estimate(m, c, Plan{TP: 8, PP: 8, CP: 1, DP: 1, SP: true, MicroBatch: 1, GlobalBatch: 64, Seq: 4096}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.PeakStage != 0 || r.Stages[0].InFlight != 8 || r.Stages[7].InFlight != 1 {
		t.Errorf("peak stage %d, in flight %g/%g", r.PeakStage, r.Stages[0].InFlight, r.Stages[7].InFlight)
	}
	if r.Stages[0].LayerActivations != 8*r.Stages[7].LayerActivations {
		t.Errorf("stage 0 layer activations %v, want 8x stage 7's %v", r.Stages[0].LayerActivations, r.Stages[7].LayerActivations)
	}
}

func TestEstimateDeterministicJSON(t *testing.T) {
	m, _ := LookupModel("mixtral-8x7b")
	c := cluster(t, "h100-sxm", 16)
	p := Plan{TP: 4, PP: 2, CP: 1, DP: 2, ZeRO: 1, MicroBatch: 1, GlobalBatch: 16, Seq: 4096, Recompute: Selective}
	var out [2][]byte
	for i := range out {
		r, err := Estimate(m, c, p, DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		out[i], _ = json.Marshal(r)
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("same input gave different JSON")
	}
	if !bytes.Contains(out[0], []byte(`"total_bytes":`)) || bytes.Contains(out[0], []byte(`e+`)) {
		t.Errorf("JSON should carry integer bytes: %.300s", out[0])
	}
	if !bytes.Contains(out[0], []byte("routed experts per MoE layer (top-2) over ep=1")) {
		t.Error("MoE estimate lacks the expert-layout note")
	}
}

// TestInventorySumsLines: the total is the sum of the lines, and the
// stage memory agrees with the inventory.
func TestInventorySumsLines(t *testing.T) {
	m, _ := LookupModel("deepseek-v3")
	c := cluster(t, "h100-sxm", 256)
	r, err := Estimate(m, c, Plan{TP: 8, PP: 16, CP: 1, DP: 2, ZeRO: 3, MicroBatch: 1, GlobalBatch: 32, Seq: 4096, Recompute: Full}, DefaultAssumptions())
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, l := range r.Memory.Lines {
		sum += float64(l.Bytes)
	}
	peak := r.Stages[r.PeakStage].Total
	if !within(sum, float64(r.Memory.Total), 1e-12) || !within(float64(peak), sum, 1e-12) {
		t.Errorf("lines sum %.0f, inventory %v, stage %v", sum, r.Memory.Total, peak)
	}
}
