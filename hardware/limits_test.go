package hardware

import (
	"strings"
	"testing"
)

func TestMulCount(t *testing.T) {
	for _, tt := range []struct {
		in   []int
		want int
		ok   bool
	}{
		{[]int{8, 16}, 128, true},
		{[]int{1 << 10, 1 << 10}, MaxGPUs, true},
		{[]int{1 << 10, 1<<10 + 1}, 0, false},
		{[]int{2305843009213693953, 8}, 0, false}, // wraps to 8 unchecked
		{[]int{-1, 8}, 0, false},
	} {
		if got, ok := MulCount(tt.in...); got != tt.want || ok != tt.ok {
			t.Errorf("MulCount(%v) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNewClusterOverflow(t *testing.T) {
	g, _ := LookupGPU("h100-sxm")
	if _, err := NewCluster(g, 8, 2305843009213693953); err == nil || !strings.Contains(err.Error(), "2305843009213693953 nodes") {
		t.Errorf("NewCluster with wrapping nodes: %v", err)
	}
}

// TestHugeQuantities: a quantity beyond the largest prefix prints with an
// exponent, never as hundreds of digits.
func TestHugeQuantities(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{Bytes(1e300).String(), "1e+282 EB"},
		{Bytes(1.05e300 * 1e6).String(), "1.05e+288 EB"},
		{Bytes(2.5e20).String(), "250 EB"},
		{Seconds(1e300).String(), "1e+300 s"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	g, _ := LookupGPU("h100-sxm")
	c, _ := NewCluster(g, 1, 1)
	for _, tt := range []struct{ got, want string }{
		{Plural(1, "micro-batch", "micro-batches"), "1 micro-batch"},
		{Plural(0, "GPU", "GPUs"), "0 GPUs"},
		{Plural(2, "communicator", "communicators"), "2 communicators"},
		{c.String(), "1 x 1 h100-sxm (1 GPU)"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
