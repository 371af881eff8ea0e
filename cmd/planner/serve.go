package main

import (
	"fmt"
	"io"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
	"github.com/gpu-planner/planner/search"
)

// serveCmdFlags are the flags of `planner serve`.
type serveCmdFlags struct {
	model       string
	gpu         string
	gpus        int
	gpusPerNode int
	json        bool
	markdown    bool
	wide        bool
	top         int
	assume      assumptionFlags
	serve       serveFlags
	load        loadFlags
}

func runServe(args []string, stdout, stderr io.Writer) error {
	var f serveCmdFlags
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&f.model, "model", "", "model: a catalog name (planner models) or a Hugging Face config.json path")
	fs.StringVar(&f.gpu, "gpu", "h100-sxm", "GPU: a catalog name (planner gpus) or a GPU .json file")
	fs.IntVar(&f.gpus, "gpus", 0, "the layouts on exactly this many GPUs (default: find the fewest)")
	fs.IntVar(&f.gpusPerNode, "gpus-per-node", 0, "GPUs per node, the NVLink domain (default: the GPU's)")
	fs.BoolVar(&f.json, "json", false, "print JSON in raw base units (bytes, seconds)")
	fs.BoolVar(&f.markdown, "markdown", false, "print Markdown tables")
	fs.BoolVar(&f.wide, "wide", false, "text tables with every column (tokens/s per user, requests in flight, the alternatives' GPUs and headroom), past 100 columns")
	fs.IntVar(&f.top, "top", 8, "layouts to list (0: all)")
	f.assume.register(fs)
	f.serve.register(fs)
	f.load.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if set := setFlags(fs); loadMode(set) {
		return f.runServeLoad(set, stdout, stderr)
	}
	q, err := f.query()
	if err != nil {
		return err
	}
	if q.Load.Context > q.Model.MaxSeq {
		fmt.Fprintf(stderr, "planner serve: warning: --context %d exceeds %s's maximum of %d tokens (max_position_embeddings); the model was not trained that long\n",
			q.Load.Context, q.Model.Name, q.Model.MaxSeq)
	}
	r, err := search.Serve(q)
	if err != nil {
		return badInput(err)
	}
	return f.writeServeAnswer(stdout, r, r.Best() != nil, func(s tableStyle) { writeServeResult(stdout, q, r, f.top, s) })
}

// textStyle is the text layout --wide asks for.
func (f *serveCmdFlags) textStyle() tableStyle {
	if f.wide {
		return wideStyle
	}
	return textStyle
}

// query turns the flags into a search query.
func (f *serveCmdFlags) query() (search.ServeQuery, error) {
	var q search.ServeQuery
	if f.json && f.markdown {
		return q, badInputf("--json and --markdown exclude each other; choose one")
	}
	if f.top < 0 || f.top > hardware.MaxTop {
		return q, badInputf("--top %d is not in [0, %d] (0 lists all layouts)", f.top, hardware.MaxTop)
	}
	if f.gpus < 0 || f.gpusPerNode < 0 {
		return q, badInputf("--gpus %d and --gpus-per-node %d must not be negative", f.gpus, f.gpusPerNode)
	}
	m, err := loadModel(f.model)
	if err != nil {
		return q, err
	}
	g, err := loadGPU(f.gpu)
	if err != nil {
		return q, badInput(err)
	}
	load, err := f.serve.load(m)
	if err != nil {
		return q, err
	}
	a, err := f.assume.resolve()
	if err != nil {
		return q, err
	}
	if a, err = f.serve.speed.apply(a); err != nil {
		return q, err
	}
	if f.gpus > hardware.MaxGPUs {
		return q, badInputf("--gpus %d is not in [1, %d]", f.gpus, hardware.MaxGPUs)
	}
	return search.ServeQuery{Model: m, GPU: g, GPUsPerNode: f.gpusPerNode, GPUs: f.gpus, Load: load, Assumptions: a}, nil
}

// describeLoad is "16 users x 8192 tokens; weights bf16, KV cache bf16
// in 16-token blocks".
func describeLoad(s costmodel.ServePlan) string {
	blocks := "contiguous"
	if s.BlockTokens > 0 {
		blocks = fmt.Sprintf("in %d-token blocks", s.BlockTokens)
	}
	return fmt.Sprintf("%s x %d tokens; weights %s, KV cache %s %s",
		plural(s.Users, "user", "users"), s.Context, s.Weights, s.KV, blocks)
}

// describeGPU is the serving view of a GPU: memory, bandwidth, peak and
// links.
func describeGPU(g hardware.GPU, perNode int) string {
	return fmt.Sprintf("%s: %v HBM (driver-reported) at %v, %v bf16 dense; nodes of %d joined by %v per direction (NVLink or the GPU's scale-up fabric)",
		g.Name, g.HBM, g.MemBandwidth, g.PeakBF16, perNode, g.ScaleUp)
}
