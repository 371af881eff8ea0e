package hardware

import (
	"errors"
	"fmt"
	"strings"
)

// GPU describes one accelerator: what the planner needs to size memory,
// compute and communication.
//
// Bandwidths are per direction. NVIDIA quotes NVLink bidirectionally
// (900 GB/s on H100 is 450 GB/s each way); a ring collective moves data in
// one direction per link, so the per-direction figure is the one that enters
// the time of a collective. Network line rates are per direction already
// (400 Gb/s = 50 GB/s).
type GPU struct {
	// Name is the catalog key, e.g. "h100-sxm".
	Name string `json:"name"`
	// Description is the vendor's product name.
	Description string `json:"description"`
	// HBM is the total memory as the driver reports it (nvidia-smi,
	// rocm-smi): the ceiling a plan must fit under.
	HBM Bytes `json:"hbm_bytes"`
	// HBMQuoted is the capacity printed on the datasheet, in its own unit
	// (NVIDIA's "80 GB" is close to GiB, not decimal GB).
	HBMQuoted string `json:"hbm_quoted"`
	// PeakBF16 and PeakFP8 are dense (no 2:4 sparsity) tensor-core peaks.
	// PeakFP8 is zero when the GPU has no FP8 tensor cores.
	PeakBF16 FLOPRate `json:"peak_bf16_flop_per_s"`
	PeakFP8  FLOPRate `json:"peak_fp8_flop_per_s"`
	// PeakMXFP8 and PeakFP4 are the dense peaks of the block-scaled
	// formats of datacenter Blackwell (OCP MXFP8; NVFP4, 16-element
	// blocks with FP8 scales); zero where the tensor cores lack them.
	PeakMXFP8 FLOPRate `json:"peak_mxfp8_flop_per_s,omitempty"`
	PeakFP4   FLOPRate `json:"peak_fp4_flop_per_s,omitempty"`
	// Arch is the architecture generation; it picks the fitted
	// kernel-efficiency curves (package costmodel/efficiency).
	Arch Arch `json:"arch,omitempty"`
	// SMs is the number of streaming multiprocessors (compute units on
	// AMD): the tiles of one kernel wave. Zero: not known.
	SMs int `json:"sms,omitempty"`
	// MemBandwidth is the HBM (or GDDR) bandwidth.
	MemBandwidth Bandwidth `json:"mem_bandwidth_bytes_per_s"`
	// ScaleUp is the per-direction bandwidth of one GPU into its
	// scale-up fabric (NVLink, Infinity Fabric, or PCIe where there is
	// none), and ScaleUpDomain the number of GPUs that fabric joins.
	ScaleUp       Bandwidth `json:"scale_up_bytes_per_s"`
	ScaleUpDomain int       `json:"scale_up_domain"`
	// ScaleOut is the per-direction network bandwidth per GPU between
	// domains (rail-optimized: one NIC per GPU). Zero: no standard NIC.
	ScaleOut Bandwidth `json:"scale_out_bytes_per_s"`
	// SustainedClock is the share of the datasheet tensor-core peak the
	// GPU sustains under full load at its power limit (the peak assumes a
	// boost clock it cannot hold); 0 means none is applied, the datasheet
	// peak. Only Hopper SXM carries one; every catalog part's
	// Sources["sustained_clock"] gives its measurement or why there is
	// none. A100 has no public figure under training load. B200 falls from
	// 1965 to about 1580 MHz (0.80) under back-to-back FlashAttention-4 at
	// about 1000 W (flashinfer-ai/flashinfer#2899), but it is not applied:
	// refitted with it, the dense Blackwell calibration rows turn 7-20%
	// slow and the fit's RMS log error rises from 10.2% to 12.2%, and the
	// term that would offset it is not found. The kernel curves of
	// costmodel/efficiency are fitted on short runs at the unthrottled
	// clock (AIConfigurator's collector/helper.py benchmark_with_power:
	// per shape 3 warm-ups for a GEMM, 10 for attention, then 6 CUDA-graph
	// replays), so this share is applied once, on top of them.
	SustainedClock float64 `json:"sustained_clock,omitempty"`
	// TDP is the board power at its default limit (the datasheet's
	// maximum TDP); 0 means not known, and no energy figure is given.
	TDP Watts `json:"tdp_watts,omitempty"`
	// Sources cites each figure, keyed by field.
	Sources map[string]string `json:"sources,omitempty"`
	// Notes carries caveats a user should see next to the figures.
	Notes string `json:"notes,omitempty"`
}

