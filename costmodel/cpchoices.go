package costmodel

import (
	"strconv"
	"strings"
)

// ValidCP lists the context-parallel degrees up to limit that split seq
// tokens into 2*cp equal chunks, Megatron-Core's load-balanced causal
// split: 1, and every cp with seq divisible by 2*cp.
func ValidCP(seq, limit int) []int {
	out := []int{1}
	for cp := 2; cp <= limit && 2*cp <= seq; cp++ {
		if seq%(2*cp) == 0 {
			out = append(out, cp)
		}
	}
	return out
}

// ValidCPList writes the first valid degrees of ValidCP for error
// messages, e.g. "1, 2, 4, 8, 16, 32, 64, ...".
func ValidCPList(seq int) string {
	const shown = 64
	vals := ValidCP(seq, shown)
	s := make([]string, 0, len(vals)+1)
	for _, v := range vals {
		s = append(s, strconv.Itoa(v))
	}
	if seq%2 == 0 && seq/2 > shown { // seq/2 always splits an even seq
		s = append(s, "...")
	}
	return strings.Join(s, ", ")
}
