package hardware

// Watts is a power in watts.
type Watts float64

// Joules is an energy in joules.
type Joules float64

// Watt is the unit of Watts.
const Watt Watts = 1

// JoulesPerMWh is the joules in one megawatt-hour (3.6e9).
const JoulesPerMWh Joules = 3.6e9

// String formats w, e.g. "700 W", "1.20 kW".
func (w Watts) String() string { return siFormat(float64(w), "W") }

// MWh is e in megawatt-hours.
func (e Joules) MWh() float64 { return float64(e / JoulesPerMWh) }

// String formats e in watt-hours with an SI prefix, the unit
// training-energy figures are published in: "19.1 GWh", "950 MWh".
func (e Joules) String() string { return siFormat(float64(e)/3600, "Wh") }

// Sources of the board powers (TDP) in the catalog: NVIDIA's and AMD's
// product pages and datasheets, and the power cap nvidia-smi reports
// (shared/hardware-specs.md, note 9).
const (
	srcTDPA100  = "[A100-DS] A100 SXM max TDP 400 W"
	srcTDPH100  = "[H100] H100 SXM max thermal design power (TDP) up to 700 W (configurable); nvidia-smi cap 700 W [smi-h100]"
	srcTDPH200  = "[H200] H200 SXM max TDP up to 700 W (configurable); nvidia-smi cap 700 W [smi-h200]"
	srcTDPB200  = "[DGXB200-DS] B200 in HGX/DGX B200; nvidia-smi power cap 1000 W [smi-b200]"
	srcTDPB300  = "[DGXB300-DS] B300 SXM6 AC; nvidia-smi power cap 1100 W [smi-b300]"
	srcTDPGB200 = "[GB200] GB200 NVL72 per GPU; nvidia-smi power cap 1200 W [smi-gb200]"
	srcTDPGB300 = "[verda-gb300] verda.com/blog/gb300-nvl72-architecture, per-GPU table: GB300 max TDP 1.4 kW (1400 W); rack max GPU TDP 100.8 kW = 72 x 1400 W"
	srcTDPMI    = "[MI300X] AMD Instinct MI300X total board power 750 W peak (MLPerf system name MI300X-...-192GB-750W)"
	srcTDPL40S  = "[L40S] L40S max power consumption 350 W"
)

// withTDP adds the source of a board-power figure.
func withTDP(m map[string]string, source string) map[string]string {
	m["tdp"] = source
	return m
}
