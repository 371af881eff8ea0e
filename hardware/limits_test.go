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
