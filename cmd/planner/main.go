package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes: 0 success (a plan that does not fit is still a successful
// answer), 1 a failure while running, 2 bad input.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

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
	"validate":   {"compare predicted step times with the published measurements", runValidate},
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

// run executes the CLI and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
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
		fmt.Fprintf(stderr, "planner %s: %v\n", args[0], err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "planner %s: %v\n", args[0], err)
	return exitFail
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: planner <command> [flags]   (planner <command> -h for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
