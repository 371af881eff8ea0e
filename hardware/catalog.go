package hardware

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/internal/names"
)

// Source keys cited by the catalog. The full references are in Sources.
const (
	srcA100    = "[A100] nvidia.com/en-us/data-center/a100 and the A100 datasheet (BF16 312 dense, 1,555/2,039 GB/s, NVLink 600 GB/s bidirectional)"
	srcH100    = "[H100] nvidia.com/en-us/data-center/h100, SXM column: BF16 1,979 and FP8 3,958 with sparsity (halved here), 3.35 TB/s, NVLink 900 GB/s bidirectional"
	srcH200    = "[H200] nvidia.com/en-us/data-center/h200: 141 GB HBM3e, 4.8 TB/s, BF16 1,979 / FP8 3,958 with sparsity, NVLink 900 GB/s"
	srcB200    = "[DGXB200-DS] DGX B200 datasheet: 180 GB HBM3e per GPU, 8 TB/s, BF16 4.5 / FP8 9 PFLOP/s with sparsity, NVLink 5 1.8 TB/s"
	srcB300    = "[DGXB300-DS] DGX B300 datasheet: 288 GB HBM3e, 8 TB/s, BF16 4.5 / FP8 9 PFLOP/s with sparsity, NVLink 1.8 TB/s"
	srcGB200   = "[GB200] nvidia.com/en-us/data-center/gb200-nvl72: 13.4 TB HBM3e per 72 GPUs, 8 TB/s, BF16 5 / FP8 10 PFLOP/s with sparsity per GPU, NVLink 1.8 TB/s, 72-GPU domain"
	srcGB300   = "[GB300] nvidia.com/en-us/data-center/gb300-nvl72: up to 20 TB HBM3e and 576 TB/s per 72 GPUs (8 TB/s each), FP8/FP6 720 PFLOPS and FP16/BF16 360 PFLOPS with sparsity per 72 GPUs (5 and 2.5 PFLOP/s dense per GPU), NVLink 130 TB/s per 72 GPUs (1.8 TB/s each), 72-GPU domain; quoted per GPU as 288 GB HBM3e"
	srcMI300X  = "[MI300X] amd.com/en/products/accelerators/instinct/mi300/mi300x: 192 GB HBM3, 5.3 TB/s, BF16 2,614.9 / FP8 5,229.8 with sparsity; 7 Infinity Fabric links of 128 GB/s"
	srcL40S    = "[L40S] nvidia.com/en-us/data-center/l40s: 48 GB GDDR6, 864 GB/s, BF16 733 / FP8 1,466 with sparsity, PCIe Gen4 x16 64 GB/s bidirectional, no NVLink"
	srcSmiH100 = "[smi-h100] nvidia-smi 'NVIDIA H100 80GB HBM3 ... 81559MiB' (NVIDIA/nccl#1264; wilicc/gpu-burn#114; modal-labs/modal-client#2797)"
	srcModal   = "[modal] modal-labs/modal-client#2797: A100 80GB 81920MiB, A100 40GB 40960MiB (current drivers; R470 showed 40536MiB), L40S 46068MiB"
	srcSmiH200 = "[smi-h200] nvidia-smi 'NVIDIA H200 ... 143771MiB' (public nvidia-smi output)"
	srcSmiB200 = "[smi-b200] NVIDIA/TensorRT-LLM#10278: 'NVIDIA B200 ... 183359MiB', driver 580.95.05"
	srcSmiB300 = "[smi-b300] nvidia-smi 'NVIDIA B300 SXM6 AC ... 275040MiB' (public nvidia-smi output)"
	srcSmiGB   = "[smi-gb200] nvidia-smi 'NVIDIA GB200 ... 189471MiB' (public nvidia-smi output)"
	// No driver total (nvidia-smi MiB) of a GB300 NVL72 GPU was found; the
	// full-GPU MIG profile is the closest driver-reported figure.
	srcMIGGB300 = "[mig-gb300] not a driver total: NVIDIA's full-GPU MIG profile of GB300, 'MIG 7g.278gb' (profile ID 0 of nvidia-smi mig -lgip in NVIDIA's GB300 MIG playbooks), read as 278 GiB; on B300 the same profile, 7g.269gb, matches its driver total of 275040 MiB (268.6 GiB); Google Cloud's A4X Max (GB300 NVL72) quotes 'roughly 279 GB per GPU'"
	srcSmiMI    = "[smi-mi300x] rocm-smi 'VRAM Total Memory (B): 206141652992'"
	srcNetA100  = "DGX A100 user guide: 8x 200 Gb/s HDR ConnectX-6, one per GPU"
	srcNetH     = "[basepod] DGX H100/H200/B200: eight single-port ConnectX-7, up to 400 Gb/s, one per GPU"
	srcNetB300  = "[mle-net] DGX B300: 8x ConnectX-8 at 800 Gb/s"
	srcNetGB300 = "[GB300] nvidia.com/en-us/data-center/gb300-nvl72: one ConnectX-8 SuperNIC at 800 Gb/s per GPU"
	srcNetGB    = "[dgxgb200-net] DGX GB200: 4 single-port ConnectX-7 at 400 Gb/s per 4-GPU tray"
	srcNetMI    = "[azure-mi300x] Azure ND MI300X v5: 8x 400 Gb/s NDR InfiniBand per 8 GPUs"
	// Hopper SXM parts at 700 W cannot hold the 1830 MHz their 989 TFLOP/s
	// assumes under full tensor-core load; about 1500 MHz is what they
	// sustain: 1500/1830 = 0.82.
	srcClockHopper = "tile-ai/TileOPs#1588 (H200 at 700 W cannot reliably sustain a locked 1830 MHz; 1500 MHz is realistic); deepseek-ai/DeepGEMM#120 (H800 from 1980 to 1575 MHz when power-limited)"
	// The parts without a sustained share say why they are priced at the
	// datasheet peak (GPU.SustainedClock; README, "What the figures lean on").
	srcClockA100      = "no published A100 clock under training load was found; at the 1410 MHz peak Korthikanti et al. 2022 Table 5 (A100, Megatron) is reproduced to a 2.7% mean, while MosaicML's A100 rows are 10% optimistic"
	srcClockBlackwell = "flashinfer-ai/flashinfer#2899 measures a B200 falling from 1965 to about 1580 MHz (0.80) after about 5 ms of back-to-back FlashAttention-4 near 1000 W, but applied to every Blackwell part and refitted (GEMM share 0.854) it predicts Megatron-Bridge's Blackwell rows 7% (bf16), 13% (mxfp8) and 20% (fp8-cs) slower than measured and takes the fit's RMS log error from 10.2% to 12.2%: the term that would offset it is not found"
	srcClockNone      = "no measurement under load"
)

