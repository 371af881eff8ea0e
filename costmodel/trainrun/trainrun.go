// Package trainrun turns a plan's speed into the whole training run: the
// time to train on a token budget, the GPU-hours, their cost at a price
// per GPU-hour and the energy the GPUs draw, each from a small formula
// with its assumptions stated.
package trainrun

import (
	"fmt"
	"math"

	"github.com/gpu-planner/planner/hardware"
)

// Defaults of Settings.
const (
	// DefaultPUE is the power usage effectiveness (facility power over
	// IT power) when none is given: between the hyperscale fleets
	// (Google reports a fleet-wide trailing-twelve-month PUE of 1.10 for
	// 2023, google.com/about/datacenters/efficiency) and the industry
	// average (Uptime Institute Global Data Center Survey 2023: 1.58).
	DefaultPUE = 1.2
	// DefaultPowerUtilization is the share of its TDP each GPU is taken to
	// draw: 1, the peak power, as Llama 2 did to report its training
	// footprint (Touvron et al. 2023, sec. 2.2.1 and Table 2: GPU-hours
	// times "the peak power capacity per GPU device ... adjusted for
	// power usage efficiency"). Measured averages are lower, so the
	// energy is an upper bound for the GPUs alone.
	DefaultPowerUtilization = 1.0
)

// Settings are the inputs of a run besides the plan's speed. The zero
// value of PUE and PowerUtilization means their defaults; a zero price
// means no cost figure.
type Settings struct {
	// Tokens is the training token budget (15.6e12 for Llama 3 405B,
	// Dubey et al. 2024, sec. 3.1).
	Tokens float64
	// GPUHourPrice is US dollars per GPU-hour.
	GPUHourPrice float64
	// PUE is the facility's power usage effectiveness.
	PUE float64
	// PowerUtilization is the share of the TDP each GPU draws on average.
	PowerUtilization float64
}

// WithDefaults fills the zero PUE and power utilization.
func (s Settings) WithDefaults() Settings {
	if s.PUE == 0 {
		s.PUE = DefaultPUE
	}
	if s.PowerUtilization == 0 {
		s.PowerUtilization = DefaultPowerUtilization
	}
	return s
}

// Validate names the first setting out of range.
func (s Settings) Validate() error {
	switch {
	case !(s.Tokens > 0) || math.IsInf(s.Tokens, 0):
		return fmt.Errorf("trainrun: tokens %g must be positive and finite", s.Tokens)
	case !(s.GPUHourPrice >= 0) || math.IsInf(s.GPUHourPrice, 0):
		return fmt.Errorf("trainrun: GPU-hour price %g must be 0 (no cost) or positive", s.GPUHourPrice)
	case !(s.PUE == 0 || (s.PUE >= 1 && s.PUE <= 5)):
		return fmt.Errorf("trainrun: PUE %g is not in [1, 5]", s.PUE)
	case !(s.PowerUtilization >= 0 && s.PowerUtilization <= 1):
		return fmt.Errorf("trainrun: power utilization %g is not in (0, 1]", s.PowerUtilization)
	}
	return nil
}

// Run is the whole training run of one plan.
type Run struct {
	Tokens   float64          `json:"tokens"`
	GPUs     int              `json:"gpus"`
	Time     hardware.Seconds `json:"time_to_train_s"`
	GPUHours float64          `json:"gpu_hours"`
	// Cost is in US dollars; 0 when no price was given.
	Cost float64 `json:"cost_usd"`
	// Energy is at the facility (GPU board power times PUE); 0 when the
	// GPU's TDP is not known.
	Energy           hardware.Joules `json:"energy_j"`
	TDP              hardware.Watts  `json:"tdp_watts"`
	PUE              float64         `json:"pue"`
	PowerUtilization float64         `json:"power_utilization"`
	GPUHourPrice     float64         `json:"gpu_hour_price_usd"`
}

// Of is the run of a plan on gpus GPUs of board power tdp at
// tokensPerSecond (the whole job's). s must be valid.
func Of(s Settings, gpus int, tokensPerSecond float64, tdp hardware.Watts) Run {
	s = s.WithDefaults()
	t := TimeToTrain(s.Tokens, tokensPerSecond)
	h := GPUHours(gpus, t)
	return Run{Tokens: s.Tokens, GPUs: gpus, Time: t, GPUHours: h, Cost: Cost(h, s.GPUHourPrice),
		Energy: Energy(gpus, tdp, s.PowerUtilization, s.PUE, t), TDP: tdp, PUE: s.PUE,
		PowerUtilization: s.PowerUtilization, GPUHourPrice: s.GPUHourPrice}
}

// TimeToTrain is the wall time to process the token budget at a steady
// rate: T = tokens / (tokens/s). It leaves out checkpointing, restarts
// and failures (Llama 3 405B lost about 10% of its 54 days to
// interruptions, Dubey et al. 2024, sec. 3.3.4).
func TimeToTrain(tokens, tokensPerSecond float64) hardware.Seconds {
	return hardware.Seconds(tokens / tokensPerSecond)
}

// GPUHours is the GPU time of a run: GPUs x T / 3600.
func GPUHours(gpus int, t hardware.Seconds) float64 {
	return float64(gpus) * float64(t) / 3600
}

// Cost is the price of the GPU-hours: GPU-hours x USD per GPU-hour.
func Cost(gpuHours, pricePerGPUHour float64) float64 {
	return gpuHours * pricePerGPUHour
}

// Energy is what the GPUs draw at the facility:
// E = GPUs x TDP x utilization x PUE x T (Touvron et al. 2023, sec.
// 2.2.1: GPU time times peak power, adjusted for PUE). Host CPUs, memory,
// NICs and switches are not counted.
func Energy(gpus int, tdp hardware.Watts, utilization, pue float64, t hardware.Seconds) hardware.Joules {
	return hardware.Joules(float64(gpus) * float64(tdp) * utilization * pue * float64(t))
}

// Days is t in days.
func Days(t hardware.Seconds) float64 { return float64(t) / 86400 }
