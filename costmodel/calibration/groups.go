package calibration

import (
	"slices"
	"strings"
)

// Group is the summary of one source on one GPU generation in one
// format: the unit the accuracy targets are set on.
type Group struct {
	Source     string `json:"source"`
	Generation string `json:"gpu_generation"`
	Format     string `json:"format"`
	Summary
}

// generation names the architecture of a catalog GPU.
func generation(gpu string) string {
	switch {
	case strings.HasPrefix(gpu, "a100"):
		return "Ampere"
	case strings.HasPrefix(gpu, "h100"), strings.HasPrefix(gpu, "h200"):
		return "Hopper"
	case strings.HasPrefix(gpu, "b"), strings.HasPrefix(gpu, "gb"):
		return "Blackwell"
	case strings.HasPrefix(gpu, "mi"):
		return "CDNA3"
	}
	return gpu
}

// groups summarizes results per source x GPU generation x format,
// sorted by those three keys. A LoRA row's format names its task
// ("fp8-cs lora"): a frozen base is another workload than pre-training
// in the same format.
func groups(results []Result) []Group {
	type key struct{ src, gen, format string }
	by := map[key][]Result{}
	for _, r := range results {
		format := r.Plan.Precision.String()
		if r.Plan.Task.Adapted() {
			format += " " + r.Plan.Task.String()
		}
		k := key{r.Row.Source(), generation(r.Cluster.GPU.Name), format}
		by[k] = append(by[k], r)
	}
	var out []Group
	for k, rs := range by {
		out = append(out, Group{Source: k.src, Generation: k.gen, Format: k.format,
			Summary: summarize(k.src+" "+k.gen+" "+k.format, rs)})
	}
	slices.SortFunc(out, func(a, b Group) int {
		return strings.Compare(a.Source+"|"+a.Generation+"|"+a.Format, b.Source+"|"+b.Generation+"|"+b.Format)
	})
	return out
}

// Coverage is how many compared rows back one GPU and format, and
// their error: what an estimate on that GPU and format can claim.
type Coverage struct {
	GPU    string `json:"gpu"`
	Format string `json:"format"`
	Summary
}

// CoverageTable summarizes results per catalog GPU and format, sorted.
func CoverageTable(results []Result) []Coverage {
	by := map[[2]string][]Result{}
	for _, r := range results {
		k := [2]string{r.Cluster.GPU.Name, r.Plan.Precision.String()}
		by[k] = append(by[k], r)
	}
	var out []Coverage
	for k, rs := range by {
		out = append(out, Coverage{GPU: k[0], Format: k[1], Summary: summarize(k[0]+" "+k[1], rs)})
	}
	slices.SortFunc(out, func(a, b Coverage) int { return strings.Compare(a.GPU+"|"+a.Format, b.GPU+"|"+b.Format) })
	return out
}
