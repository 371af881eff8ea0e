package hardware

import (
	"strings"
	"testing"
)

func TestParseGPU(t *testing.T) {
	g, err := ParseGPU(strings.NewReader(ExampleGPUFile))
	if err != nil {
		t.Fatal(err)
	}
	h100, _ := LookupGPU("h100-sxm")
	if g.HBM != h100.HBM || g.PeakBF16 != h100.PeakBF16 || g.ScaleUp != h100.ScaleUp || g.ScaleOut != h100.ScaleOut {
		t.Errorf("example file %+v differs from the H100 entry", g)
	}
}

func TestParseGPUErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"name": "x", "hbm_gb": 80, "hbm_gib": 80}`, "exactly one of hbm_mib, hbm_gib, hbm_gb (got 2"},
		{`{"name": "x"}`, "exactly one of"},
		{`{"name": "x", "hbm_gb": 80, "bf16_tflop": 10}`, `unknown field "bf16_tflop"`},
		{`{"name": "x", "hbm_gb": 80, "bf16_tflops": 989, "mem_bandwidth_gb_per_s": 3350, "scale_up_gb_per_s_per_direction": 450, "scale_up_domain": 0}`, "scale-up domain 0"},
		{`{"name": "x", "hbm_gb": -1}`, "memory"},
		{`{"name": "x", "hbm_gb": 80} {}`, "trailing data"},
	}
	for _, tt := range tests {
		_, err := ParseGPU(strings.NewReader(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.json, err, tt.want)
		}
	}
}

func TestParseCluster(t *testing.T) {
	c, err := ParseCluster(strings.NewReader(`{"gpu": "gb200", "nodes": 2}`))
	if err != nil || c.GPUs() != 144 || c.GPUsPerNode != 72 {
		t.Errorf("gb200 cluster %v, %v", c, err)
	}
	c, err = ParseCluster(strings.NewReader(`{"gpu": ` + ExampleGPUFile + `, "gpus_per_node": 4, "nodes": 3}`))
	if err != nil || c.GPUs() != 12 {
		t.Errorf("inline GPU cluster %v, %v", c, err)
	}
	for _, bad := range []string{`{"nodes": 2}`, `{"gpu": 5, "nodes": 1}`, `{"gpu": "h100", "nodes": 0}`,
		`{"gpu": "h100", "gpus_per_node": 16, "nodes": 1}`, `{"gpu": "l40s", "nodes": 2}`} {
		if _, err := ParseCluster(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestClusterForGPUs(t *testing.T) {
	h100, _ := LookupGPU("h100")
	c, err := ClusterForGPUs(h100, 128, 0)
	if err != nil || c.Nodes != 16 || c.GPUsPerNode != 8 {
		t.Errorf("128 GPUs: %v %v", c, err)
	}
	if c, err := ClusterForGPUs(h100, 4, 0); err != nil || c.GPUs() != 4 || c.Nodes != 1 {
		t.Errorf("4 GPUs: %v %v", c, err)
	}
	if _, err := ClusterForGPUs(h100, 12, 0); err == nil || !strings.Contains(err.Error(), "try 8 or 16") {
		t.Errorf("12 GPUs: %v", err)
	}
	for _, n := range []int{0, -8, MaxGPUs + 8} {
		if _, err := ClusterForGPUs(h100, n, 0); err == nil {
			t.Errorf("%d GPUs: no error", n)
		}
	}
}

func FuzzParseGPU(f *testing.F) {
	f.Add(ExampleGPUFile)
	f.Add(`{"name":"x","hbm_gib":1e308,"bf16_tflops":1}`)
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGPU(strings.NewReader(s))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("parsed GPU does not validate: %v", err)
		}
	})
}

func FuzzParseCluster(f *testing.F) {
	f.Add(`{"gpu": "h100", "nodes": 2}`)
	f.Add(`{"gpu": ` + ExampleGPUFile + `, "gpus_per_node": 4, "nodes": 3}`)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCluster(strings.NewReader(s))
		if err != nil {
			return
		}
		if c.GPUs() < 1 || c.GPUs() > MaxGPUs {
			t.Fatalf("cluster of %d GPUs", c.GPUs())
		}
	})
}
