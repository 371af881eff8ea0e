package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("planner "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and rejects positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseQuietly(fs, args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return badInput(err)
	}
	if fs.NArg() > 0 {
		return badInputf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	return nil
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// clusterFlags select the hardware.
type clusterFlags struct {
	gpu         string
	cluster     string
	gpus        int
	nodes       int
	gpusPerNode int
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.gpu, "gpu", "h100-sxm", "GPU: a catalog name (planner gpus) or a GPU .json file")
	fs.StringVar(&c.cluster, "cluster", "", "cluster .json file: {\"gpu\": ..., \"gpus_per_node\": 8, \"nodes\": 16} (instead of --gpu, --gpus, --nodes, --gpus-per-node)")
	fs.IntVar(&c.gpus, "gpus", 0, "total GPUs (default: the plan's tp*pp*cp*dp)")
	fs.IntVar(&c.nodes, "nodes", 0, "nodes (alternative to --gpus)")
	fs.IntVar(&c.gpusPerNode, "gpus-per-node", 0, "GPUs per node, the NVLink domain (default: the GPU's domain, 72 for gb200)")
}

// resolve builds the cluster; planGPUs is the plan's GPU count, used when
// neither --gpus nor --nodes is given.
func (c *clusterFlags) resolve(planGPUs int) (hardware.Cluster, error) {
	if c.cluster != "" {
		f, err := os.Open(c.cluster)
		if err != nil {
			return hardware.Cluster{}, badInput(err)
		}
		defer f.Close()
		cl, err := hardware.ParseCluster(f)
		return cl, badInput(err)
	}
	g, err := loadGPU(c.gpu)
	if err != nil {
		return hardware.Cluster{}, badInput(err)
	}
	if c.nodes < 0 || c.gpus < 0 || c.gpusPerNode < 0 {
		return hardware.Cluster{}, badInputf("--gpus %d, --nodes %d and --gpus-per-node %d must not be negative", c.gpus, c.nodes, c.gpusPerNode)
	}
	if c.nodes > 0 {
		cl, err := hardware.NewCluster(g, c.gpusPerNode, c.nodes)
		if err == nil && c.gpus > 0 && c.gpus != cl.GPUs() {
			err = fmt.Errorf("--gpus %d disagrees with --nodes %d x %d GPUs per node", c.gpus, c.nodes, cl.GPUsPerNode)
		}
		return cl, badInput(err)
	}
	n := c.gpus
	if n == 0 {
		n = planGPUs
	}
	cl, err := hardware.ClusterForGPUs(g, n, c.gpusPerNode)
	return cl, badInput(err)
}

// totalGPUs is the GPU count the flags name, or 0 when they leave it to
// the plan.
func (c *clusterFlags) totalGPUs() int {
	switch {
	case c.cluster != "":
		cl, err := c.resolve(0)
		if err != nil {
			return 0
		}
		return cl.GPUs()
	case c.nodes > 0:
		per := c.gpusPerNode
		if per == 0 {
			if g, err := loadGPU(c.gpu); err == nil {
				per = g.ScaleUpDomain
			}
		}
		n, _ := hardware.MulCount(c.nodes, per)
		return n // 0 when out of range: resolve names the bad count
	}
	return c.gpus
}

// isFile reports whether spec names a JSON file rather than a catalog entry.
func isFile(spec string) bool {
	return strings.HasSuffix(strings.ToLower(spec), ".json") || strings.ContainsRune(spec, os.PathSeparator)
}

func loadGPU(spec string) (hardware.GPU, error) {
	if !isFile(spec) {
		return hardware.LookupGPU(spec)
	}
	f, err := os.Open(spec)
	if err != nil {
		return hardware.GPU{}, err
	}
	defer f.Close()
	return hardware.ParseGPU(f)
}

// loadModel reads a catalog model or a Hugging Face config.json.
func loadModel(spec string) (*costmodel.Model, error) {
	if spec == "" {
		return nil, badInputf("--model is required (a catalog name, see planner models, a config.json path or a Hugging Face id such as meta-llama/Llama-3.1-70B)")
	}
	if isHubID(spec) {
		return loadHubModel(spec)
	}
	if !isFile(spec) {
		m, err := costmodel.LookupModel(spec)
		return m, badInput(err)
	}
	f, err := os.Open(spec)
	if err != nil {
		return nil, badInput(err)
	}
	defer f.Close()
	name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
	if name == "config" {
		name = filepath.Base(filepath.Dir(spec))
	}
	m, err := costmodel.ParseHFConfig(f, name)
	return m, badInput(err)
}

// assumptionFlags override costmodel.DefaultAssumptions.
type assumptionFlags struct {
	a        costmodel.Assumptions
	ctxGB    float64
	ncclMiB  float64
	trainWS  float64
	serveWS  float64
	gradFP32 bool
}

func (f *assumptionFlags) register(fs *flag.FlagSet) {
	d := costmodel.DefaultAssumptions()
	f.a = d
	fs.Float64Var(&f.a.HBMFraction, "hbm-fraction", d.HBMFraction, "share of the driver-reported HBM a plan may use")
	fs.Float64Var(&f.a.Fragmentation, "fragmentation", d.Fragmentation, "allocator fragmentation, as a fraction of allocated tensors")
	fs.Float64Var(&f.ctxGB, "cuda-context-gb", d.CUDAContext.GB(), "CUDA context per process, GB")
	fs.Float64Var(&f.ncclMiB, "nccl-mib", float64(d.NCCLPerGroup/hardware.MiB), "NCCL buffers per communicator, MiB")
	fs.BoolVar(&f.a.NCCLByTier, "nccl-by-tier", false, "size each NCCL communicator from NCCL's default buffers and its tier's channels (588 MiB in a node, 147 MiB across nodes) instead of --nccl-mib")
	fs.Float64Var(&f.trainWS, "train-workspace-gb", d.TrainWorkspace.GB(), "cuBLAS/attention workspace in training, GB")
	fs.Float64Var(&f.serveWS, "serve-workspace-gb", d.ServeWorkspace.GB(), "activation workspace in serving, GB")
	fs.BoolVar(&f.gradFP32, "grad-fp32", false, "keep gradients in fp32 (Megatron's main_grad): 4 bytes per parameter")
}

func (f *assumptionFlags) resolve() (costmodel.Assumptions, error) {
	a := f.a
	for _, v := range []struct {
		name string
		v    float64
		max  float64
	}{{"cuda-context-gb", f.ctxGB, 1000}, {"nccl-mib", f.ncclMiB, 1e6}, {"train-workspace-gb", f.trainWS, 1000}, {"serve-workspace-gb", f.serveWS, 1000}} {
		if err := floatIn(v.name, v.v, 0, v.max); err != nil {
			return a, err
		}
	}
	a.CUDAContext = hardware.Bytes(f.ctxGB) * hardware.GB
	a.NCCLPerGroup = hardware.Bytes(f.ncclMiB) * hardware.MiB
	a.TrainWorkspace = hardware.Bytes(f.trainWS) * hardware.GB
	a.ServeWorkspace = hardware.Bytes(f.serveWS) * hardware.GB
	a.GradAccumFP32 = f.gradFP32
	return a, badInput(a.Validate())
}

// floatIn checks a float flag against [lo, hi] in the flag's own unit, so
// the error quotes the value as given.
func floatIn(name string, v, lo, hi float64) error {
	if !(v >= lo && v <= hi) {
		return badInputf("--%s %g is not in [%g, %g]", name, v, lo, hi)
	}
	return nil
}