// Peak returns the dense tensor-core peak for the given compute precision.
// fp8 falls back to an error on GPUs without FP8 tensor cores; fp32
// training is assumed to run on TF32 tensor cores at half the BF16 rate,
// as on every NVIDIA datacenter GPU since Ampere (A100 datasheet: TF32
// 156 TFLOP/s dense against BF16 312).
func (g GPU) Peak(precision string) (FLOPRate, error) {
	switch precision {
	case "bf16", "fp16":
		return g.PeakBF16, nil
	case "fp8":
		if g.PeakFP8 == 0 {
			return 0, fmt.Errorf("hardware: %s has no FP8 tensor cores; use bf16", g.Name)
		}
		return g.PeakFP8, nil
	case "fp32":
		return g.PeakBF16 / 2, nil
	case "fp4":
		if g.PeakFP4 == 0 {
			return 0, fmt.Errorf("hardware: %s has no FP4 tensor cores; use fp8 or bf16", g.Name)
		}
		return g.PeakFP4, nil
	}
	return 0, fmt.Errorf("hardware: unknown compute precision %q (valid: bf16, fp16, fp8, fp4, fp32)", precision)
}

// Sustained is the share of the datasheet peak the GPU holds under load:
// SustainedClock, or 1 when it is not known.
func (g GPU) Sustained() float64 {
	if g.SustainedClock > 0 {
		return g.SustainedClock
	}
	return 1
}

// Validate reports the first field of g that is missing or not physical.
func (g GPU) Validate() error {
	switch {
	case g.Name == "":
		return errors.New("hardware: GPU has no name")
	case !(g.HBM > 0) || g.HBM > 100*TB:
		return fmt.Errorf("hardware: GPU %s: memory %v is not in (0, 100 TB]", g.Name, g.HBM)
	case !(g.PeakBF16 > 0) || g.PeakBF16 > 1e18:
		return fmt.Errorf("hardware: GPU %s: BF16 peak %v is not in (0, 1 EFLOP/s]", g.Name, g.PeakBF16)
	case g.PeakFP8 < 0 || g.PeakFP8 > 1e18:
		return fmt.Errorf("hardware: GPU %s: FP8 peak %v must be 0 (none) or positive", g.Name, g.PeakFP8)
	case !(g.MemBandwidth > 0) || g.MemBandwidth > 1e15:
		return fmt.Errorf("hardware: GPU %s: memory bandwidth %v is not in (0, 1 PB/s]", g.Name, g.MemBandwidth)
	case !(g.ScaleUp > 0) || g.ScaleUp > 1e14:
		return fmt.Errorf("hardware: GPU %s: scale-up bandwidth %v is not in (0, 100 TB/s]", g.Name, g.ScaleUp)
	case g.ScaleUpDomain < 1 || g.ScaleUpDomain > 1<<16:
		return fmt.Errorf("hardware: GPU %s: scale-up domain %d is not in [1, 65536]", g.Name, g.ScaleUpDomain)
	case !(g.SustainedClock >= 0 && g.SustainedClock <= 1):
		return fmt.Errorf("hardware: GPU %s: sustained clock %g is not in [0, 1]", g.Name, g.SustainedClock)
	case g.PeakMXFP8 < 0 || g.PeakMXFP8 > 1e18 || g.PeakFP4 < 0 || g.PeakFP4 > 1e18:
		return fmt.Errorf("hardware: GPU %s: MXFP8 peak %v and FP4 peak %v must be 0 (none) or positive", g.Name, g.PeakMXFP8, g.PeakFP4)
	case g.SMs < 0 || g.SMs > 1<<14:
		return fmt.Errorf("hardware: GPU %s: SM count %d is not in [0, 16384]", g.Name, g.SMs)
	case g.Arch < ArchUnknown || g.Arch > CDNA3:
		return fmt.Errorf("hardware: GPU %s: architecture %v is not one of %s", g.Name, g.Arch, strings.Join(archNames[1:], ", "))
	case !(g.TDP >= 0 && g.TDP <= 1e5):
		return fmt.Errorf("hardware: GPU %s: TDP %v must be 0 (not known) or in (0, 100 kW]", g.Name, g.TDP)
	case g.ScaleOut < 0 || g.ScaleOut > 1e14:
		return fmt.Errorf("hardware: GPU %s: scale-out bandwidth %v must be 0 (none) or positive", g.Name, g.ScaleOut)
	}
	return nil
}
