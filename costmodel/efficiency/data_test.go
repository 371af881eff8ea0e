package efficiency

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// datasetGPU maps the calibration data's gpu keys to catalog names
// (testdata/README.md).
var datasetGPU = map[string]string{
	"a100_sxm": "a100-80gb", "h100_sxm": "h100-sxm", "h200_sxm": "h200",
	"b200_sxm": "b200", "b300_sxm": "b300", "gb200": "gb200", "l40s": "l40s",
}

// readCSV reads a testdata CSV as header-keyed rows.
func readCSV(t testing.TB, name string) []map[string]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]map[string]string, 0, len(recs)-1)
	for _, r := range recs[1:] {
		m := make(map[string]string, len(r))
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func num(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gemmKey is one GPU and format of the GEMM data.
type gemmKey struct {
	gpu    string // catalog name
	format Format
}

// gemmSamples reads testdata/gemm.csv by catalog GPU and format.
func gemmSamples(t testing.TB) map[gemmKey][]Sample {
	out := map[gemmKey][]Sample{}
	for _, r := range readCSV(t, "gemm.csv") {
		f, err := ParseFormat(r["dtype"])
		if err != nil {
			t.Fatal(err)
		}
		k := gemmKey{datasetGPU[r["gpu"]], f}
		out[k] = append(out[k], Sample{M: num(t, r["m"]), N: num(t, r["n"]), K: num(t, r["k"]),
			Seconds: num(t, r["latency_ms"]) / 1e3})
	}
	return out
}

func lookup(t testing.TB, name string) hardware.GPU {
	t.Helper()
	g, err := hardware.LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// attentionSamples reads testdata/attention_context.csv by catalog GPU
// and format.
func attentionSamples(t testing.TB) map[gemmKey][]AttentionSample {
	out := map[gemmKey][]AttentionSample{}
	for _, r := range readCSV(t, "attention_context.csv") {
		f, err := ParseFormat(r["attn_dtype"])
		if err != nil {
			t.Fatal(err)
		}
		k := gemmKey{datasetGPU[r["gpu"]], f}
		out[k] = append(out[k], AttentionSample{Batch: num(t, r["batch"]), Seq: num(t, r["isl"]),
			Heads: num(t, r["num_heads"]), KVHeads: num(t, r["num_kv_heads"]), HeadDim: num(t, r["head_dim"]),
			Seconds: num(t, r["latency_ms"]) / 1e3})
	}
	return out
}

// attentionSets builds the attention fit sets of the named GPUs for f.
func attentionSets(t testing.TB, data map[gemmKey][]AttentionSample, gpus []string, f Format) []AttentionSet {
	var sets []AttentionSet
	for _, name := range gpus {
		if s := data[gemmKey{name, f}]; len(s) > 0 {
			sets = append(sets, AttentionSet{GPU: name, Base: baseAttention(lookup(t, name), f), Samples: s})
		}
	}
	return sets
}

// attentionSetErrors is the error over all rows of the sets under p.
func attentionSetErrors(p Params, sets []AttentionSet) Errors {
	var rel []float64
	for _, s := range sets {
		a := p.ApplyAttention(s.Base)
		for _, r := range s.Samples {
			rel = append(rel, abs(a.Measured(r)/r.Seconds-1))
		}
	}
	return summarize(rel)
}
