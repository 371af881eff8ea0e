package hardware

// Host is the CPU side of one GPU: the host memory that offloaded model
// states live in, the bandwidth of that memory (which a CPU optimizer
// step streams), and the link between the GPU and the host. Every figure
// is per GPU: a server's total divided by its GPUs.
type Host struct {
	// DRAM is the host memory per GPU.
	DRAM Bytes `json:"dram_bytes"`
	// DRAMBandwidth is the host memory's peak bandwidth per GPU.
	DRAMBandwidth Bandwidth `json:"dram_bandwidth_bytes_per_s"`
	// Link is the per-direction bandwidth between one GPU and the host
	// (PCIe, or NVLink-C2C on Grace superchips).
	Link Bandwidth `json:"link_bytes_per_s"`
	// Server names the system the figures are taken from.
	Server string `json:"server"`
	// Sources cites each figure, keyed by field.
	Sources map[string]string `json:"sources,omitempty"`
}

// PCIe per-direction bandwidth of an x16 link: 16 lanes at 16 GT/s
// (Gen4) or 32 GT/s (Gen5) with 128b/130b encoding, 31.5 and 63.0 GB/s,
// quoted as 32 and 64 GB/s (PCI-SIG, PCI Express Base Specification 4.0
// and 5.0).
const (
	PCIeGen4x16 = 32 * GBPerSecond
	PCIeGen5x16 = 64 * GBPerSecond
)

// ddrChannels is the peak bandwidth of n DDR channels at mts
// megatransfers per second, 8 bytes per transfer: n x mts x 8 B.
func ddrChannels(n int, mts float64) Bandwidth {
	return Bandwidth(float64(n) * mts * 1e6 * 8)
}

const (
	srcPCIe      = "PCI-SIG, PCIe Base Specification: x16 link, per direction"
	srcDGXH100   = "NVIDIA DGX H100/H200 datasheet: 2 TB system memory, 2x Intel Xeon Platinum 8480C, 8 GPUs"
	srcXeon8480  = "Intel Xeon Platinum 8480+ (ark.intel.com): 8 channels DDR5-4800 per socket, 2 sockets / 8 GPUs"
	srcDGXA100   = "NVIDIA DGX A100 datasheet: 1 TB system memory (2 TB option), 2x AMD EPYC 7742, 8 GPUs"
	srcEPYC7742  = "AMD EPYC 7742: 8 channels DDR4-3200 per socket, 2 sockets / 8 GPUs"
	srcDGXB200   = "NVIDIA DGX B200 datasheet: 2 TB system memory (4 TB option), 2x Intel Xeon Platinum 8570, 8 GPUs"
	srcXeon8570  = "Intel Xeon Platinum 8570: 8 channels DDR5-5600 per socket, 2 sockets / 8 GPUs"
	srcGB200Host = "NVIDIA GB200 NVL72: 36 Grace CPUs, 480 GB LPDDR5X each, up to 512 GB/s, shared by 2 GPUs"
	srcGB300Host = "NVIDIA GB300 NVL72 (nvidia.com/en-us/data-center/gb300-nvl72): 36 Grace CPUs with up to 17 TB LPDDR5X and up to 14 TB/s per 72 GPUs"
	srcC2C       = "NVIDIA Grace Hopper/Blackwell: NVLink-C2C 900 GB/s bidirectional, 450 GB/s per direction"
)

// dgxH100Host is a DGX H100/H200-class server: 2 TB of DDR5 and two
// 8-channel DDR5-4800 sockets for 8 GPUs, each GPU on PCIe Gen5 x16.
func dgxH100Host() Host {
	return Host{DRAM: 2 * TB / 8, DRAMBandwidth: 2 * ddrChannels(8, 4800) / 8, Link: PCIeGen5x16,
		Server:  "DGX H100/H200 (2 TB, 2x Xeon 8480C, PCIe Gen5)",
		Sources: map[string]string{"dram": srcDGXH100, "dram_bandwidth": srcXeon8480, "link": srcPCIe + " (Gen5, 64 GB/s)"}}
}

// HostOf returns the host figures of the server a catalog GPU usually
// sits in (DGX-class systems); a GPU outside the catalog gets the DGX
// H100 figures, marked as assumed.
func HostOf(g GPU) Host {
	switch g.Name {
	case "h100-sxm", "h200":
		return dgxH100Host()
	case "a100-40gb", "a100-80gb":
		return Host{DRAM: 1 * TB / 8, DRAMBandwidth: 2 * ddrChannels(8, 3200) / 8, Link: PCIeGen4x16,
			Server:  "DGX A100 (1 TB, 2x EPYC 7742, PCIe Gen4)",
			Sources: map[string]string{"dram": srcDGXA100, "dram_bandwidth": srcEPYC7742, "link": srcPCIe + " (Gen4, 32 GB/s)"}}
	case "b200", "b300":
		return Host{DRAM: 2 * TB / 8, DRAMBandwidth: 2 * ddrChannels(8, 5600) / 8, Link: PCIeGen5x16,
			Server:  "DGX B200 (2 TB, 2x Xeon 8570, PCIe Gen5)",
			Sources: map[string]string{"dram": srcDGXB200, "dram_bandwidth": srcXeon8570, "link": srcPCIe + " (Gen5, 64 GB/s)"}}
	case "gb200":
		return Host{DRAM: 480 * GB / 2, DRAMBandwidth: 512 * GBPerSecond / 2, Link: 450 * GBPerSecond,
			Server:  "GB200 NVL72 (Grace, 480 GB LPDDR5X per 2 GPUs, NVLink-C2C)",
			Sources: map[string]string{"dram": srcGB200Host, "dram_bandwidth": srcGB200Host, "link": srcC2C}}
	case "gb300":
		return Host{DRAM: 17 * TB / 72, DRAMBandwidth: 14 * TBPerSecond / 72, Link: 450 * GBPerSecond,
			Server:  "GB300 NVL72 (Grace, 17 TB LPDDR5X per 72 GPUs, NVLink-C2C)",
			Sources: map[string]string{"dram": srcGB300Host, "dram_bandwidth": srcGB300Host, "link": srcC2C}}
	}
	h := dgxH100Host()
	h.Server = "assumed DGX H100-class host (no host figures for " + g.Name + ")"
	return h
}
