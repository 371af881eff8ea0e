package calibration

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// MemoryTolerance is the relative error within which a predicted peak
// counts as matching the measured memory.
const MemoryTolerance = 0.10

// MemoryRow is one row that reports a measured per-GPU memory or whether
// its plan ran out of memory, next to the planner's inventory for it.
type MemoryRow struct {
	Row Row
	// Ran is false for an OOM outcome.
	Ran bool
	// Measured is the reported memory in bytes (0 when the row reports
	// none), Unit "GiB" or "GB" as the source prints it, Metric what the
	// number measures.
	Measured hardware.Bytes
	Unit     string
	Metric   string
	// Peak is the predicted memory of the most loaded GPU (stage
	// PeakStage), Budget what the plan may use at the budget the source
	// ran under: the whole HBM (WholeHBM) where the measured memory
	// exceeds 90% of the card, and for OOM rows; the default share
	// otherwise.
	Peak      hardware.Bytes
	PeakStage int
	Budget    hardware.Bytes
	WholeHBM  bool
	Fits      bool
	// Err is Peak/Measured - 1 (rows with a measured memory).
	Err float64
	// Reason is "within 10%" or why the prediction is not.
	Reason string
}

// HasMeasured reports whether the row reports a memory figure.
func (m MemoryRow) HasMeasured() bool { return m.Measured > 0 }

// Within reports whether the peak is within MemoryTolerance of the
// measured memory.
func (m MemoryRow) Within() bool { return m.HasMeasured() && math.Abs(m.Err) <= MemoryTolerance }

// MemoryTable is every memory row, and the summary.
type MemoryTable struct {
	Rows    []MemoryRow
	Skipped []Skip
	// Measured rows, of which Within are within 10%; Median is the
	// median |error| over them.
	Measured, Within int
	Median           float64
	// Ran rows (outcome ok), of which Fit are predicted to fit; OOM rows,
	// of which NotFit are predicted not to fit.
	Ran, Fit    int
	OOM, NotFit int
	// Unreported is the fit check of the compared runs that report no
	// memory.
	Unreported RanFit
}

