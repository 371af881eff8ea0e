package calibration

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

func load(t testing.TB) []Row {
	t.Helper()
	rows, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

var comparison = func() func(t testing.TB) Comparison {
	var cmp *Comparison
	return func(t testing.TB) Comparison {
		if cmp == nil {
			c := Compare(load(t), costmodel.DefaultAssumptions())
			cmp = &c
		}
		return *cmp
	}
}()

// TestKorthikantiAccuracy: the end-to-end iteration times of Korthikanti
// et al. 2022, Table 5 (GPT 22B to 1T, full recompute and sequence
// parallelism with selective recompute) are predicted with a mean
// absolute error within GuardHeldOutMean and a maximum within
// GuardHeldOutMax (the targets, 3.5% and 8%, were met when the
// parameters were fitted on Table 4 alone; fitted on every in-scope row
// of both files, Table 5 comes out 4% slow).
func TestKorthikantiAccuracy(t *testing.T) {
	s, ok := comparison(t).Source(HeldOutSource)
	if !ok || s.Rows != 8 {
		t.Fatalf("Table 5: %+v, want 8 rows compared", s)
	}
	t.Logf("Table 5 step time: mean abs error %.1f%% (target %.1f%%), max %.1f%% (target %.0f%%)",
		100*s.Mean, 100*TargetHeldOutMean, 100*s.Max, 100*TargetHeldOutMax)
	if s.Mean > GuardHeldOutMean || s.Max > GuardHeldOutMax {
		t.Errorf("Table 5 step time: mean abs error %.1f%% (guard %.1f%%), max %.1f%% (guard %.0f%%)",
			100*s.Mean, 100*GuardHeldOutMean, 100*s.Max, 100*GuardHeldOutMax)
	}
}

// TestCalibrationSetAccuracy: over every modeled row of measured.csv the
// median absolute error is at most 10%, and the sources the model should
// track closely stay within their guards; the rows of measured.csv held
// out of the fit (OutOfScope sources) stay within 30%.
func TestCalibrationSetAccuracy(t *testing.T) {
	cmp := comparison(t)
	if cmp.Original.Rows < 60 {
		t.Errorf("only %d rows of %s compared", cmp.Original.Rows, Files[0])
	}
	var held []Result
	for _, r := range cmp.Results {
		if r.Row.File() == Files[0] && !InFit(r.Case) {
			held = append(held, r)
		}
	}
	for _, s := range []struct {
		Summary
		limit float64
	}{{cmp.Original, TargetMedian}, {summarize("held out of the fit", held), 0.30}} {
		if s.Median > s.limit {
			t.Errorf("%s: median abs error %.1f%% over %d rows, limit %.0f%%", s.Source, 100*s.Median, s.Rows, 100*s.limit)
		}
	}
	// Guard the sources that the model should track closely, so a
	// regression in one of them cannot hide behind the median (their
	// dense pre-training rows: the mixture-of-experts and LoRA rows have
	// their own guards).
	for id, limit := range map[string]float64{
		"korthikanti2022_table4": 0.05, "korthikanti2022_sec6.3": 0.06, "narayanan2021_table1": 0.07,
		"megatron_core_readme_h100_weak": 0.08, "torchtitan_docs_perf_2024": 0.06,
		"megatron_bridge_perf_summary": 0.10, "nemo_perf_summary_24.07": 0.085, "mosaicml_llmfoundry_benchmarks": 0.12,
	} {
		if s := pretrainSource(cmp, id); s.Median > limit {
			t.Errorf("%s: median abs error %.1f%%, limit %.0f%%", id, 100*s.Median, 100*limit)
		}
	}
}

// TestEveryRowAccountedFor: each of the 83 + 239 rows is compared or
// skipped with a reason; none is dropped.
func TestEveryRowAccountedFor(t *testing.T) {
	rows := load(t)
	cmp := comparison(t)
	if len(rows) != 83+239 || len(cmp.Results)+len(cmp.Skipped) != len(rows) {
		t.Fatalf("%d rows: %d compared + %d skipped", len(rows), len(cmp.Results), len(cmp.Skipped))
	}
	reasons := map[string]string{}
	for _, s := range cmp.Skipped {
		if s.Reason == "" {
			t.Errorf("%s skipped without a reason", s.Row.ID())
		}
		reasons[s.Row.ID()] = s.Reason
	}
	for id, want := range map[string]string{
		"r0087": "DualPipe",
		"r0066": "tensor-parallel degree", "r0150": "architecture not stated", "r0145": "feasibility",
		"r0198": "not in the model catalog", "r0207": "not in the model catalog",
		"r0040": "not in the hardware catalog", "r0468": "no etp makes it valid",
		"r0094": "heads not given",
	} {
		if !strings.Contains(reasons[id], want) {
			t.Errorf("%s: reason %q, want it to mention %q", id, reasons[id], want)
		}
	}
}

// TestFitReproducesDefaults: refitting from a distant start finds the
// fitted values DefaultAssumptions carries, so the defaults cannot drift
// from the data.
func TestFitReproducesDefaults(t *testing.T) {
	d := costmodel.DefaultAssumptions()
	start := d
	start.GEMMEfficiency, start.AttentionEfficiency = 0.6, 0.75
	f, err := Fit(load(t), start)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"gemm_efficiency": d.GEMMEfficiency, "attention_efficiency": d.AttentionEfficiency}
	for _, v := range f.Values {
		t.Logf("%s: fit %.4f, default %.4f", v.Name, v.Value, want[v.Name])
		// A fit from a distant start lands within 0.01 of the optimum.
		if math.Abs(v.Value-want[v.Name]) > 0.01 {
			t.Errorf("%s: fit %.4f, default %.4f", v.Name, v.Value, want[v.Name])
		}
	}
	t.Logf("fit on %d points: rms log error %.3f, largest error %.1f%%", f.Points, f.RMSLogError, 100*f.MaxAbsError)
	if f.Points < 150 || f.RMSLogError > 0.25 || len(f.Values) != len(Params) {
		t.Errorf("fit quality %+v", f)
	}
}

