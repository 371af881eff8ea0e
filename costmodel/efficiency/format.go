package efficiency

import (
	"fmt"
	"strings"
)

// Format is a GEMM's input format: it sets the tensor-core peak, the bytes
// per element and the scaling work around the product. The zero value is
// invalid, so a forgotten format is caught rather than read as BF16.
type Format int

// Formats. The names follow NVIDIA Transformer Engine's recipes
// (nvidia.github.io/TransformerEngine, "Datatype and hardware support
// matrix") and the DeepSeek-V3 report (arXiv:2412.19437, sec. 3.3.2).
const (
	invalidFormat Format = iota
	// BF16 is bfloat16 (fp16 runs at the same rate).
	BF16
	// FP8 is e4m3/e5m2 with one scale per tensor (delayed or current
	// scaling).
	FP8
	// FP8Row is FP8 with one scale per row of the activation and per
	// column of the weight.
	FP8Row
	// FP8Block is FP8 with 1x128 activation and 128x128 weight block
	// scales (DeepSeek-V3, DeepGEMM).
	FP8Block
	// MXFP8 is the OCP microscaling FP8: one power-of-two scale per 32
	// elements, applied by Blackwell's tensor cores.
	MXFP8
	// NVFP4 is 4-bit e2m1 with an FP8 scale per 16 elements (Blackwell).
	NVFP4
)

var formatNames = [...]string{"invalid", "bf16", "fp8", "fp8-row", "fp8-block", "mxfp8", "nvfp4"}

// formatAliases are other spellings: fp16 runs as bf16; the underscore
// names are the calibration data's dtype column.
var formatAliases = map[string]Format{"fp16": BF16, "bfloat16": BF16, "fp8_row": FP8Row, "fp8_block": FP8Block}

// String returns the name ParseFormat reads.
func (f Format) String() string {
	if f <= invalidFormat || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat reads a format name, ignoring case.
func ParseFormat(s string) (Format, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for i := 1; i < len(formatNames); i++ {
		if formatNames[i] == key {
			return Format(i), nil
		}
	}
	if f, ok := formatAliases[key]; ok {
		return f, nil
	}
	return invalidFormat, fmt.Errorf("efficiency: unknown format %q (valid: %s; fp16 is read as bf16)",
		s, strings.Join(formatNames[1:], ", "))
}

// MarshalText writes the name; the invalid zero value is an error.
func (f Format) MarshalText() ([]byte, error) {
	if f <= invalidFormat || int(f) >= len(formatNames) {
		return nil, fmt.Errorf("efficiency: cannot marshal invalid format %d (valid: %s)", int(f), strings.Join(formatNames[1:], ", "))
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads a name.
func (f *Format) UnmarshalText(b []byte) error {
	v, err := ParseFormat(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// inputBytes is the bytes of one input element: 2 for bf16, 1 for the FP8
// formats, 0.5 for NVFP4 (scales are under 7% more and left out).
func (f Format) inputBytes() float64 {
	switch f {
	case BF16:
		return 2
	case NVFP4:
		return 0.5
	}
	return 1
}
