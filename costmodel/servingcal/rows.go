package servingcal

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// measuredCSV is a verbatim copy of the serving calibration set.
//
//go:embed testdata/measured-serving.csv
var measuredCSV []byte

// Point is one measured serving point of measured-serving.csv.
type Point struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	GPU    string `json:"gpu"`
	Engine string `json:"engine"`
	// Version is the engine's release (backend_version; blank when not
	// recorded).
	Version string `json:"backend_version,omitempty"`
	Weights string `json:"weights_dtype"`
	// Quant and MoEQuant are the source's gemm_quant_mode and
	// moe_quant_mode (nvfp4, fp8, fp8_block...).
	Quant       string  `json:"gemm_quant_mode"`
	MoEQuant    string  `json:"moe_quant_mode,omitempty"`
	KV          string  `json:"kv_dtype"`
	TP          int     `json:"tp"`
	PP          int     `json:"pp"`
	AttentionDP int     `json:"attention_dp"`
	ExpertTP    int     `json:"moe_tp"`
	ExpertEP    int     `json:"moe_ep"`
	Concurrency float64 `json:"concurrency"`
	Input       int     `json:"isl"`
	Output      int     `json:"osl"`
	TTFT        float64 `json:"ttft_s"`
	TPOT        float64 `json:"tpot_s"`
	// Harness is the benchmark client that measured the point (harness).
	Harness string `json:"harness"`
	// Measured is the date of the measurement, YYYY-MM-DD (blank when
	// the file has no measured column).
	Measured string `json:"measured,omitempty"`
}

// The benchmark harnesses of measured-serving.csv.
const (
	// HarnessInferenceMAX is the InferenceMAX-style sweeps (ids
	// dsr1_... and 2026_04_06_...): ISL/OSL 1k/1k, 1k/8k and 8k/1k at
	// concurrency 4 to 256, benchmark_serving.py closed loops
	// (InferenceMAXRounds) with --random-range-ratio 0.8, so lengths
	// vary from request to request (InferenceMAX README, "Benchmark
	// Client Configuration").
	HarnessInferenceMAX = "inferencemax"
	// HarnessSweep is aiconfigurator's gap-analysis sweeps (ids
	// <model>_<model>_<gpu>_<engine>_agg_<isl>x<osl>_c<n>_tp<n>_epnone_<k>,
	// source files .../aic-auto-gap-analysis/data/...): ISL 128 to 8000,
	// OSL 100 to 2000, at concurrencies the planner proposed. Their
	// script is not published; aiconfigurator's benchmark template
	// (generator/config/backend_templates/benchmark/bench_run.sh.j2:
	// aiperf with ignore_eos, isl and osl stddev 0 by default in
	// generator/config/deployment_config.yaml) sends every request with
	// the same lengths, taken here; its 20 rounds after a warm-up of 2
	// are not what the rows show, so the rounds are fitted.
	HarnessSweep = "sweep"
)

// sweepID matches the ids of the gap-analysis sweeps.
var sweepID = regexp.MustCompile(`_agg_\d+x\d+_c\d+_tp\d+_epnone_\d+$`)

// harness names the client of the point with id.
func harness(id string) string {
	if sweepID.MatchString(id) {
		return HarnessSweep
	}
	return HarnessInferenceMAX
}

// Load reads the embedded copy of testdata/measured-serving.csv.
func Load() ([]Point, error) { return Read(bytes.NewReader(measuredCSV)) }

// Read parses a measured-serving.csv file.
func Read(r io.Reader) ([]Point, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("servingcal: %w", err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("servingcal: %d lines: want a header and at least one row", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, h := range []string{"id", "model", "gpu", "backend", "weights_dtype", "gemm_quant_mode", "kv_dtype", "tp", "pp",
		"attention_dp", "moe_tp", "moe_ep", "concurrency", "isl", "osl", "ttft_ms", "tpot_ms"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("servingcal: column %q missing", h)
		}
	}
	out := make([]Point, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		p, err := parsePoint(rec, col)
		if err != nil {
			return nil, fmt.Errorf("servingcal: line %d: %w", i+2, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// parsePoint reads one record.
func parsePoint(rec []string, col map[string]int) (Point, error) {
	get := func(k string) string { return strings.TrimSpace(rec[col[k]]) }
	p := Point{ID: get("id"), Model: get("model"), GPU: get("gpu"), Engine: get("backend"), Weights: get("weights_dtype"),
		Quant: get("gemm_quant_mode"), KV: get("kv_dtype"), Harness: harness(get("id"))}
	if _, ok := col["moe_quant_mode"]; ok {
		p.MoEQuant = get("moe_quant_mode")
	}
	if _, ok := col["backend_version"]; ok {
		p.Version = get("backend_version")
	}
	if _, ok := col["measured"]; ok {
		p.Measured = get("measured")[:min(len(get("measured")), len("2006-01-02"))]
	}
	ints := []struct {
		k string
		v *int
	}{{"tp", &p.TP}, {"pp", &p.PP}, {"attention_dp", &p.AttentionDP}, {"moe_tp", &p.ExpertTP}, {"moe_ep", &p.ExpertEP}, {"isl", &p.Input}, {"osl", &p.Output}}
	for _, f := range ints {
		n, err := strconv.Atoi(get(f.k))
		if err != nil || n < 1 {
			return p, fmt.Errorf("%s %q is not a positive integer", f.k, get(f.k))
		}
		*f.v = n
	}
	floats := []struct {
		k     string
		v     *float64
		scale float64
	}{{"concurrency", &p.Concurrency, 1}, {"ttft_ms", &p.TTFT, 1e-3}, {"tpot_ms", &p.TPOT, 1e-3}}
	for _, f := range floats {
		x, err := strconv.ParseFloat(get(f.k), 64)
		if err != nil || !(x > 0) {
			return p, fmt.Errorf("%s %q is not a positive number", f.k, get(f.k))
		}
		*f.v = x * f.scale
	}
	return p, nil
}
