package costmodel

// interleaved is one pipeline rank's view of Megatron-Core's interleaved
// 1F1B schedule (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving and get_schedule_table,
// with microbatch_group_size_per_vp_stage at its default, pp):
//
//   - the forwards run in groups of pp micro-batches (the last group
//     takes the rest); each group passes the rank's chunk 0 for all its
//     micro-batches, then chunk 1, ..., chunk v-1;
//   - the backwards run the same table with the chunks reversed;
//   - rank r first runs (pp-r-1)*2 + (v-1)*pp forwards (warm-up; all
//     m*v when there are no more), then alternates one forward and one
//     backward, then runs the remaining backwards.
//
// The rank holds the activations of every chunk forward whose backward
// has not run. They peak right after a forward: at the first one of the
// steady state, or after the last forward when the warm-up takes them
// all. With equal chunks every steady-state instant holds the same
// number of chunks; with unequal ones (a lighter end chunk, the
// embedding on chunk 0, the logits on the last chunk, dense layers among
// MoE ones) the peak is the heaviest of those instants.
type interleaved struct {
	v, g       int // chunks per rank, micro-batches per group (pp)
	full, last int // groups of g before the last group, and its size
	warm       int // forwards before the steady state
	total      int // m*v forwards
}

func (p Plan) interleavedSchedule(r, m int) interleaved {
	s := interleaved{v: p.VPP, g: p.PP, total: m * p.VPP}
	s.full = (m - 1) / s.g
	s.last = m - s.full*s.g
	s.warm = min((p.PP-r-1)*2+(p.VPP-1)*p.PP, s.total)
	return s
}

// steps is the number of instants that can hold the peak: one per
// steady-state forward, or the one after the last forward.
func (s *interleaved) steps() int { return max(s.total-s.warm, 1) }

// done is how many forwards and backwards have run at instant i.
func (s *interleaved) done(i int) (fwd, bwd int) {
	if s.warm == s.total {
		return s.total, 0
	}
	return s.warm + i + 1, i
}

// chunk is the local chunk of forward x (0-based) of the table.
func (s *interleaved) chunk(x int) int {
	if period := s.v * s.g; x < s.full*period {
		return x % period / s.g
	}
	return (x - s.full*s.v*s.g) / s.last
}

// count is how many of the first x forwards run local chunk j; the
// first x backwards run chunk j count(x, v-1-j) times.
func (s *interleaved) count(x, j int) int {
	period := s.v * s.g
	q := min(x/period, s.full)
	size := s.g
	if q == s.full {
		size = s.last
	}
	return q*s.g + min(max(x-q*period-j*size, 0), size)
}

// held is how many micro-batches' activations local chunk j holds at
// instant i.
func (s *interleaved) held(i, j int) int {
	f, b := s.done(i)
	return s.count(f, j) - s.count(b, s.v-1-j)
}

// maxWeights is the most chunks per rank whose weights peak keeps in an
// array; more chunks are weighed on demand.
const maxWeights = 32

// chunkWeights gives the bytes one micro-batch leaves on each local chunk.
type chunkWeights struct {
	n  int
	w  [maxWeights]float64
	of func(j int) float64
}

func (c *chunkWeights) at(j int) float64 {
	if c.n <= maxWeights {
		return c.w[j]
	}
	return c.of(j)
}

// peak returns the instant at which the rank holds the most bytes (the
// first such instant, up to rounding). When the chunks weigh the same it
// is instant 0. Otherwise it walks the instants, each adding one forward
// and removing one backward, a run at a time: within a run the forward
// and the backward stay in one block of the table (one chunk), so the
// bytes change by the same amount each instant and peak at one end of the
// run. Nor does it walk them all: while the forwards are in full groups
// the bytes held repeat every v*pp instants (a period adds and removes pp
// micro-batches of every chunk), so the first period stands for all such
// instants; the forwards of the last group add at most v*pp more. That
// is at most about 6*v runs, whatever the number of micro-batches.
func (s *interleaved) peak(w *chunkWeights, uniform bool) int {
	steps := s.steps()
	if uniform || steps == 1 {
		return 0
	}
	period := s.v * s.g
	cur := s.bytes(0, w)
	best, at := cur, 0
	keep := func(i int, x float64) {
		if x > best*(1+1e-12) {
			best, at = x, i
		}
	}
	walk := func(from, to int) {
		for i := from; i < to; {
			f, b := s.done(i)
			run := min(s.blockEnd(f-1)-(f-1), s.blockEnd(b-1)-(b-1), to-i)
			d := w.at(s.chunk(f-1)) - w.at(s.v-1-s.chunk(b-1))
			first := cur + d
			cur += float64(run) * d
			if d > 0 {
				keep(i+run-1, cur)
			} else {
				keep(i, first)
			}
			i += run
		}
	}
	// Instants up to last add forwards of full groups.
	last := s.full*period - s.warm - 1
	if last < 2*period {
		walk(1, steps)
		return at
	}
	walk(1, period)
	cur = s.bytes(last+1, w)
	keep(last+1, cur)
	walk(last+2, steps)
	return at
}

// blockEnd is the end of the block of the table (one chunk of one group)
// that holds index x.
func (s *interleaved) blockEnd(x int) int {
	if head := s.full * s.v * s.g; x >= head {
		return head + ((x-head)/s.last+1)*s.last
	}
	return (x/s.g + 1) * s.g
}

// bytes is what the rank holds at instant i.
func (s *interleaved) bytes(i int, w *chunkWeights) float64 {
	var t float64
	for j := range s.v {
		t += float64(s.held(i, j)) * w.at(j)
	}
	return t
}
