// Package hardware describes GPUs and clusters and the physical units the
// planner computes in.
//
// Quantities are named float64 types in base units (bytes, FLOPs, FLOP/s,
// bytes per second, seconds), so mixing them does not compile. Constants read
// like the time package: 80 * hardware.GiB, 989 * hardware.TFLOPPerSecond.
//
// One display rule applies to every quantity shown to a person: decimal SI
// prefixes (kB, MB, GB, TB; GFLOP/s, TFLOP/s; GB/s) with three significant
// digits. Capacities are therefore printed in decimal gigabytes (1 GB = 10^9
// bytes), the unit vendors use on datasheets; binary units (GiB) are only
// constants for input. Machine output (JSON, CSV) carries raw base units, with
// bytes as integers.
package hardware

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bytes is an amount of memory or data in bytes. Fractional values occur in
// intermediate results (0.5 bytes per int4 parameter) and are rounded only
// when marshalled.
type Bytes float64

// Byte multiples: decimal (vendor datasheets) and binary (drivers, allocators).
const (
	Byte Bytes = 1
	KB   Bytes = 1e3
	MB   Bytes = 1e6
	GB   Bytes = 1e9
	TB   Bytes = 1e12
	KiB  Bytes = 1 << 10
	MiB  Bytes = 1 << 20
	GiB  Bytes = 1 << 30
	TiB  Bytes = 1 << 40
)

// FLOPs is a count of floating-point operations.
type FLOPs float64

// FLOPRate is a rate of floating-point operations, in FLOP/s.
type FLOPRate float64

// TFLOPPerSecond is 10^12 FLOP/s, the unit datasheets quote peaks in.
const TFLOPPerSecond FLOPRate = 1e12

// Bandwidth is a data rate in bytes per second.
type Bandwidth float64

// Bandwidth multiples. GbitPerSecond converts network line rates (400 Gb/s NICs).
const (
	GBPerSecond   Bandwidth = 1e9
	TBPerSecond   Bandwidth = 1e12
	GbitPerSecond Bandwidth = 1e9 / 8
)

// Seconds is a duration in seconds. It is a float rather than time.Duration
// because step times are model outputs that are multiplied and divided freely.
type Seconds float64

// String formats b with the display rule, e.g. "16.1 GB".
func (b Bytes) String() string { return siFormat(float64(b), "B") }

// String formats f, e.g. "3.15 PFLOP".
func (f FLOPs) String() string { return siFormat(float64(f), "FLOP") }

// String formats r, e.g. "989 TFLOP/s".
func (r FLOPRate) String() string { return siFormat(float64(r), "FLOP/s") }

// String formats bw, e.g. "450 GB/s".
func (bw Bandwidth) String() string { return siFormat(float64(bw), "B/s") }

// String formats s in s, ms or µs with three significant digits.
func (s Seconds) String() string {
	v := float64(s)
	switch a := math.Abs(v); {
	case a == 0 || a >= 1:
		return sig3(v) + " s"
	case a >= 1e-3:
		return sig3(v*1e3) + " ms"
	default:
		return sig3(v*1e6) + " µs"
	}
}

// MarshalJSON writes bytes as an integer number of bytes.
func (b Bytes) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(b)) || math.IsInf(float64(b), 0) {
		return nil, fmt.Errorf("hardware: cannot marshal %v bytes", float64(b))
	}
	return strconv.AppendFloat(nil, math.Round(float64(b)), 'f', 0, 64), nil
}

// Number formats a plain count or rate (tokens/s, users) with the display
// rule: "164", "31.4 k", "2.05 M".
func Number(v float64) string { return strings.TrimSuffix(siFormat(v, ""), " ") }

// Thousands writes n exactly, with comma separators: "64,512". Tables
// that rank plans or count candidates print exact figures, where the
// three significant digits of Number would hide the differences that
// order the rows.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Grouped writes a rate for the same tables: whole units with comma
// separators from 100 up ("2,304,866"), one decimal below ("91.0").
func Grouped(v float64) string {
	if math.Abs(v) < 99.95 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return Thousands(int(math.Round(v)))
}

// GB returns b in decimal gigabytes, for tables that keep one fixed unit.
func (b Bytes) GB() float64 { return float64(b) / float64(GB) }

var siPrefixes = []struct {
	scale  float64
	prefix string
}{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}

// siFormat applies the display rule: the largest decimal prefix that keeps
// the mantissa at or above 1, and three significant digits.
func siFormat(v float64, unit string) string {
	a := math.Abs(v)
	for _, p := range siPrefixes {
		// 999.5 of a smaller prefix would round to "1000": move up early.
		if a >= p.scale*0.9995 {
			return sig3(v/p.scale) + " " + p.prefix + unit
		}
	}
	return sig3(v) + " " + unit
}

// sig3 prints v with three significant digits, without an exponent up to
// a million (beyond the largest prefix, "1.05e+300"; never 300 digits).
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 999_999.5 || math.IsNaN(v):
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 99.95:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.9995:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}
