package search

import "encoding/json"

// Reason is why a candidate of the grid was not ranked.
type Reason int

const (
	// RejectLayout: tp*pp*cp does not divide the GPU count.
	RejectLayout Reason = iota
	// RejectSplit: the layers do not split over pp stages and vpp chunks
	// with this mid-extra and end-shift (an end chunk would need fewer
	// than no layers, or a stage would have none).
	RejectSplit
	// RejectDuplicate: the same plan as an earlier candidate (sequence
	// parallelism at tp 1, ZeRO with nothing to shard over, a split that
	// changes nothing).
	RejectDuplicate
	// RejectSequence: sequence parallelism needs seq/cp divisible by tp.
	RejectSequence
	// RejectBatch: dp*mbs does not divide the global batch.
	RejectBatch
	// RejectStates: the model states and fixed overheads alone exceed
	// the budget (costmodel.Evaluator.PeakLowerBound): no activation math.
	RejectStates
	// RejectMemory: the peak stage exceeds the budget.
	RejectMemory
	// RejectDominated: an uneven layer split that fits but neither lowers
	// the peak nor raises the throughput of the balanced split.
	RejectDominated
	// RejectSlower: a plan whose throughput cannot reach the plans
	// already ranked: the bound of its step time
	// (costmodel.StepTimeLowerBound) gives fewer tokens/s than the K-th
	// best, so neither its memory nor its step time is computed.
	RejectSlower
	// RejectExperts: the expert layout is invalid (costmodel's
	// checkExperts): ep does not divide the routed experts, ep*etp does
	// not divide tp*cp*dp, or ep > 1 with tp > 1 lacks sequence
	// parallelism.
	RejectExperts
	numReasons
)

var reasonKeys = [numReasons]string{"layout", "split", "duplicate", "sequence", "batch", "states", "memory", "dominated", "slower", "experts"}

var reasonText = [numReasons]string{
	"tp*pp*cp does not divide the GPU count",
	"the layers do not split over pp stages x vpp chunks with this mid-extra and end-shift",
	"same plan as another candidate (SP at tp 1, ZeRO with dp*cp 1, a split that changes nothing)",
	"sequence parallelism needs seq/cp divisible by tp",
	"dp*mbs does not divide the global batch",
	"model states alone exceed the budget (bound, no activation math)",
	"peak stage exceeds the budget (computed, or implied by a smaller micro-batch already over)",
	"uneven layer split no lower in memory and no faster than the balanced one",
	"a bound on its speed (its compute alone) is below the plans ranked (memory not computed)",
	"ep does not divide the experts, ep*etp does not divide tp*cp*dp, or ep > 1 at tp > 1 without SP",
}

// Key is the reason's short name, as JSON and CSV carry it.
func (r Reason) Key() string { return reasonKeys[r] }

// String says the reason in words.
func (r Reason) String() string { return reasonText[r] }

// Reasons lists every reason in a fixed order.
func Reasons() []Reason {
	out := make([]Reason, numReasons)
	for i := range out {
		out[i] = Reason(i)
	}
	return out
}

// Counts accounts for every point of the candidate grid: each is either
// rejected for one reason or fits. Considered = Fit + the sum of
// Rejected.
type Counts struct {
	// Considered is the number of grid points (Space.Size per GPU count).
	Considered int
	// Evaluated is the candidates whose peak stage was computed.
	Evaluated int
	// Fit is the candidates within the budget that were ranked; those
	// that fit but were dominated are counted under RejectDominated, and
	// those that could not reach the ranking, fitting or not, under
	// RejectSlower.
	Fit      int
	Rejected [numReasons]int
}

// reject counts n candidates as rejected for reason r.
func (c *Counts) reject(r Reason, n int) { c.Rejected[r] += n }

// add sums d into c.
func (c *Counts) add(d Counts) {
	c.Considered += d.Considered
	c.Evaluated += d.Evaluated
	c.Fit += d.Fit
	for i := range c.Rejected {
		c.Rejected[i] += d.Rejected[i]
	}
}

// RejectedTotal sums the rejections.
func (c Counts) RejectedTotal() int {
	n := 0
	for _, v := range c.Rejected {
		n += v
	}
	return n
}

// MarshalJSON writes the rejections keyed by reason.
func (c Counts) MarshalJSON() ([]byte, error) {
	rej := make(map[string]int, numReasons)
	for i, v := range c.Rejected {
		rej[reasonKeys[i]] = v
	}
	return json.Marshal(struct {
		Considered int            `json:"considered"`
		Evaluated  int            `json:"evaluated"`
		Fit        int            `json:"fit"`
		Rejected   map[string]int `json:"rejected"`
	}{c.Considered, c.Evaluated, c.Fit, rej})
}