// Memory builds the memory table of rows with base assumptions (the
// row's framework settings on top). Every row is kept, repeats of one
// experiment too: each reports its own memory.
func Memory(rows []Row, base costmodel.Assumptions) MemoryTable {
	var t MemoryTable
	var errs []float64
	for _, r := range rows {
		measured, unit, err := measuredMemory(r)
		if err != nil {
			t.Skipped = append(t.Skipped, Skip{r, err.Error()})
			continue
		}
		ran := r.Get("outcome") == "ok"
		if measured == 0 && ran {
			continue
		}
		c, err := newSetup(r)
		if err != nil {
			t.Skipped = append(t.Skipped, Skip{r, err.Error()})
			continue
		}
		m, err := c.memoryRow(base, measured, unit, ran)
		if err != nil {
			t.Skipped = append(t.Skipped, Skip{r, err.Error()})
			continue
		}
		t.Rows = append(t.Rows, m)
		if m.HasMeasured() {
			t.Measured++
			errs = append(errs, math.Abs(m.Err))
			if m.Within() {
				t.Within++
			}
		}
		if ran {
			t.Ran++
			if m.Fits {
				t.Fit++
			}
		} else {
			t.OOM++
			if !m.Fits {
				t.NotFit++
			}
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		n := len(errs)
		t.Median = (errs[(n-1)/2] + errs[n/2]) / 2
	}
	t.Unreported = ranFit(rows, base)
	return t
}

// measuredMemory reads the row's memory: GiB where the source reports
// GiB, decimal GB otherwise; 0 when it reports none.
func measuredMemory(r Row) (hardware.Bytes, string, error) {
	if v, ok, err := r.Float("mem_per_gpu_gib"); err != nil || ok {
		return hardware.Bytes(v * (1 << 30)), "GiB", err
	}
	v, ok, err := r.Float("mem_per_gpu_gb")
	if err != nil || !ok {
		return 0, "", err
	}
	return hardware.Bytes(v * 1e9), "GB", nil
}

func (c Case) memoryRow(base costmodel.Assumptions, measured hardware.Bytes, unit string, ran bool) (MemoryRow, error) {
	a := c.Assumptions(base)
	e, err := costmodel.NewEvaluator(c.Model, c.Cluster, a)
	if err != nil {
		return MemoryRow{}, err
	}
	rep, err := e.Estimate(c.Plan)
	if err != nil {
		return MemoryRow{}, err
	}
	peak, stage := rep.Memory.Total, rep.PeakStage
	if c.HalfRecompute {
		full := c.Plan
		full.Recompute = costmodel.Full
		rf, err := e.Estimate(full)
		if err != nil {
			return MemoryRow{}, err
		}
		peak = (peak + rf.Memory.Total) / 2
	}
	m := MemoryRow{Row: c.Row, Ran: ran, Measured: measured, Unit: unit, Metric: memoryMetric(c.Row),
		Peak: peak, PeakStage: stage, Budget: rep.Memory.Budget}
	if !ran || measured > 0.9*rep.Memory.Capacity {
		m.WholeHBM, m.Budget = true, rep.Memory.Capacity
	}
	m.Fits = m.Peak <= m.Budget
	if measured > 0 {
		m.Err = float64(peak)/float64(measured) - 1
		m.Reason = c.memoryReason(m, rep, a)
	}
	return m, nil
}

// memoryMetric names what the row's memory figure measures.
func memoryMetric(r Row) string {
	s := r.Get("mem_metric")
	switch {
	case s == "" && r.Get("outcome") != "ok":
		return "out of memory"
	case has(s, "max reserved"):
		return "torch max reserved, max over ranks"
	case has(s, "max allocated"):
		return "torch max allocated"
	case has(s, "first/last"):
		return "nvidia-smi used, max over the first/last stages"
	case has(s, "nvidia-smi"):
		return "nvidia-smi used"
	}
	return s
}

// memoryReason says why a prediction is not within 10% of the measured
// memory, from what the row states.
func (c Case) memoryReason(m MemoryRow, rep *costmodel.Report, a costmodel.Assumptions) string {
	if m.Within() {
		return "within 10%"
	}
	var why []string
	r := c.Row
	s := rep.Stages[rep.PeakStage]
	under := m.Err < 0
	if has(r.Get("mem_metric"), "max reserved") && under {
		why = append(why, fmt.Sprintf("the source measures torch max_reserved, which includes the allocator cache the model counts as %.0f%% fragmentation (%v)",
			100*a.Fragmentation, s.Fragmentation))
	}
	if has(r.Get("mem_metric"), "first/last") && c.Plan.PP > 1 {
		why = append(why, fmt.Sprintf("the BLOOM prequel's 'Mem' is the max over the first/last stages (predicted peak on stage %d of %d)",
			rep.PeakStage, c.Plan.PP))
	}
	if has(r.Get("recompute"), "not stated") {
		why = append(why, fmt.Sprintf("recompute not stated per row (%s assumed)", c.Plan.Recompute))
	}
	if c.HalfRecompute {
		why = append(why, "per-layer selective AC (every other layer checkpointed) predicted at the mean of no and full recompute")
	}
	if has(r.Get("precision"), "float8") {
		why = append(why, "Float8 linears (torchao, tensorwise): the inventory holds 16-bit saved inputs and the FP8 weight copies, not the transient FP8 casts of each forward and backward")
	}
	if note := measuredMemoryNote[r.Source()]; note != "" {
		why = append(why, note)
	}
	if len(why) == 0 {
		if under {
			return "under-predicted; no setting the row states explains it"
		}
		return "over-predicted; no setting the row states explains it"
	}
	return strings.Join(why, "; ")
}

// measuredMemoryNote is what a source's own memory figures say about
// the rows the model misses, for the memory table's reasons.
var measuredMemoryNote = map[string]string{
	// pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md:
	// Table 6 (405B, TP 8, PP 8, local batch 8) reads 75.3, 75.9, 77.1
	// and 84.9 GiB at FSDP x CP = 8 x 1, 4 x 2, 2 x 4 and 1 x 8, each
	// at 32,768 local tokens per GPU; Table 2 (8B, full AC) reads 83.9,
	// 84.2, 84.0 and 84.5 GiB over the same four splits. torchtitan
	// shards FSDP over dp_shard x cp, so the states are equal too.
	// torchao eab345c's tensorwise matmul
	// (torchao/float8/float8_linear.py,
	// manual_float8_matmul_with_args_in_float8) saves the FP8 input and
	// the FP8 weight transpose: like its casts, sized by the local tokens
	// and the stage's weights.
	"torchtitan_bench_2024-12": "the benchmark's Table 6 reads 75.3, 75.9, 77.1 and 84.9 GiB at CP 1, 2, 4 and 8 with " +
		"the same 32,768 local tokens and FSDP x CP = 8, and its 8B Table 2 stays at 83.9 to 84.5 GiB over the same " +
		"splits: the 405B's memory rises 1.8 GiB from CP 1 to CP 4 and 7.8 GiB more at CP 8, which no tensor sized by " +
		"the local tokens or the weights (torchao's FP8 casts and saved FP8 inputs among them) does, nor one sized by " +
		"the whole sequence, which the 8B rows would show",
}
