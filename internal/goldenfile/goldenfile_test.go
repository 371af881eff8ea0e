package goldenfile

import "testing"

func TestDiffLines(t *testing.T) {
	for _, tt := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\n", "a\nc\n", "- b\n+ c\n"},
		{"a\n", "a\nb\n", "- \n+ b\n"},
	} {
		if d := diffLines(tt.want, tt.got); d != tt.diff {
			t.Errorf("diffLines(%q, %q) = %q, want %q", tt.want, tt.got, d, tt.diff)
		}
	}
}
