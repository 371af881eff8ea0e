package kernel

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Checks verifies the numbers a notebook teaches. Done prints one line,
// "✓ 12 checks passed", to Out (standard output when nil) when all
// passed: the reader sees the lesson's numbers, not the test's. When any
// failed, Done prints every check, "ok" or "FAIL" with the value and what
// was wanted, and fails the cell (it panics), so a headless run of the
// notebook fails too. The zero value is ready to use.
//
//	var c kernel.Checks
//	c.Near("Llama 3.1 8B weights in bf16, GB", weights.GB(), 16, 0.01)
//	c.Done()
type Checks struct {
	Out    io.Writer
	failed []string
	lines  []string
}

// Near checks that got is within a relative tolerance tol of want.
func (c *Checks) Near(what string, got, want, tol float64) bool {
	ok := finite(got, want) && math.Abs(got-want) <= tol*math.Abs(want)
	detail := fmt.Sprintf("%.4g, want %.4g ± %.2g%%", got, want, 100*tol)
	if tol < 1e-6 {
		detail = fmt.Sprintf("%.4g, want %.4g (equal up to rounding)", got, want)
	}
	return c.record(what, ok, detail)
}

// Between checks that lo <= got <= hi.
func (c *Checks) Between(what string, got, lo, hi float64) bool {
	ok := finite(got) && got >= lo && got <= hi
	return c.record(what, ok, fmt.Sprintf("%.4g, want in [%.4g, %.4g]", got, lo, hi))
}

// True checks a condition.
func (c *Checks) True(what string, ok bool) bool {
	return c.record(what, ok, fmt.Sprint(ok))
}

func (c *Checks) record(what string, ok bool, detail string) bool {
	verdict := "ok  "
	if !ok {
		verdict = "FAIL"
		c.failed = append(c.failed, what+": "+detail)
	}
	c.lines = append(c.lines, fmt.Sprintf("%s %s: %s\n", verdict, what, detail))
	return ok
}

// Err returns an error listing the failed checks, or nil.
func (c *Checks) Err() error {
	if len(c.failed) == 0 {
		return nil
	}
	return fmt.Errorf("kernel: %d of %d checks failed:\n  %s", len(c.failed), len(c.lines), strings.Join(c.failed, "\n  "))
}

// Done prints the one-line summary, or every check and then panics with
// the failed ones: a notebook whose numbers are off must not pass.
func (c *Checks) Done() {
	out := c.Out
	if out == nil {
		out = os.Stdout
	}
	err := c.Err()
	if err == nil {
		fmt.Fprintf(out, "✓ %d checks passed\n", len(c.lines))
		return
	}
	fmt.Fprint(out, strings.Join(c.lines, ""))
	panic(err)
}

// finite reports whether no value is NaN or infinite.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