// TestFLOPConventions reproduces the sources' own FLOP counts: Megatron's
// formula gives NeMo 2.0's 57.9 GFLOP per token for Llama 3 8B at 8,192
// tokens (1,838 TFLOP/s at 31,737 tokens/s; calibration README, section
// 2), and Narayanan's eq. 3 inverts Table 1's 137 TFLOP/s into the
// 3.53 s step the CSV derives.
func TestFLOPConventions(t *testing.T) {
	m, _ := costmodel.LookupModel("llama3-8b")
	if got := megatronFLOPsPerToken(m, 8192); math.Abs(got/(1838e12/31737)-1) > 0.001 {
		t.Errorf("Megatron FLOPs/token %.4g, want %.4g", got, 1838e12/31737)
	}
	gpt, _ := costmodel.LookupModel("megatron-22b")
	gpt.Layers, gpt.Hidden, gpt.Heads = 24, 2304, 24
	step := narayananFLOPsPerToken(gpt, 2048) * 512 * 2048 / (32 * 137e12)
	if math.Abs(step/3.53-1) > 0.005 {
		t.Errorf("eq. 3 step %.3f s, want 3.53 s", step)
	}
	// PaLM's count for Llama 3.1 405B at 8,192 tokens: 6 x (405,853,388,800
	// - 128,256 x 16,384 embedding) + 12 x 126 x 128 x 128 x 8,192 =
	// 2,422,512,254,976 + 202,937,204,736.
	m405, _ := costmodel.LookupModel("llama3-405b")
	if got := palmFLOPsPerToken(m405, 8192); got != 2625449459712 {
		t.Errorf("PaLM FLOPs/token %.13g, want 2625449459712", got)
	}
}

// TestLlama3Rows: Meta's three Llama 3 405B rows (Dubey et al. 2024,
// Table 4) are modeled with the layout the table states, one-layer
// interleaved chunks (v 8 with 7 layers on the end stages), ZeRO-2,
// asynchronous pipeline sends and no recompute, and compared on the
// tokens/s their TFLOP/s give under PaLM's count. The 8,192-token rows
// are 9% and 8% slow; the 131,072-token row, 57% of whose PaLM FLOPs are
// attention, is 11% fast: its context parallelism all-gathers keys and
// values (Meta's, exposed but for the attention of the rank's own block,
// sec. 3.3.2), and the attention runs the fitted share of the Hopper
// kernel's benchmark speed.
func TestLlama3Rows(t *testing.T) {
	errs := map[string]float64{}
	for _, r := range comparison(t).Results {
		if r.Row.Source() == "llama3_paper_table4" {
			errs[r.Row.ID()] = r.Err
			if got := r.Plan.String(); !strings.HasPrefix(got, "tp8-pp16v8[7,7]-cp") || r.Plan.ZeRO != 2 || r.Plan.Recompute != costmodel.NoRecompute {
				t.Errorf("%s: plan %s", r.Row.ID(), got)
			}
		}
	}
	for id, limit := range map[string]float64{"r0060": 0.11, "r0061": 0.10, "r0062": 0.13} {
		e, ok := errs[id]
		if !ok || math.Abs(e) > limit {
			t.Errorf("%s: error %+.1f%% (compared %v), limit %.0f%%", id, 100*e, ok, 100*limit)
		}
		t.Logf("%s: %+.1f%%", id, 100*e)
	}
}

