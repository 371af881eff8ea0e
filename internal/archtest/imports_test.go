// Package archtest enforces the direction of imports between the
// project's packages: hardware <- costmodel <- costmodel/frameworks <-
// costmodel/calibration, and costmodel <- search <- view <- kernel and
// cmd/planner. Only kernel may import gonb, so the command's playground
// page draws with view and stays free of it.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for each package, the project packages it may import.
var allowed = map[string][]string{
	"hardware":              {"internal/names"},
	"costmodel":             {"hardware", "internal/names", "costmodel/efficiency"},
	"costmodel/efficiency":  {"hardware"},
	"costmodel/frameworks":  {"hardware", "costmodel", "costmodel/efficiency"},
	"costmodel/calibration": {"hardware", "costmodel", "costmodel/frameworks", "costmodel/efficiency"},
	"costmodel/trainrun":    {"hardware"},
	"costmodel/servingcal":  {"hardware", "costmodel", "costmodel/efficiency", "internal/names"},
	"launch":                {"hardware", "costmodel", "costmodel/efficiency"},
	"search":                {"hardware", "costmodel", "internal/names", "costmodel/efficiency"},
	"view":                  {"hardware", "costmodel", "search", "costmodel/efficiency"},
	"kernel":                {"hardware", "costmodel", "costmodel/calibration", "search", "view", "costmodel/efficiency"},
	"cmd/planner": {"hardware", "costmodel", "costmodel/frameworks", "costmodel/calibration", "costmodel/efficiency",
		"costmodel/trainrun", "costmodel/servingcal", "search", "view", "launch", "internal/names"},
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/gpu-planner/planner/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		rules, checked := allowed[pkg]
		for _, imp := range fields[1:] {
			if strings.Contains(imp, "janpfeifer/gonb") && pkg != "kernel" {
				t.Errorf("%s imports %s; only kernel may import gonb", pkg, imp)
			}
			dep, ok := strings.CutPrefix(imp, mod)
			if !ok || !checked {
				continue
			}
			if !contains(rules, dep) {
				t.Errorf("%s imports %s, against the one-way order (allowed: %v)", pkg, dep, rules)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
