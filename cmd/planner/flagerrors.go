package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/gpu-planner/planner/internal/names"
)

// parseQuietly parses args without the flag package's habit of printing
// the whole usage after a bad value: -h prints it, a bad flag or value
// returns one error naming the flag, the value and what would be valid.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err == flag.ErrHelp {
		fmt.Fprintf(out, "usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		if f := helpFooters[fs.Name()]; f != "" {
			fmt.Fprintf(out, "\n%s\n", f)
		}
		return err
	}
	if err != nil {
		return flagError(fs, err)
	}
	return nil
}

// helpFooters are printed after a command's flags by -h, keyed by the
// flag set's name ("planner search").
var helpFooters = map[string]string{}

var (
	badValue   = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-(\S+): (.*)$`)
	undefined  = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)
	needsValue = regexp.MustCompile(`^flag needs an argument: -+(\S+)$`)
)

// flagError rewrites the flag package's errors into the CLI's form.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("--%s %q: %s", m[2], m[1], valueProblem(fs.Lookup(m[2]), m[3]))
	}
	if m := undefined.FindStringSubmatch(msg); m != nil {
		var all []string
		fs.VisitAll(func(f *flag.Flag) { all = append(all, f.Name) })
		hint := ""
		if c := names.Closest(m[1], all, 1); len(c) > 0 {
			hint = fmt.Sprintf(" (did you mean --%s?)", c[0])
		}
		return fmt.Errorf("flag provided but not defined: --%s%s", m[1], hint)
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("flag needs an argument: --%s", m[1])
	}
	return err
}

// valueProblem says what the flag wants instead of the flag package's
// "parse error".
func valueProblem(f *flag.Flag, problem string) string {
	if f == nil {
		return problem
	}
	switch t := fmt.Sprintf("%T", f.Value); {
	case problem == "value out of range":
		return "out of range"
	case problem != "parse error":
		return problem
	case strings.Contains(t, "bool"):
		return "want true or false"
	case strings.Contains(t, "int"):
		return "want an integer"
	case strings.Contains(t, "float"):
		return "want a number"
	case strings.Contains(t, "duration"):
		return "want a duration such as 1s"
	}
	return problem
}
