package names

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	cands := []string{"llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "mistral-7b", "mixtral-8x7b"}
	if got := Closest("llama3-70", cands, 2); !slices.Equal(got, []string{"llama3.1-70b", "llama3.1-8b"}) {
		t.Errorf("got %v", got)
	}
	if got := Closest("mistrel", cands, 1); !slices.Equal(got, []string{"mistral-7b"}) {
		t.Errorf("got %v", got)
	}
	if got := Closest("zzzzzzzzzz", cands, 3); len(got) != 0 {
		t.Errorf("unrelated name matched %v", got)
	}
}

func TestNormalize(t *testing.T) {
	if Normalize(" Llama3.1_70B ") != "llama3-1-70b" {
		t.Error(Normalize(" Llama3.1_70B "))
	}
}
