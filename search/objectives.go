package search

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// searcher carries one Search call's inputs and result.
type searcher struct {
	m       *costmodel.Model
	g       hardware.GPU
	perNode int
	a       costmodel.Assumptions
	o       Options
	r       *Result
}

// count searches one GPU count with the given number of workers for its
// k best plans; whole says that one worker searches it as part of the
// frontier, where every count is searched alike whatever the workers.
func (s *searcher) count(n, workers, k int, whole bool) (*countSearch, outcome, error) {
	c, err := clusterFor(s.g, n, s.perNode)
	if err != nil {
		return nil, outcome{}, err
	}
	cs, err := newCountSearch(s.m, c, s.a, s.o.Job, s.o.Space)
	if err != nil {
		return nil, outcome{}, err
	}
	cs.exhaustive, cs.whole = s.o.exhaustive, whole
	return cs, cs.run(workers, k, 0), nil
}

// searched records a count's search in the result.
func (s *searcher) searched(n int, out outcome) {
	s.r.Counts.add(out.counts)
	s.r.CountsSearched++
	if s.r.Searched[0] == 0 {
		s.r.Searched[0] = n
	}
	s.r.Searched[1] = n
}

// exact is the Throughput objective: the best plans on n GPUs.
func (s *searcher) exact(n int) error {
	cs, out, err := s.count(n, s.o.Workers, s.o.Top, false)
	if err != nil {
		return err
	}
	s.searched(n, out)
	s.r.MinGPUs = s.minGPUs()
	s.r.Cluster = cs.e.Cluster()
	if len(out.top.items) == 0 {
		return s.misses(cs)
	}
	s.r.GPUs, s.r.Plans = n, out.top.items
	return nil
}

// fewest is the FewestGPUs objective: counts from the smallest that can
// hold the model states up to MaxGPUs, each searched by all workers,
// stopping at the first count where a plan fits; for the frontier, the
// counts above it follow (frontier).
func (s *searcher) fewest() error {
	s.r.MinGPUs = s.minGPUs()
	counts := slices.Collect(s.counts())
	if len(counts) == 0 {
		return s.noCount()
	}
	for i, n := range counts {
		cs, out, err := s.count(n, s.o.Workers, s.o.Top, false)
		if err != nil {
			return err
		}
		s.searched(n, out)
		if len(out.top.items) == 0 {
			continue
		}
		s.r.GPUs, s.r.Plans, s.r.Cluster = n, out.top.items, cs.e.Cluster()
		if s.o.Frontier {
			s.r.Frontier = []Ranked{out.top.items[0]}
			return s.frontier(counts[i+1:])
		}
		return nil
	}
	return s.missesAt(counts[len(counts)-1])
}

// frontier searches the counts above the fewest, spread over the
// workers one count at a time, each for its best plan only (the frontier
// keeps no other), and merges in count order, keeping each count whose
// best plan is faster than every smaller count's; the result does not
// depend on the number of workers.
func (s *searcher) frontier(counts []int) error {
	outs := make([]outcome, len(counts))
	errs := make([]error, len(counts))
	var wg sync.WaitGroup
	for w := range min(s.o.Workers, len(counts)) {
		wg.Go(func() {
			for i := w; i < len(counts); i += s.o.Workers {
				_, outs[i], errs[i] = s.count(counts[i], 1, 1, true)
			}
		})
	}
	wg.Wait()
	for i, n := range counts {
		if errs[i] != nil {
			return errs[i]
		}
		s.searched(n, outs[i])
		top := outs[i].top.items
		if f := s.r.Frontier; len(top) > 0 && top[0].Performance.TokensPerSecond > f[len(f)-1].Performance.TokensPerSecond {
			s.r.Frontier = append(s.r.Frontier, top[0])
		}
	}
	return nil
}

// missesAt finds the nearest misses on n GPUs, the largest count tried.
func (s *searcher) missesAt(n int) error {
	c, err := clusterFor(s.g, n, s.perNode)
	if err != nil {
		return err
	}
	cs, err := newCountSearch(s.m, c, s.a, s.o.Job, s.o.Space)
	if err != nil {
		return err
	}
	s.r.Cluster = c
	return s.misses(cs)
}

// counts yields the GPU counts FewestGPUs tries, ascending: whole nodes
// (or every count) from the smallest that can hold the model states to
// MaxGPUs.
func (s *searcher) counts() iter.Seq[int] {
	return func(yield func(int) bool) {
		step := 1
		if s.o.Granularity == Nodes {
			step = s.perNode
		}
		lo := max(step, (s.r.MinGPUs+step-1)/step*step)
		for n := lo; n <= s.o.MaxGPUs; n += step {
			if !yield(n) {
				return
			}
		}
	}
}

