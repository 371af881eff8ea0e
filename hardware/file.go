package hardware

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// gpuFile is the on-disk form of a custom GPU. Every key carries its unit,
// so a file reads unambiguously: "hbm_mib": 81559 is what nvidia-smi prints.
type gpuFile struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	HBMMiB          *float64 `json:"hbm_mib"`
	HBMGiB          *float64 `json:"hbm_gib"`
	HBMGB           *float64 `json:"hbm_gb"`
	HBMQuoted       string   `json:"hbm_quoted"`
	BF16TFLOPs      float64  `json:"bf16_tflops"`
	FP8TFLOPs       float64  `json:"fp8_tflops"`
	MemBandwidthGBs float64  `json:"mem_bandwidth_gb_per_s"`
	ScaleUpGBs      float64  `json:"scale_up_gb_per_s_per_direction"`
	ScaleUpDomain   int      `json:"scale_up_domain"`
	ScaleOutGbits   float64  `json:"scale_out_gbit_per_s"`
	SustainedClock  float64  `json:"sustained_clock"`
	MXFP8TFLOPs     float64  `json:"mxfp8_tflops"`
	FP4TFLOPs       float64  `json:"fp4_tflops"`
	Arch            Arch     `json:"arch"`
	SMs             int      `json:"sms"`
	TDPWatts        float64  `json:"tdp_watts"`
	Notes           string   `json:"notes"`
}

// clusterFile is the on-disk form of a cluster: a catalog GPU name or an
// inline GPU object, GPUs per node and nodes.
type clusterFile struct {
	GPU         json.RawMessage `json:"gpu"`
	GPUsPerNode int             `json:"gpus_per_node"`
	Nodes       int             `json:"nodes"`
}

// ExampleGPUFile is a complete custom GPU file (the H100 SXM figures).
const ExampleGPUFile = `{
  "name": "my-h100",
  "hbm_mib": 81559,
  "bf16_tflops": 989,
  "fp8_tflops": 1979,
  "mem_bandwidth_gb_per_s": 3350,
  "scale_up_gb_per_s_per_direction": 450,
  "scale_up_domain": 8,
  "scale_out_gbit_per_s": 400
}`

// ParseGPU reads a custom GPU from JSON. Exactly one of hbm_mib, hbm_gib
// and hbm_gb gives the memory as the driver reports it. Unknown keys are
// errors, so a misspelt unit cannot be silently ignored.
func ParseGPU(r io.Reader) (GPU, error) {
	var f gpuFile
	if err := strictDecode(r, &f); err != nil {
		return GPU{}, fmt.Errorf("hardware: GPU file: %w", err)
	}
	hbm, err := f.hbm()
	if err != nil {
		return GPU{}, err
	}
	g := GPU{
		Name: f.Name, Description: f.Description, HBM: hbm, HBMQuoted: f.HBMQuoted,
		PeakBF16:       FLOPRate(f.BF16TFLOPs) * TFLOPPerSecond,
		PeakFP8:        FLOPRate(f.FP8TFLOPs) * TFLOPPerSecond,
		MemBandwidth:   Bandwidth(f.MemBandwidthGBs) * GBPerSecond,
		ScaleUp:        Bandwidth(f.ScaleUpGBs) * GBPerSecond,
		ScaleUpDomain:  f.ScaleUpDomain,
		ScaleOut:       Bandwidth(f.ScaleOutGbits) * GbitPerSecond,
		TDP:            Watts(f.TDPWatts),
		SustainedClock: f.SustainedClock,
		PeakMXFP8:      FLOPRate(f.MXFP8TFLOPs) * TFLOPPerSecond,
		PeakFP4:        FLOPRate(f.FP4TFLOPs) * TFLOPPerSecond,
		Arch:           f.Arch, SMs: f.SMs,
		Notes:   f.Notes,
		Sources: map[string]string{"all": "user file"},
	}
	if g.Description == "" {
		g.Description = g.Name + " (custom)"
	}
	return g, g.Validate()
}

func (f gpuFile) hbm() (Bytes, error) {
	var set []string
	var b Bytes
	for _, c := range []struct {
		key  string
		v    *float64
		unit Bytes
	}{{"hbm_mib", f.HBMMiB, MiB}, {"hbm_gib", f.HBMGiB, GiB}, {"hbm_gb", f.HBMGB, GB}} {
		if c.v != nil {
			set = append(set, c.key)
			b = Bytes(*c.v) * c.unit
		}
	}
	if len(set) != 1 {
		return 0, fmt.Errorf("hardware: GPU file %q: give exactly one of hbm_mib, hbm_gib, hbm_gb (got %d: %s)",
			f.Name, len(set), strings.Join(set, ", "))
	}
	return b, nil
}

// ParseCluster reads a cluster from JSON: {"gpu": "h100-sxm" or {...},
// "gpus_per_node": 8, "nodes": 16}. gpus_per_node 0 or absent takes the
// GPU's scale-up domain.
func ParseCluster(r io.Reader) (Cluster, error) {
	var f clusterFile
	if err := strictDecode(r, &f); err != nil {
		return Cluster{}, fmt.Errorf("hardware: cluster file: %w", err)
	}
	g, err := f.gpu()
	if err != nil {
		return Cluster{}, err
	}
	return NewCluster(g, f.GPUsPerNode, f.Nodes)
}

func (f clusterFile) gpu() (GPU, error) {
	raw := bytes.TrimSpace(f.GPU)
	switch {
	case len(raw) == 0:
		return GPU{}, errors.New(`hardware: cluster file has no "gpu" (a catalog name or a GPU object)`)
	case raw[0] == '"':
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return GPU{}, fmt.Errorf("hardware: cluster file gpu: %w", err)
		}
		return LookupGPU(name)
	case raw[0] == '{':
		return ParseGPU(bytes.NewReader(raw))
	}
	return GPU{}, fmt.Errorf("hardware: cluster file gpu %s is neither a name nor an object", raw)
}

// strictDecode decodes exactly one JSON value of at most MaxFileBytes,
// rejecting unknown keys and anything but white space after the value.
func strictDecode(r io.Reader, v any) error {
	b, err := ReadAll(r, "the file")
	if err != nil {
		return err
	}
	return DecodeOne(b, v, true)
}

// DecodeOne decodes the one JSON value in b into v; strict rejects keys v
// has no field for. Anything after the value but white space is an error
// that quotes it.
func DecodeOne(b []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	rest := bytes.TrimSpace(b[dec.InputOffset():])
	if len(rest) > 0 {
		return fmt.Errorf("trailing data %q after the JSON object", string(rest[:min(len(rest), 20)]))
	}
	return nil
}
