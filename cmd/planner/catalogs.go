package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

func runModels(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("models", stderr)
	asJSON := fs.Bool("json", false, "print the catalog as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	models := costmodel.Models()
	if *asJSON {
		type entry struct {
			*costmodel.Model
			Params costmodel.Params `json:"params"`
		}
		out := make([]entry, len(models))
		for i, m := range models {
			out[i] = entry{m, m.Params()}
		}
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%-16s %-11s %10s %10s %6s %6s %9s %6s %8s %8s\n",
		"NAME", "FAMILY", "PARAMS", "ACTIVE", "LAYERS", "HIDDEN", "HEADS/KV", "FFN", "VOCAB", "MAX SEQ")
	for _, m := range models {
		p := m.Params()
		fmt.Fprintf(stdout, "%-16s %-11s %10s %10s %6d %6d %9s %6d %8d %8d\n",
			m.Name, m.Family, costmodel.FormatCount(p.Total), costmodel.FormatCount(p.Active), m.Layers, m.Hidden,
			fmt.Sprintf("%d/%d", m.Heads, m.KVHeads), ffnOf(m), m.Vocab, m.MaxSeq)
	}
	fmt.Fprintf(stdout, "\n%s\n", wrapText("aliases: llama3-8b, llama3-70b, llama3-405b (= llama3.1-*), gpt3; --model also takes a config.json path", textWidth, "  "))
	return nil
}

// ffnOf is the MLP width a table shows: the routed experts' for MoE.
func ffnOf(m *costmodel.Model) int {
	if m.MoE != nil && m.MoELayers() > 0 {
		return m.MoE.ExpertFFN
	}
	return m.FFN
}

func runGPUs(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpus", stderr)
	asJSON := fs.Bool("json", false, "print the catalog as JSON, with a source for every figure")
	sources := fs.Bool("sources", false, "print the source of every figure")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	gpus := hardware.GPUs()
	if *asJSON {
		return writeJSON(stdout, gpus)
	}
	qw := len("QUOTED") // the quoted capacity's column, as wide as its longest
	for _, g := range gpus {
		q, _, _ := cutFirst(g.HBMQuoted)
		qw = max(qw, len(q))
	}
	fmt.Fprintf(stdout, "%-10s %-8s %-*s %12s %12s %9s %12s %6s %13s\n",
		"NAME", "HBM", qw, "QUOTED", "BF16 DENSE", "FP8 DENSE", "HBM BW", "SCALE-UP/DIR", "DOMAIN", "SCALE-OUT/DIR")
	for _, g := range gpus {
		fp8 := "-"
		if g.PeakFP8 > 0 {
			fp8 = g.PeakFP8.String()
		}
		out := "-"
		if g.ScaleOut > 0 {
			out = g.ScaleOut.String()
		}
		quoted, _, _ := cutFirst(g.HBMQuoted)
		fmt.Fprintf(stdout, "%-10s %-8v %-*s %12v %12s %9v %12v %6d %13s\n",
			g.Name, g.HBM, qw, quoted, g.PeakBF16, fp8, g.MemBandwidth, g.ScaleUp, g.ScaleUpDomain, out)
		if *sources {
			for _, k := range []string{"hbm_bytes", "hbm_quoted", "peak", "mem_bandwidth", "scale_up", "scale_out"} {
				fmt.Fprintf(stdout, "    %-13s %s\n", k, wrapText(g.Sources[k], textWidth, srcIndent))
			}
			if c := clockSource(g); c != "" {
				fmt.Fprintf(stdout, "    %-13s %s\n", "clock", wrapText(c, textWidth, srcIndent))
			}
			if g.TDP > 0 {
				fmt.Fprintf(stdout, "    %-13s %s\n", "tdp", wrapText(fmt.Sprintf("%v: %s", g.TDP, g.Sources["tdp"]), textWidth, srcIndent))
			}
			if g.Notes != "" {
				fmt.Fprintf(stdout, "    %-13s %s\n", "note", wrapText(g.Notes, textWidth, srcIndent))
			}
		}
	}
	fmt.Fprintln(stdout, "\nHBM is the driver-reported total (nvidia-smi/rocm-smi) in decimal GB; bandwidths are per direction.")
	fmt.Fprintln(stdout, "A custom GPU: --gpu file.json with keys hbm_mib (or hbm_gib/hbm_gb), bf16_tflops, fp8_tflops,")
	fmt.Fprintln(stdout, "mem_bandwidth_gb_per_s, scale_up_gb_per_s_per_direction, scale_up_domain, scale_out_gbit_per_s.")
	return nil
}

// srcIndent is where a GPU's source lines wrap to, under their text.
var srcIndent = strings.Repeat(" ", 18)

// cutFirst keeps the leading "80 GB" of a quoted capacity like
// "80 GB HBM3".
func cutFirst(s string) (string, string, bool) {
	n := 0
	for i, r := range s {
		if r == ' ' {
			n++
			if n == 2 {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}

// clockSource says what share of its datasheet peak g is priced at under
// load and why: the sustained share with its measurement, or the peak
// itself with the reason no share is applied.
func clockSource(g hardware.GPU) string {
	why := g.Sources["sustained_clock"]
	switch {
	case g.SustainedClock > 0:
		return fmt.Sprintf("%.0f%% of the datasheet peak under load: %s", 100*g.SustainedClock, why)
	case why != "":
		return "the datasheet peak (no sustained share applied): " + why
	}
	return ""
}
