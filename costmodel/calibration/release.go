package calibration

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// releaseInLocator and releaseInSource find a release in a row's locator ("release 26.08" in
// the Megatron-Bridge summaries, whose archive page lists older releases
// after the newer ones) or a version in its source id
// (nemo_perf_summary_25.04_gb200).
var (
	releaseInLocator = regexp.MustCompile(`release (\d+(?:\.\d+)*)`)
	releaseInSource  = regexp.MustCompile(`_(\d+\.\d+(?:\.\d+)*)`)
)

// release is the software release a row was measured with, as numbers
// (26.04.01 -> [26 4 1]); nil when the row names none.
func release(r Row) []int {
	m := releaseInLocator.FindStringSubmatch(r.Get("source_locator"))
	if m == nil {
		m = releaseInSource.FindStringSubmatch(r.Source())
	}
	if m == nil {
		return nil
	}
	var out []int
	for _, f := range strings.Split(m[1], ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// newer reports whether row a supersedes row b of the same experiment:
// a newer release, or the same release and a later row id. Releases
// compare field by field, a missing field before any (26.04 <
// 26.04.01), a row without one oldest (slices.Compare).
func newer(a, b Row) bool {
	if c := slices.Compare(release(a), release(b)); c != 0 {
		return c > 0
	}
	return a.ID() > b.ID()
}
