package hardware

import (
	"strings"
	"testing"
)

func TestReadAllLimit(t *testing.T) {
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", MaxFileBytes+1)), "the file"); err == nil || !strings.Contains(err.Error(), "4 MiB limit") {
		t.Errorf("ReadAll over the limit: %v", err)
	}
	if b, err := ReadAll(strings.NewReader("ok"), "the file"); err != nil || string(b) != "ok" {
		t.Errorf("ReadAll: %q, %v", b, err)
	}
}
