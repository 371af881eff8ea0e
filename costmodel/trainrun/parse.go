package trainrun

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-planner/planner/hardware"
)

// ParseTokens reads a token count: "15e12", "15000000000000", or with a
// suffix K, M, B (or G) or T (powers of 1000): "15T", "15.6t", "300B".
func ParseTokens(s string) (float64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	if n := len(t); n > 0 {
		switch strings.ToUpper(t[n-1:]) {
		case "K":
			mult = 1e3
		case "M":
			mult = 1e6
		case "B", "G":
			mult = 1e9
		case "T":
			mult = 1e12
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult > 1e18 {
		return 0, fmt.Errorf("trainrun: tokens %q is not a positive count up to 1e18 (want e.g. 15e12, 15T, 300B)", s)
	}
	return v * mult, nil
}

// ParseDuration reads a deadline: a number of days ("90d"), weeks
// ("12w") or hours ("2000h"), or any Go duration ("36h30m").
func ParseDuration(s string) (hardware.Seconds, error) {
	t := strings.TrimSpace(s)
	bad := fmt.Errorf("trainrun: duration %q is not positive (want e.g. 90d, 12w, 2000h)", s)
	for suffix, unit := range map[string]float64{"d": 86400, "w": 7 * 86400} {
		if v, ok := strings.CutSuffix(t, suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0) {
				return 0, bad
			}
			return hardware.Seconds(f * unit), nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, bad
	}
	return hardware.Seconds(d.Seconds()), nil
}