// minGPUs is a lower bound on the GPUs any plan needs: every parameter's
// model states are held at least once across the cluster (ZeRO-3 shards
// them, nothing divides them further), and each GPU has its budget less
// the CUDA context and workspace for them (Rajbhandari et al. 2020, sec.
// 3.1: 16 bytes per parameter for mixed-precision Adam).
func (s *searcher) minGPUs() int {
	j := s.o.Job
	states := bytesPerParam(j, s.a) * s.m.Params().Total
	room := float64(hardware.Bytes(s.a.HBMFraction)*s.g.HBM - s.a.CUDAContext - s.a.TrainWorkspace)
	n := math.Ceil(states / room)
	if room <= 0 || n > hardware.MaxGPUs {
		return hardware.MaxGPUs + 1
	}
	return max(1, int(n))
}

// ErrNothingFits reports that no GPU count the search may try can hold
// the model states; its message says why and what to change.
var ErrNothingFits = errors.New("nothing fits")

// noCount explains why no GPU count up to MaxGPUs can hold the model
// states: a budget with no room beside the fixed overheads, or more GPUs
// than the search may try.
func (s *searcher) noCount() error {
	a, g := s.a, s.g
	budget := hardware.Bytes(a.HBMFraction) * g.HBM
	if budget <= a.CUDAContext+a.TrainWorkspace {
		return fmt.Errorf("search: %w: a budget of %v per GPU (%g%% of %v) leaves no room beside the CUDA context (%v) and the workspace (%v); raise --hbm-fraction",
			ErrNothingFits, budget, 100*a.HBMFraction, g.HBM, a.CUDAContext, a.TrainWorkspace)
	}
	need := "more than " + strconv.Itoa(hardware.MaxGPUs)
	if s.r.MinGPUs <= hardware.MaxGPUs {
		need = strconv.Itoa(s.r.MinGPUs)
	}
	return fmt.Errorf("search: %w: the model states need %s GPUs with a budget of %v each, above the %d searched (raise --max-gpus, at most %d, or --hbm-fraction)",
		ErrNothingFits, need, budget, s.o.MaxGPUs, hardware.MaxGPUs)
}

// bytesPerParam is the model-state bytes per parameter of the job,
// unsharded.
func bytesPerParam(j Job, a costmodel.Assumptions) float64 {
	return a.ModelStateBytes(j.Precision, j.Optimizer).Total()
}

// misses runs cs again without the lower bound and keeps the nearest
// misses, and the levers of the nearest from costmodel.
func (s *searcher) misses(cs *countSearch) error {
	out := cs.run(s.o.Workers, 0, s.o.Misses)
	s.r.Misses = out.misses.items
	if len(s.r.Misses) == 0 {
		return nil
	}
	rep, err := cs.e.Estimate(s.r.Misses[0].Plan)
	if err != nil {
		// Candidates are canonical plans of the count: a bug, not input.
		panic(fmt.Sprintf("search: estimating the nearest miss %s: %v", s.r.Misses[0].Plan, err))
	}
	s.r.Levers = rep.Levers
	s.r.Notes = append(s.r.Notes, rep.Notes...)
	return nil
}

// estimateNotes adds costmodel's caveats about the best plan (experts
// counted as replicated, a sequence beyond the model's context, tp across
// nodes) to the result.
func (s *searcher) estimateNotes() {
	if len(s.r.Plans) == 0 {
		return
	}
	e, err := costmodel.NewEvaluator(s.m, s.r.Cluster, s.a)
	if err != nil {
		panic(fmt.Sprintf("search: the evaluator of the answer's cluster: %v", err))
	}
	rep, err := e.Estimate(s.r.Plans[0].Plan)
	if err != nil {
		panic(fmt.Sprintf("search: estimating the best plan %s: %v", s.r.Plans[0].Plan, err))
	}
	s.r.Notes = append(s.r.Notes, rep.Notes...)
}

// clusterFor lays n GPUs out in nodes of perNode: whole nodes, one
// partial node when n is smaller, and otherwise (single-GPU granularity)
// n/d nodes of d GPUs, d the largest divisor of n within the domain.
func clusterFor(g hardware.GPU, n, perNode int) (hardware.Cluster, error) {
	if n <= perNode || n%perNode == 0 {
		return hardware.ClusterForGPUs(g, n, perNode)
	}
	d := perNode
	for n%d != 0 {
		d--
	}
	return hardware.NewCluster(g, d, n/d)
}