// TestTargets: each row is compared in the metric it publishes, and a
// TFLOP/s-only row is converted with its source's convention.
func TestTargets(t *testing.T) {
	cases, _ := Cases(load(t))
	from := map[string]string{}
	for _, c := range cases {
		from[c.Row.ID()] = c.Target.From
	}
	for id, want := range map[string]string{
		"r0023": "step_time_s", "r0001": "derived_step_time_s", "r0137": "tokens_per_s_per_gpu",
		"r0049": "Megatron-LM's model FLOPs", "r0065": "Narayanan eq. 3", "r0032": "layer_fwd_ms",
		"r0061": "PaLM's 6N + 12LHQT",
	} {
		if !strings.Contains(from[id], want) {
			t.Errorf("%s compared on %q, want %q", id, from[id], want)
		}
	}
}

func TestDedup(t *testing.T) {
	rows := load(t)
	var dup []Row
	for _, r := range rows {
		if r.ID() == "r0023" {
			dup = append(dup, r)
			c := Row{cols: map[string]string{}}
			for k, v := range r.cols {
				c.cols[k] = v
			}
			c.cols["row_id"] = "r9999"
			dup = append(dup, c)
		}
	}
	cases, skipped := Cases(dup)
	if len(cases) != 1 || cases[0].Row.ID() != "r9999" || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "repeats row r9999") {
		t.Errorf("dedup kept %d cases, skipped %+v", len(cases), skipped)
	}
}

// TestDedupKeepsNewestRelease: of two Megatron-Bridge rows of one
// configuration, r0196 (release 26.08) supersedes r0235 (26.06), which
// the archive page lists later; 26.04.01 supersedes 26.04.
func TestDedupKeepsNewestRelease(t *testing.T) {
	_, skipped := Cases(load(t))
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Row.ID()] = s.Reason
	}
	for old, kept := range map[string]string{"r0235": "r0196", "r0320": "r0269", "r0364": "r0269", "r0186": "r0192"} {
		if want := "repeats row " + kept + " "; !strings.Contains(reasons[old], want) {
			t.Errorf("%s: reason %q, want %q", old, reasons[old], want)
		}
		if strings.Contains(reasons[kept], "repeats row") {
			t.Errorf("%s, the newest release, is skipped: %s", kept, reasons[kept])
		}
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{{"26.04.01", "26.04", 1}, {"26.06", "26.08", -1}, {"25.09", "25.09", 0}, {"", "24.07", -1}} {
		row := func(v string) Row {
			return Row{cols: map[string]string{"source_locator": "docs; release " + v + "; table"}}
		}
		if got := slices.Compare(release(row(tt.a)), release(row(tt.b))); got != tt.want {
			t.Errorf("release %q vs %q: %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range []struct{ csv, want string }{
		{"row_id,source_id\nr1,x\n", "lacks the columns"},
		{"", "reading the header"},
		{strings.Join(required, ",") + "\n" + strings.Repeat(",", len(required)-1) + "\n", "row_id \"\" is empty"},
	} {
		if _, err := Read(strings.NewReader(tt.csv)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.csv, err, tt.want)
		}
	}
	r := Row{cols: map[string]string{"row_id": "r1", "tp": "two", "pp": "1.5"}}
	if _, _, err := r.Int("tp"); err == nil || !strings.Contains(err.Error(), `tp = "two"`) {
		t.Errorf("tp=two: %v", err)
	}
	if _, _, err := r.Int("pp"); err == nil || !strings.Contains(err.Error(), "not a count") {
		t.Errorf("pp=1.5: %v", err)
	}
}

// FuzzRead: any input either fails to parse or gives rows whose mapping
// does not panic.
func FuzzRead(f *testing.F) {
	f.Add(string(measuredCSV[:2000]))
	f.Add(strings.Join(required, ",") + "\nr1,korthikanti2022_table5,,,,ok,GPT,2,64,8,8,,,64,,,A100-SXM,8,8,,8,1,1,1,,,,,yes,full,1,8,fp16,1,,,,,,,\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := Read(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range func() []Case { c, _ := Cases(rows); return c }() {
			if _, err := Predict(c, costmodel.DefaultAssumptions()); err != nil {
				continue
			}
		}
	})
}

// pretrainSource summarizes the dense pre-training rows of one source.
func pretrainSource(cmp Comparison, id string) Summary {
	var rs []Result
	for _, r := range cmp.Results {
		if !r.MoE() && !r.Plan.Task.Adapted() && r.Row.Source() == id {
			rs = append(rs, r)
		}
	}
	return summarize(id, rs)
}
