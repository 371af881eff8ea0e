package efficiency

import "github.com/gpu-planner/planner/hardware"

// fitGPUs are the catalog GPUs whose calibration rows each generation's
// curves are fitted on (calibration/kernels/gemm.csv and
// attention_context.csv; testdata/README.md).
var fitGPUs = map[hardware.Arch][]string{
	hardware.Ampere:         {"a100-80gb"},
	hardware.Ada:            {"l40s"},
	hardware.Hopper:         {"h100-sxm", "h200"},
	hardware.Blackwell:      {"b200", "gb200"},
	hardware.BlackwellUltra: {"b300"},
}

// datasetKeys are the calibration data's names of the fitted GPUs.
var datasetKeys = map[string]string{
	"a100-80gb": "a100_sxm", "l40s": "l40s", "h100-sxm": "h100_sxm", "h200": "h200_sxm",
	"b200": "b200_sxm", "gb200": "gb200", "b300": "b300_sxm",
}

// measuredFormats are the GEMM formats the calibration data times.
var measuredFormats = []Format{BF16, FP8, FP8Block, NVFP4}

// gemmStart is where every GEMM fit starts Nelder-Mead.
var gemmStart = Params{Ceiling: 0.8, KHalf: 64, Launch: 4e-6, HBMEff: 0.8}

// sourceGEMM cites the GEMM measurements.
const sourceGEMM = "ai-dynamo/aiconfigurator @095f58a5, systems/data/<gpu>/gemm/trtllm/<version>/gemm_perf.parquet " +
	"(TRT-LLM Linear, CUDA-graph replay, L2-cold weights); subsample in costmodel/efficiency/testdata/gemm.csv"
