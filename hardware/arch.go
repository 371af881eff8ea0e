package hardware

import (
	"fmt"
	"strings"
)

// Arch is a GPU's architecture generation. It decides which tensor-core
// formats exist (FP8 from Ada and Hopper on, MXFP8 and NVFP4 on
// datacenter Blackwell) and which fitted kernel-efficiency curve applies.
// The zero value, ArchUnknown, is invalid for a catalog GPU and means
// "not given" in a user file.
type Arch int

// Architecture generations, oldest first.
const (
	ArchUnknown    Arch = iota
	Ampere              // A100 (SM80)
	Ada                 // L40S (SM89)
	Hopper              // H100, H200 (SM90)
	Blackwell           // B200, GB200 (SM100)
	BlackwellUltra      // B300, GB300 (SM103)
	CDNA3               // AMD MI300X
)

var archNames = [...]string{"unknown", "ampere", "ada", "hopper", "blackwell", "blackwell-ultra", "cdna3"}

// String returns the lower-case name used in files and on the command line.
func (a Arch) String() string {
	if a < 0 || int(a) >= len(archNames) {
		return fmt.Sprintf("Arch(%d)", int(a))
	}
	return archNames[a]
}

// ParseArch reads an architecture name, ignoring case.
func ParseArch(s string) (Arch, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for i, n := range archNames {
		if i > 0 && n == key {
			return Arch(i), nil
		}
	}
	return ArchUnknown, fmt.Errorf("hardware: unknown architecture %q (valid: %s)", s, strings.Join(archNames[1:], ", "))
}

// MarshalText writes the name.
func (a Arch) MarshalText() ([]byte, error) {
	if a <= ArchUnknown || int(a) >= len(archNames) {
		return []byte(archNames[0]), nil
	}
	return []byte(a.String()), nil
}

// UnmarshalText reads a name; "" and "unknown" give ArchUnknown.
func (a *Arch) UnmarshalText(b []byte) error {
	if s := strings.TrimSpace(string(b)); s == "" || s == archNames[0] {
		*a = ArchUnknown
		return nil
	}
	v, err := ParseArch(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
