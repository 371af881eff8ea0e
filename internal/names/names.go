// Package names normalizes catalog names and suggests the closest matches
// for a name that is not in a catalog.
package names

import (
	"slices"
	"strings"
)

// Normalize folds case and treats '_', ' ' and '.' like '-', so that
// "Llama3.1_70B" and "llama3-1-70b" compare equal.
func Normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', ' ', '.':
			return '-'
		}
		return r
	}, s)
}

// Closest returns up to n candidates ordered by edit distance to name (ties
// by name), keeping only those within half the longer string's length, or
// that contain name or are contained in it.
func Closest(name string, candidates []string, n int) []string {
	key := Normalize(name)
	type scored struct {
		name string
		dist int
	}
	var all []scored
	for _, c := range candidates {
		nc := Normalize(c)
		d := distance(key, nc)
		related := key != "" && (strings.Contains(nc, key) || strings.Contains(key, nc))
		if related {
			d = min(d, 1)
		}
		if related || 2*d <= max(len(key), len(nc)) {
			all = append(all, scored{c, d})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, n)
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
