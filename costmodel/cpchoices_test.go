package costmodel

import "testing"

func TestValidCPList(t *testing.T) {
	for _, tt := range []struct {
		seq  int
		want string
	}{{4096, "1, 2, 4, 8, 16, 32, 64, ..."}, {24, "1, 2, 3, 4, 6, 12"}, {7, "1"}, {100, "1, 2, 5, 10, 25, 50"}} {
		if got := ValidCPList(tt.seq); got != tt.want {
			t.Errorf("seq %d: %q, want %q", tt.seq, got, tt.want)
		}
	}
}
