package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/samber/lo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes: 0 an answer, 1 no answer (a search or serve that finds
// nothing that fits, or a failure while running), 2 bad input, 3 a bug in
// the planner (a panic, reported with its stack).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	exitBug   = 3
)

// errNothingFits ends a search or serve whose answer, printed in full, is
// that nothing fits: the CLI exits 1.
var errNothingFits = errors.New("nothing fits (the output above shows the nearest misses and what would change that)")

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is the subcommand table.
var commands = map[string]command{
	"estimate":   {"memory inventory of one plan (training or serving)", runEstimate},
	"search":     {"the best parallel plans on a GPU count, or the fewest GPUs that fit", runSearch},
	"models":     {"list the model catalog", runModels},
	"gpus":       {"list the GPU catalog", runGPUs},
	"serve":      {"fewest GPUs and ranked layouts to serve a model to its users, with speed", runServe},
	"validate":   {"compare predicted step times, memory and serving latencies with the published measurements", runValidate},
	"report":     {"a self-contained architecture review (HTML or Markdown) of a search", runReport},
	"export":     {"a plan as Megatron-LM, torchtitan, Megatron-Bridge or DeepSpeed launch config", runExport},
	"playground": {"serve the playground as a local web page (controls redraw the inventory, timeline and step time)", runPlayground},
	"notebook":   {"install: register the \"Planner (Go)\" Jupyter kernel for the notebooks", runNotebook},
}

// usageError marks bad input: the CLI exits 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// badInput wraps err as a usage error.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

func badInputf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run executes the CLI and returns its exit code. A panic is a bug: it is
// reported with its stack and exits 3, never 2, so it cannot pass for bad
// input.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "planner: internal error (a bug; please report it with the command line): %v\n%s", p, debug.Stack())
			code = exitBug
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "planner: unknown command %q (valid: %s)\n", args[0], strings.Join(commandNames(), ", "))
		return exitUsage
	}
	err := cmd.run(args[1:], stdout, stderr)
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "planner %s: %v\nrun planner %s -h for help\n", args[0], err, args[0])
		return exitUsage
	}
	fmt.Fprintf(stderr, "planner %s: %v\n", args[0], err)
	return exitFail
}

func commandNames() []string {
	names := lo.Keys(commands)
	slices.Sort(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: planner <command> [flags]   (planner <command> -h for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
}