// Sources of the architecture, SM counts and block-scaled peaks.
const (
	srcSMA100   = "[A100-WP] NVIDIA A100 Tensor Core GPU Architecture whitepaper: A100 has 108 SMs (GA100, SM80)"
	srcSMH100   = "[H100-WP] NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5 has 132 SMs (GH100, SM90); H200 is the same GH100 configuration with HBM3e"
	srcSMB200   = "[b200-sms] public B200 device queries: 148 SMs (SM100), e.g. the MPK paper's B200 platform (148 SMs) and the TRT-LLM MLA decode notes (B200 148 SMs, GB300 152 SMs)"
	srcSMB300   = "[b300-sms] public B300 SXM6 AC device queries: 148 SMs (SM103); see also /work/shared/hardware-specs.md, B300 row"
	srcSMGB200  = "[gb200-sms] public GB200 device queries: 152 SMs (SM100), e.g. cudaOccupancyMaxActiveClusters notes 'On GB200 (152 SMs)'"
	srcSML40S   = "[L40S] L40S datasheet: 568 fourth-generation Tensor Cores = 142 SMs x 4 (AD102, SM89)"
	srcCUMI     = "[MI300X] AMD CDNA 3 whitepaper and product page: 304 compute units"
	srcFP4B200  = "[HGX-B200] nvidia.com/data-center/hgx, HGX B200 column: FP4 Tensor Core 144 PFLOPS sparse | 72 dense per 8 GPUs = 9 PFLOP/s dense per GPU; FP8/FP6 72 PFLOPS dense (MXFP8 runs at the FP8 rate)"
	srcFP4B300  = "[DGXB300-DS] HGX/DGX B300: FP4 Tensor Core 144 PFLOPS sparse | 108 dense per 8 GPUs = 13.5 PFLOP/s dense per GPU (the per-GPU row rounds to 14); FP8 72 PFLOPS dense"
	srcFP4GB300 = "[GB300] nvidia.com/en-us/data-center/gb300-nvl72: FP4 Tensor Core 1,440 PFLOPS with sparsity | 1,080 dense per 72 GPUs = 15 PFLOP/s dense per GPU; MXFP8 at the FP8 rate"
	srcSMGB300  = "[gb300-sms] public GB300 device queries: 152 SMs (SM103), e.g. the TRT-LLM MLA decode notes (B200 148 SMs, GB300 152 SMs); the B300 of HGX boards enables 148"
	srcFP4GB    = "[GB200] nvidia.com/en-us/data-center/gb200-nvl72: FP4 Tensor Core 1,440 PFLOPS with sparsity per 72 GPUs = 10 PFLOP/s dense per GPU; FP8/FP6 720 PFLOPS sparse"
)

