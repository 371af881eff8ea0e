// Command nbcheck checks Jupyter notebooks for the notebook tests.
//
// Usage:
//
//	nbcheck executed.ipynb ...      fail if any executed cell failed
//	nbcheck -clean notebook.ipynb ... fail if a notebook carries outputs
//	nbcheck -canary executed.ipynb ...  pass only if exactly the cells tagged
//	                                    must-fail failed
//	nbcheck -numbers executed.ipynb ... fail if the prose states a number
//	                                    with a unit that no cell near it printed
//
// An executed notebook fails when a code cell that should have run did not
// (no execution count), has an "error" output, or printed GoNB's "exit
// status N" (or "signal: ...") line to stderr, which is how GoNB reports a
// cell program or a "!" shell line that exited non-zero. nbconvert's exit
// code alone misses some of these, so the notebook tests run nbconvert
// with --allow-errors and then nbcheck. Cells tagged skip-execution are
// not expected to run.
//
// With -clean, nbcheck fails when a notebook has outputs or execution
// counts (notebooks are committed without outputs, and the tests write the
// executed copies elsewhere), or names a kernel other than "planner", the
// Planner (Go) kernel that "planner notebook install" registers.
//
// With -canary, nbcheck checks a canary notebook, whose cells tagged
// must-fail each break in a different way (a failed check, a failed
// %test, a compile error): it passes only when every such cell was caught
// as failed and every other cell passed, which proves the checker catches
// each kind of failure.
//
// With -numbers, nbcheck holds an executed chapter's prose to its outputs:
// every number a markdown cell states with a unit must be printed, to the
// precision and in the unit the prose writes it, by the code cells next to
// it (numbers.go states the rule and its exemptions). A chapter then
// cannot say 811 GB where its cells print 812 GB, or drift silently when
// the cost model changes.
//
// nbcheck exits 0 when every notebook passes, 1 when one fails, and 2 on
// bad usage or a file it cannot read.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nbcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clean := fs.Bool("clean", false, "check that notebooks carry no outputs (as committed)")
	canary := fs.Bool("canary", false, "check that exactly the cells tagged must-fail failed")
	numbers := fs.Bool("numbers", false, "check that every number the prose states with a unit is printed by a neighbouring cell")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: nbcheck [-clean] notebook.ipynb ...")
		return 2
	}
	failed := 0
	for _, path := range fs.Args() {
		nb, err := readNotebook(path)
		if err != nil {
			fmt.Fprintln(stderr, "nbcheck:", err)
			return 2
		}
		var problems []string
		switch {
		case *clean:
			problems = nb.outputs()
		case *canary:
			problems = nb.canaryMisses()
		case *numbers:
			problems = nb.unprintedNumbers()
		default:
			problems = nb.failures()
		}
		for _, p := range problems {
			fmt.Fprintf(stdout, "FAIL %s %s\n", path, p)
		}
		if len(problems) > 0 {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "nbcheck: %d of %d notebook(s) failed\n", failed, fs.NArg())
		return 1
	}
	fmt.Fprintf(stdout, "nbcheck: %d notebook(s) OK\n", fs.NArg())
	return 0
}
