package hardware

import (
	"fmt"
	"io"
)

// The bounds on every count and size the planner accepts, in one place.
// Each is far beyond any real input, and small enough that the products
// the planner forms from them stay far from integer overflow.
const (
	// MaxGPUs bounds cluster sizes and parallel degrees: a million GPUs is
	// beyond any cluster built.
	MaxGPUs = 1 << 20
	// MaxTop bounds how many plans or layouts a search ranks and prints.
	MaxTop = 1000
	// MaxFileBytes bounds every input file the planner reads (config.json,
	// GPU and cluster files, calibration CSV): the largest shipped one is
	// a few kilobytes.
	MaxFileBytes = 4 << 20
)

// MulCount multiplies counts and reports whether every factor and the
// product lie in [0, MaxGPUs]; it never overflows.
func MulCount(factors ...int) (int, bool) {
	p := 1
	for _, f := range factors {
		if f < 0 || f > MaxGPUs {
			return 0, false
		}
		p *= f
		if p > MaxGPUs {
			return 0, false
		}
	}
	return p, true
}

// ReadAll reads r to its end, or fails with an error that names what
// (e.g. "config.json llama") and the limit when r holds more than
// MaxFileBytes.
func ReadAll(r io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than the %d MiB limit on input files", what, MaxFileBytes>>20)
	}
	return b, nil
}

// Plural writes a count with its noun: "1 GPU", "8 GPUs".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