// withArch adds the sources of the architecture and SM count, and of the
// block-scaled peaks where fp4 is given.
func withArch(m map[string]string, sms, fp4 string) map[string]string {
	m["arch"], m["sms"] = sms, sms
	if fp4 != "" {
		m["peak_mxfp8"], m["peak_fp4"] = fp4, fp4
	}
	return m
}

// hopperClock is the sustained share of the Hopper SXM datasheet peak.
const hopperClock = 1500.0 / 1830

func src(hbm, quoted, peak, bw, up, out string) map[string]string {
	return map[string]string{
		"hbm_bytes": hbm, "hbm_quoted": quoted, "peak": peak,
		"mem_bandwidth": bw, "scale_up": up, "scale_out": out,
	}
}

// withClock adds the source of a sustained-clock figure, or of why a part
// has none.
func withClock(m map[string]string, source string) map[string]string {
	m["sustained_clock"] = source
	return m
}

var catalog = []GPU{
	{Name: "a100-40gb", Description: "NVIDIA A100-SXM4-40GB", HBM: 40960 * MiB, HBMQuoted: "40 GB HBM2",
		PeakBF16: 312 * TFLOPPerSecond, MemBandwidth: 1555 * GBPerSecond,
		ScaleUp: 300 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 200 * GbitPerSecond, TDP: 400 * Watt,
		Arch: Ampere, SMs: 108,
		Sources: withTDP(withArch(withClock(src(srcModal, srcA100, srcA100, srcA100, srcA100, srcNetA100), srcClockA100), srcSMA100, ""), srcTDPA100),
		Notes:   "driver total 40960 MiB on current drivers (40536 MiB on R470)"},
	{Name: "a100-80gb", Description: "NVIDIA A100-SXM4-80GB", HBM: 81920 * MiB, HBMQuoted: "80 GB HBM2e",
		PeakBF16: 312 * TFLOPPerSecond, MemBandwidth: 2039 * GBPerSecond,
		ScaleUp: 300 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 200 * GbitPerSecond, TDP: 400 * Watt,
		Arch: Ampere, SMs: 108,
		Sources: withTDP(withArch(withClock(src(srcModal, srcA100, srcA100, srcA100, srcA100, srcNetA100), srcClockA100), srcSMA100, ""), srcTDPA100)},
	{Name: "h100-sxm", Description: "NVIDIA H100 SXM5 80GB", HBM: 81559 * MiB, HBMQuoted: "80 GB HBM3",
		PeakBF16: 989 * TFLOPPerSecond, PeakFP8: 1979 * TFLOPPerSecond, MemBandwidth: 3350 * GBPerSecond,
		ScaleUp: 450 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 400 * GbitPerSecond, TDP: 700 * Watt,
		SustainedClock: hopperClock, Arch: Hopper, SMs: 132,
		Sources: withTDP(withArch(withClock(src(srcSmiH100, srcH100, srcH100, srcH100, srcH100, srcNetH), srcClockHopper), srcSMH100, ""), srcTDPH100)},
	{Name: "h200", Description: "NVIDIA H200 SXM 141GB", HBM: 143771 * MiB, HBMQuoted: "141 GB HBM3e",
		PeakBF16: 989 * TFLOPPerSecond, PeakFP8: 1979 * TFLOPPerSecond, MemBandwidth: 4800 * GBPerSecond,
		ScaleUp: 450 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 400 * GbitPerSecond, TDP: 700 * Watt,
		SustainedClock: hopperClock, Arch: Hopper, SMs: 132,
		Sources: withTDP(withArch(withClock(src(srcSmiH200, srcH200, srcH200, srcH200, srcH200, srcNetH), srcClockHopper), srcSMH100, ""), srcTDPH200)},
	{Name: "b200", Description: "NVIDIA B200 (HGX/DGX)", HBM: 183359 * MiB, HBMQuoted: "180 GB HBM3e",
		PeakBF16: 2250 * TFLOPPerSecond, PeakFP8: 4500 * TFLOPPerSecond, MemBandwidth: 8000 * GBPerSecond,
		ScaleUp: 900 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 400 * GbitPerSecond, TDP: 1000 * Watt,
		PeakMXFP8: 4500 * TFLOPPerSecond, PeakFP4: 9000 * TFLOPPerSecond, Arch: Blackwell, SMs: 148,
		Sources: withTDP(withArch(withClock(src(srcSmiB200, srcB200, srcB200, srcB200, srcB200, srcNetH), srcClockBlackwell), srcSMB200, srcFP4B200), srcTDPB200),
		Notes:   "8 TB/s is nominal; the driver's 7680-bit bus gives 7.67 TB/s (pytorch/ao#4002)"},
	{Name: "b300", Description: "NVIDIA B300 SXM6 AC (HGX/DGX)", HBM: 275040 * MiB, HBMQuoted: "288 GB HBM3e",
		PeakBF16: 2250 * TFLOPPerSecond, PeakFP8: 4500 * TFLOPPerSecond, MemBandwidth: 8000 * GBPerSecond,
		ScaleUp: 900 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 800 * GbitPerSecond, TDP: 1100 * Watt,
		PeakMXFP8: 4500 * TFLOPPerSecond, PeakFP4: 13500 * TFLOPPerSecond, Arch: BlackwellUltra, SMs: 148,
		Sources: withTDP(withArch(withClock(src(srcSmiB300, srcB300, srcB300, srcB300, srcB300, srcNetB300), srcClockBlackwell), srcSMB300, srcFP4B300), srcTDPB300)},
	{Name: "gb200", Description: "NVIDIA GB200 NVL72 (per GPU)", HBM: 189471 * MiB, HBMQuoted: "186 GB HBM3e (13.4 TB / 72)",
		PeakBF16: 2500 * TFLOPPerSecond, PeakFP8: 5000 * TFLOPPerSecond, MemBandwidth: 8000 * GBPerSecond,
		ScaleUp: 900 * GBPerSecond, ScaleUpDomain: 72, ScaleOut: 400 * GbitPerSecond, TDP: 1200 * Watt,
		PeakMXFP8: 5000 * TFLOPPerSecond, PeakFP4: 10000 * TFLOPPerSecond, Arch: Blackwell, SMs: 152,
		Sources: withTDP(withArch(withClock(src(srcSmiGB, srcGB200, srcGB200, srcGB200, srcGB200, srcNetGB), srcClockBlackwell), srcSMGB200, srcFP4GB), srcTDPGB200)},
	{Name: "gb300", Description: "NVIDIA GB300 NVL72 (per GPU)", HBM: 278 * GiB, HBMQuoted: "288 GB HBM3e (20 TB / 72)",
		PeakBF16: 2500 * TFLOPPerSecond, PeakFP8: 5000 * TFLOPPerSecond, MemBandwidth: 8000 * GBPerSecond,
		ScaleUp: 900 * GBPerSecond, ScaleUpDomain: 72, ScaleOut: 800 * GbitPerSecond, TDP: 1400 * Watt,
		PeakMXFP8: 5000 * TFLOPPerSecond, PeakFP4: 15000 * TFLOPPerSecond, Arch: BlackwellUltra, SMs: 152,
		Sources: withTDP(withArch(withClock(src(srcMIGGB300, srcGB300, srcGB300, srcGB300, srcGB300, srcNetGB300), srcClockBlackwell), srcSMGB300, srcFP4GB300), srcTDPGB300),
		Notes:   "HBM is the full-GPU MIG profile (7g.278gb, read in GiB as MIG names count: H100 7g.80gb = 79.6 GiB, B300 7g.269gb = 268.6 GiB driver totals), not a driver total: none of a GB300 NVL72 GPU was found"},
	{Name: "mi300x", Description: "AMD Instinct MI300X", HBM: 206141652992, HBMQuoted: "192 GB HBM3",
		PeakBF16: 1307.4 * TFLOPPerSecond, PeakFP8: 2614.9 * TFLOPPerSecond, MemBandwidth: 5300 * GBPerSecond,
		ScaleUp: 448 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 400 * GbitPerSecond, TDP: 750 * Watt,
		Arch: CDNA3, SMs: 304,
		Sources: withTDP(withArch(withClock(src(srcSmiMI, srcMI300X, srcMI300X, srcMI300X, srcMI300X, srcNetMI), srcClockNone), srcCUMI, ""), srcTDPMI),
		Notes:   "Infinity Fabric is point-to-point: 64 GB/s per direction per peer, 448 GB/s with all 7 peers busy (8-GPU collectives)"},
	{Name: "l40s", Description: "NVIDIA L40S", HBM: 46068 * MiB, HBMQuoted: "48 GB GDDR6",
		PeakBF16: 362 * TFLOPPerSecond, PeakFP8: 733 * TFLOPPerSecond, MemBandwidth: 864 * GBPerSecond,
		ScaleUp: 32 * GBPerSecond, ScaleUpDomain: 8, ScaleOut: 0, TDP: 350 * Watt,
		Arch: Ada, SMs: 142,
		Sources: withTDP(withArch(withClock(src(srcModal, srcL40S, srcL40S, srcL40S, srcL40S, "none: L40S servers have no standard scale-out NIC"), srcClockNone), srcSML40S, ""), srcTDPL40S),
		Notes:   "no NVLink: GPUs in one server talk over PCIe Gen4 x16 (32 GB/s per direction); the 8-GPU server is an assumption; give a cluster file for a network"},
}

