package efficiency

import (
	"fmt"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// formatsOf lists the formats an architecture's tensor cores run, after
// Transformer Engine's support matrix (FP8 from Ada and Hopper, block
// scaling from Hopper in software, MXFP8 and NVFP4 on datacenter
// Blackwell) and the formats the calibration data measures on Ada
// (TRT-LLM's fp8_block CUTLASS kernels on SM89). CDNA3 runs FP8 (MI300X
// datasheet).
func formatsOf(a hardware.Arch) []Format {
	switch a {
	case hardware.Ampere:
		return []Format{BF16}
	case hardware.Ada, hardware.Hopper:
		return []Format{BF16, FP8, FP8Row, FP8Block}
	case hardware.Blackwell, hardware.BlackwellUltra:
		return []Format{BF16, FP8, FP8Row, FP8Block, MXFP8, NVFP4}
	case hardware.CDNA3:
		return []Format{BF16, FP8, FP8Row}
	}
	return nil
}

// checkFormat reports whether g runs f, naming both and the valid formats.
func checkFormat(g hardware.GPU, f Format) error {
	if g.Arch == hardware.ArchUnknown {
		return fmt.Errorf("efficiency: GPU %s has no architecture (set arch: one of ampere, ada, hopper, blackwell, blackwell-ultra, cdna3)", g.Name)
	}
	if g.SMs <= 0 {
		return fmt.Errorf("efficiency: GPU %s has no SM count (set sms)", g.Name)
	}
	valid := formatsOf(g.Arch)
	for _, v := range valid {
		if v == f {
			return nil
		}
	}
	names := make([]string, len(valid))
	for i, v := range valid {
		names[i] = v.String()
	}
	return fmt.Errorf("efficiency: %s (%v) has no %v tensor cores (valid: %s)", g.Name, g.Arch, f, strings.Join(names, ", "))
}

// peakOf is the dense datasheet peak of f on g: BF16, FP8 for the FP8
// formats, MXFP8 (the FP8 rate where the catalog leaves it 0), FP4.
func peakOf(g hardware.GPU, f Format) float64 {
	switch f {
	case BF16:
		return float64(g.PeakBF16)
	case MXFP8:
		if g.PeakMXFP8 > 0 {
			return float64(g.PeakMXFP8)
		}
	case NVFP4:
		return float64(g.PeakFP4)
	}
	return float64(g.PeakFP8)
}

// tileOf is the output tile one SM computes: 128x128 on every
// generation. Fitting every GPU and format with 64x128, 128x64, 128x128,
// 64x256, 128x256, 256x128 and 256x256 tiles, 128x128 gave the lowest or
// within 0.01 of the lowest median error everywhere (Hopper bf16: 6.7%
// against 9.5% for 128x256, 15.3% for 256x256), so one tile serves all;
// a per-generation tile would be a fitted knob that buys nothing.
func tileOf(hardware.Arch) (m, n float64) {
	return 128, 128
}

// quantBytesOf is the bytes per activation element the format's
// activation quantization moves: FP8 per-tensor current scaling reads the
// bf16 input twice (amax, then cast) and writes 1 byte: 5; row and block
// scaling fuse the scale into the cast: 2 + 1 = 3; NVFP4 reads 2 and
// writes half a byte: 2.5.
func quantBytesOf(f Format) float64 {
	switch f {
	case BF16:
		return 0
	case FP8:
		return 5
	case NVFP4:
		return 2.5
	}
	return 3
}

// baseGEMM is g's curve for f before the fitted parameters: its peak,
// bandwidth, SMs, tiles and element sizes.
func baseGEMM(g hardware.GPU, f Format) GEMM {
	tm, tn := tileOf(g.Arch)
	return GEMM{
		TileM: tm, TileN: tn, SMs: float64(g.SMs),
		Peak: peakOf(g, f), HBM: float64(g.MemBandwidth),
		InBytes: f.inputBytes(), OutBytes: 2, QuantBytes: quantBytesOf(f),
	}
}
