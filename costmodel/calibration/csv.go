package calibration

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// measuredCSV and modernCSV are verbatim copies of the calibration set
// (testdata/measured.csv and testdata/measured-modern.csv, documented in
// testdata/README.md, sections 1-3 and 4).
var (
	//go:embed testdata/measured.csv
	measuredCSV []byte
	//go:embed testdata/measured-modern.csv
	modernCSV []byte
)

// Files are the embedded calibration files, in the order Load reads them.
var Files = []string{"testdata/measured.csv", "testdata/measured-modern.csv"}

// Row is one row of measured.csv. Every column is kept as text, keyed by
// its header; Int and Float read the numeric ones.
type Row struct {
	cols map[string]string
	file string
}

// File is the calibration file the row was read from (Files), "" for a
// row read with Read.
func (r Row) File() string { return r.file }

// required are the columns the comparison reads.
var required = []string{
	"row_id", "source_id", "source", "measurement_type", "task", "outcome", "model", "layers", "hidden",
	"heads", "kv_heads", "ffn_hidden", "vocab", "seq_len", "moe_experts", "arch_notes", "gpu", "num_gpus",
	"gpus_per_node", "interconnect", "tp", "pp", "cp", "dp", "ep", "vpp", "pp_schedule", "zero_fsdp",
	"sequence_parallel", "recompute", "micro_batch", "global_batch", "precision", "step_time_s",
	"tokens_per_s_per_gpu", "tflops_per_gpu", "mfu_pct", "other_metrics", "derived_step_time_s",
	"derived_tokens_per_s_per_gpu", "dedup_group",
}

// Get returns column col ("" when empty).
func (r Row) Get(col string) string { return strings.TrimSpace(r.cols[col]) }

// ID is the row's stable id, Source its source key.
func (r Row) ID() string     { return r.Get("row_id") }
func (r Row) Source() string { return r.Get("source_id") }

// Float reads a numeric column: ok is false when it is empty, err set
// when it holds something that is not a finite number.
func (r Row) Float(col string) (v float64, ok bool, err error) {
	s := r.Get(col)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("calibration: row %s: %s = %q is not a number", r.ID(), col, s)
	}
	return v, true, nil
}

// Int reads a count column, which must be a whole number in [1, 2^30].
func (r Row) Int(col string) (n int, ok bool, err error) {
	v, ok, err := r.Float(col)
	if !ok || err != nil {
		return 0, ok, err
	}
	if v != math.Trunc(v) || v < 1 || v > 1<<30 {
		return 0, false, fmt.Errorf("calibration: row %s: %s = %q is not a count", r.ID(), col, r.Get(col))
	}
	return int(v), true, nil
}

// Metric reads key=value pairs of other_metrics ("layer_fwd_ms=7.7;
// layer_bwd_ms=11.9") and returns the value of key.
func (r Row) Metric(key string) (float64, bool) {
	for _, kv := range strings.Split(r.Get("other_metrics"), ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return 0, false
}

// Read parses a calibration CSV: a header with at least the required
// columns, then one row per line, each with a unique row_id.
func Read(rd io.Reader) ([]Row, error) {
	b, err := hardware.ReadAll(rd, "the calibration CSV")
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("calibration: reading the header: %w", err)
	}
	index := map[string]int{}
	for i, h := range header {
		index[strings.TrimSpace(h)] = i
	}
	var missing []string
	for _, c := range required {
		if _, ok := index[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("calibration: CSV lacks the columns %s", strings.Join(missing, ", "))
	}
	var rows []Row
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		r := Row{cols: make(map[string]string, len(header))}
		for name, i := range index {
			r.cols[name] = rec[i]
		}
		if r.ID() == "" || seen[r.ID()] {
			return nil, fmt.Errorf("calibration: line %d: row_id %q is empty or repeated", len(rows)+2, r.ID())
		}
		seen[r.ID()] = true
		rows = append(rows, r)
	}
	return rows, nil
}

// Load reads the embedded copies of both files (Files); row ids are
// unique across them.
func Load() ([]Row, error) {
	var all []Row
	seen := map[string]bool{}
	for i, b := range [][]byte{measuredCSV, modernCSV} {
		rows, err := Read(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		for j, r := range rows {
			rows[j].file = Files[i]
			if seen[r.ID()] {
				return nil, fmt.Errorf("calibration: row_id %s appears in both files", r.ID())
			}
			seen[r.ID()] = true
		}
		all = append(all, rows...)
	}
	return all, nil
}