var aliases = map[string]string{
	"a100":            "a100-80gb",
	"a100-sxm":        "a100-80gb",
	"a100-80g":        "a100-80gb",
	"a100-40g":        "a100-40gb",
	"h100":            "h100-sxm",
	"h100-80gb":       "h100-sxm",
	"h100-sxm5":       "h100-sxm",
	"h200-sxm":        "h200",
	"h200-141gb":      "h200",
	"gb200-nvl72":     "gb200",
	"gb300-nvl72":     "gb300",
	"b300-sxm":        "b300",
	"mi300":           "mi300x",
	"instinct-mi300x": "mi300x",
}

// GPUs returns the catalog in a stable order. The returned values are
// copies; changing them does not change the catalog.
func GPUs() []GPU {
	out := make([]GPU, len(catalog))
	for i, g := range catalog {
		g.Sources = maps.Clone(g.Sources)
		out[i] = g
	}
	return out
}

// LookupGPU finds a catalog GPU by name or alias, ignoring case. An unknown
// name gives an error that lists the closest catalog names.
func LookupGPU(name string) (GPU, error) {
	key := names.Normalize(name)
	if a, ok := aliases[key]; ok {
		key = a
	}
	for _, g := range catalog {
		if g.Name == key {
			g.Sources = maps.Clone(g.Sources)
			return g, nil
		}
	}
	all := make([]string, 0, len(catalog)+len(aliases))
	for _, g := range catalog {
		all = append(all, g.Name)
	}
	all = append(all, slices.Sorted(maps.Keys(aliases))...)
	hint := ""
	if c := names.Closest(name, all, 3); len(c) > 0 {
		hint = "; closest: " + strings.Join(c, ", ")
	}
	return GPU{}, fmt.Errorf("hardware: unknown GPU %q (run `planner gpus` for the catalog%s)", name, hint)
}
