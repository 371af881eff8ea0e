package search

import (
	"fmt"
	"runtime"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Objective is what the search optimizes.
type Objective int

const (
	// Throughput ranks the plans on exactly Options.GPUs GPUs by tokens
	// per second.
	Throughput Objective = iota
	// FewestGPUs finds the smallest GPU count at which some plan fits,
	// and ranks the plans there.
	FewestGPUs
)

func (o Objective) String() string {
	if o == FewestGPUs {
		return "fewest-gpus"
	}
	return "throughput"
}

// MarshalText writes the objective's name.
func (o Objective) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Granularity is the step between the GPU counts FewestGPUs tries.
type Granularity int

const (
	// Nodes tries whole nodes (NVLink domains) only.
	Nodes Granularity = iota
	// SingleGPUs tries every count.
	SingleGPUs
)

func (g Granularity) String() string {
	if g == SingleGPUs {
		return "gpu"
	}
	return "node"
}

// MarshalText writes the granularity's name.
func (g Granularity) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// DefaultMaxGPUs is the largest count FewestGPUs tries unless told
// otherwise: the 16,384 H100s Llama 3 405B trained on (Dubey et al. 2024,
// sec. 3.3.1).
const DefaultMaxGPUs = 16384

// Options are the search's settings. The zero value of each field but
// Job is usable: the default space, the Throughput objective on GPUs,
// whole nodes, the top 10, one worker per CPU.
type Options struct {
	Job Job
	// Space restricts axes of the default space (nil axes keep theirs).
	Space     Space
	Objective Objective
	// GPUs is the count Throughput searches on.
	GPUs int
	// MaxGPUs is the largest count FewestGPUs tries (DefaultMaxGPUs when
	// 0); with Frontier it searches every count up to MaxGPUs and
	// returns the Pareto frontier of GPU count against throughput.
	MaxGPUs     int
	Frontier    bool
	Granularity Granularity
	// Top is how many plans to rank (10 when 0) and Misses how many
	// nearest misses to show when nothing fits (5 when 0).
	Top, Misses int
	// Workers is the number of goroutines (GOMAXPROCS when 0). The
	// result does not depend on it.
	Workers int
	// exhaustive computes the speed of every plan that fits, without the
	// speed bound (tests compare the two).
	exhaustive bool
	// alternative marks the search of one fine-tuning alternative, which
	// looks for none of its own.
	alternative bool
}

func (o Options) withDefaults() Options {
	o.Job = o.Job.withTuneDefaults()
	if o.Top == 0 {
		o.Top = 10
	}
	if o.Misses == 0 {
		o.Misses = 5
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxGPUs == 0 {
		o.MaxGPUs = DefaultMaxGPUs
	}
	return o
}

// Result is what a search found.
type Result struct {
	Model       string                `json:"model"`
	GPU         string                `json:"gpu"`
	GPUsPerNode int                   `json:"gpus_per_node"`
	Job         Job                   `json:"job"`
	Objective   Objective             `json:"objective"`
	Granularity Granularity           `json:"granularity"`
	Assumptions costmodel.Assumptions `json:"assumptions"`
	// Budget is the memory a plan may use per GPU.
	Budget hardware.Bytes `json:"budget_bytes"`
	// GPUs is the count the ranked plans run on: the given count, or the
	// fewest at which a plan fits (0 when none does).
	GPUs int `json:"gpus"`
	// Plans are the best plans on GPUs, best first.
	Plans []Ranked `json:"plans"`
	// Why says, in numbers, why the first plan ranks above the second.
	Why []string `json:"why,omitempty"`
	// Frontier holds, by GPU count, the best plan of each count that is
	// faster than every smaller count's (FewestGPUs with Frontier).
	Frontier []Ranked `json:"frontier,omitempty"`
	// Searched is the range of GPU counts searched, MinGPUs the smallest
	// count whose budgets can hold the model states at all (counts below
	// it were skipped), and CountsSearched how many counts were searched.
	Searched       [2]int `json:"searched_gpus"`
	MinGPUs        int    `json:"min_gpus_for_states"`
	CountsSearched int    `json:"counts_searched"`
	// Counts accounts for every candidate of every count searched.
	Counts Counts `json:"counts"`
	// Misses, when nothing fits, are the plans nearest to fitting on the
	// largest count searched, and Levers the changes that would shrink
	// the nearest one (costmodel's levers).
	Misses []Miss            `json:"misses,omitempty"`
	Levers []costmodel.Lever `json:"levers,omitempty"`
	Notes  []string          `json:"notes,omitempty"`
	// FineTune, when nothing fits on the given count, are the ways to
	// fine-tune the model there, each searched (finetune.go), and
	// FineTuneAnswer says in one sentence which of them fit.
	FineTune       []FineTuneAlternative `json:"fine_tune,omitempty"`
	FineTuneAnswer string                `json:"fine_tune_answer,omitempty"`
	// Cluster is the cluster of the answer: the count the plans rank on,
	// or the count of the misses.
	Cluster hardware.Cluster `json:"cluster"`
}

// Search finds the best plans for training m on GPUs g, whose NVLink
// domain is gpusPerNode (g's own when 0), under assumptions a. It returns
// an error only for invalid input, naming the bad value; a search in
// which nothing fits is not an error (Result.Plans is empty and
// Result.Misses says by how much the nearest plans miss).
func Search(m *costmodel.Model, g hardware.GPU, gpusPerNode int, a costmodel.Assumptions, o Options) (*Result, error) {
	o = o.withDefaults()
	if gpusPerNode == 0 {
		gpusPerNode = g.ScaleUpDomain
	}
	if err := validate(m, g, gpusPerNode, a, o); err != nil {
		return nil, err
	}
	r := &Result{Model: m.Name, GPU: g.Name, GPUsPerNode: gpusPerNode, Job: o.Job, Objective: o.Objective,
		Granularity: o.Granularity, Assumptions: a, Budget: hardware.Bytes(a.HBMFraction) * g.HBM}
	s := &searcher{m: m, g: g, perNode: gpusPerNode, a: a, o: o, r: r}
	var err error
	if o.Objective == Throughput {
		err = s.exact(o.GPUs)
	} else {
		err = s.fewest()
	}
	if err != nil {
		return nil, err
	}
	s.estimateNotes()
	if err := s.fineTuneAlternatives(); err != nil {
		return nil, err
	}
	r.Plans = named(r.Plans)
	r.Frontier = named(r.Frontier)
	r.Misses = namedMisses(r.Misses)
	if len(r.Plans) > 1 {
		r.Why = Why(r.Plans[0], r.Plans[1])
	}
	if len(r.Plans) > 0 && m.MoE != nil {
		r.Why = append(r.Why, ExpertLayout(r.Plans[0], m, gpusPerNode))
	}
	return r, nil
}

func validate(m *costmodel.Model, g hardware.GPU, perNode int, a costmodel.Assumptions, o Options) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if _, err := hardware.NewCluster(g, perNode, 1); err != nil {
		return err
	}
	if err := a.Validate(); err != nil {
		return err
	}
	if _, err := g.Peak(o.Job.Precision.PeakFormat()); err != nil {
		return err
	}
	// The job alone, on one GPU, meets Normalize's range checks.
	one := o.Job.base()
	one.TP, one.PP, one.CP, one.DP, one.MicroBatch = 1, 1, 1, 1, 1
	one.ZeRO = offloadZeRO(o.Job.Offload)[0]
	if _, err := one.Normalize(m, 0); err != nil {
		return err
	}
	if err := o.Space.validateSet(m, o.Job); err != nil {
		return err
	}
	if err := checkOffloadZeRO(o.Space.ZeRO, o.Job.Offload); err != nil {
		return err
	}
	switch {
	case o.Top < 0 || o.Top > hardware.MaxTop || o.Misses < 0 || o.Misses > hardware.MaxTop:
		return fmt.Errorf("search: top %d and misses %d must be in [0, %d]", o.Top, o.Misses, hardware.MaxTop)
	case o.Objective == Throughput && (o.GPUs < 1 || o.GPUs > hardware.MaxGPUs):
		return fmt.Errorf("search: gpus=%d is not in [1, %d]", o.GPUs, hardware.MaxGPUs)
	case o.Objective == Throughput:
		return o.Space.ValidateFor(o.GPUs)
	case o.MaxGPUs < 1 || o.MaxGPUs > hardware.MaxGPUs:
		return fmt.Errorf("search: max-gpus=%d is not in [1, %d]", o.MaxGPUs, hardware.MaxGPUs)
	}
	return nil
}

// validateSet validates the axes the restriction sets.
func (s Space) validateSet(m *costmodel.Model, job Job) error {
	full := Space{TP: []int{1}, PP: []int{1}, VPP: []int{1}, CP: []int{1}, EP: []int{1}, ETP: []int{1}, MidExtra: []int{0}, EndShift: []int{0}, ZeRO: []int{0},
		Recompute: []costmodel.Recompute{costmodel.NoRecompute}, SP: []bool{false}, MicroBatch: []int{1}}
	return full.Restrict(s).Validate(m, job)
}
