package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestSearchWholeRun: with --tokens and --gpu-hour-price every ranked
// plan gets a time to train, GPU-hours and a cost, and the JSON figures
// follow the formulas from the plan's own throughput.
func TestSearchWholeRun(t *testing.T) {
	args := []string{"search", "--model", "llama3-405b", "--gpus", "1024", "--tokens", "15e12", "--gpu-hour-price", "2.5", "--top", "3"}
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"whole run: 15.0 T tokens", "time to train", "GPU-hours", "cost (USD)", "PUE 1.2", "700 W TDP"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(out, " days "); n < 3 {
		t.Errorf("%d rows with a time to train, want 3:\n%s", n, out)
	}
	code, js, errs := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var r struct {
		Plans []struct {
			PlanString  string `json:"plan_string"`
			GPUs        int    `json:"gpus"`
			Performance struct {
				TokensPerS float64 `json:"tokens_per_s"`
			} `json:"performance"`
		} `json:"plans"`
		Run struct {
			Plans []struct {
				Plan string `json:"plan"`
				Run  struct {
					Time     float64 `json:"time_to_train_s"`
					GPUHours float64 `json:"gpu_hours"`
					Cost     float64 `json:"cost_usd"`
					Energy   float64 `json:"energy_j"`
				} `json:"run"`
			} `json:"plans"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Run.Plans) != len(r.Plans) || len(r.Plans) != 3 {
		t.Fatalf("%d runs for %d plans", len(r.Run.Plans), len(r.Plans))
	}
	for i, p := range r.Plans {
		run := r.Run.Plans[i].Run
		wantT := 15e12 / p.Performance.TokensPerS
		near(t, p.PlanString+" time", run.Time, wantT)
		near(t, p.PlanString+" GPU-hours", run.GPUHours, 1024*wantT/3600)
		near(t, p.PlanString+" cost", run.Cost, 2.5*1024*wantT/3600)
		near(t, p.PlanString+" energy", run.Energy, 1024*700*1.2*wantT)
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("%s = %g, want %g", what, got, want)
	}
}

// TestDeadlinePicksFewest: under a deadline the fewest-GPUs search picks
// a count that meets it, and no smaller frontier count does.
func TestDeadlinePicksFewest(t *testing.T) {
	code, js, errs := runCLI(t, "search", "--model", "llama3-70b", "--tokens", "2T", "--deadline", "60d", "--max-gpus", "512", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Run struct {
			Frontier []struct {
				Run struct {
					GPUs int     `json:"gpus"`
					Time float64 `json:"time_to_train_s"`
				} `json:"run"`
				Meets bool `json:"meets_deadline"`
			} `json:"frontier"`
			Pick *struct {
				Run struct {
					GPUs int     `json:"gpus"`
					Time float64 `json:"time_to_train_s"`
				} `json:"run"`
			} `json:"pick"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.Run.Pick == nil {
		t.Fatal("no pick under a 60-day deadline on up to 512 GPUs")
	}
	if r.Run.Pick.Run.Time > 60*86400 {
		t.Errorf("pick takes %g s, over the deadline", r.Run.Pick.Run.Time)
	}
	for _, f := range r.Run.Frontier {
		if f.Meets != (f.Run.Time <= 60*86400) {
			t.Errorf("%d GPUs: meets %v at %g s", f.Run.GPUs, f.Meets, f.Run.Time)
		}
	}
}

// TestRunBadInput: the run flags name the bad value and exit 2.
func TestRunBadInput(t *testing.T) {
	base := []string{"search", "--model", "llama3-405b", "--gpus", "1024"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu-hour-price", "2"}, "--gpu-hour-price needs --tokens"},
		{[]string{"--deadline", "90d"}, "--deadline needs --tokens"},
		{[]string{"--tokens", "lots"}, `tokens "lots" is not a positive count`},
		{[]string{"--tokens", "15T", "--gpu-hour-price", "-1"}, "GPU-hour price -1"},
		{[]string{"--tokens", "15T", "--pue", "0.5"}, "PUE 0.5 is not in [1, 5]"},
		{[]string{"--tokens", "15T", "--deadline", "soon"}, `duration "soon"`},
		{[]string{"--tokens", "15T", "--rank-by", "speed"}, `--rank-by "speed" is not throughput, cost or time`},
	} {
		args := append(append([]string{}, base...), tt.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("planner %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, errs, tt.want)
		}
	}
	code, _, errs := runCLI(t, "estimate", "--model", "llama3-70b", "--gpus", "8", "--tokens", "0")
	if code != 2 || !strings.Contains(errs, `tokens "0"`) {
		t.Errorf("estimate --tokens 0: exit %d, %q", code, errs)
	}
}

// TestEstimateWholeRun: estimate --tokens adds the run of the one plan.
func TestEstimateWholeRun(t *testing.T) {
	code, out, errs := runCLI(t, "estimate", "--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "2", "--sp", "--zero", "1",
		"--recompute", "selective", "--gbs", "128", "--tokens", "15T", "--gpu-hour-price", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"whole run: 15.0 T tokens at this step time", "time to train", "cost = GPU-hours x $2 per GPU-hour"} {
		if !strings.Contains(out, want) {
			t.Errorf("estimate output lacks %q", want)
		}
	}
}
