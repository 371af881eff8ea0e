package search

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/costmodel"
)

func query(t testing.TB, modelName, gpuName string, gpus, context, users int, w costmodel.DType) ServeQuery {
	t.Helper()
	return ServeQuery{Model: model(t, modelName), GPU: gpu(t, gpuName), GPUs: gpus, Assumptions: costmodel.DefaultAssumptions(),
		Load: costmodel.ServePlan{Context: context, Users: users, Weights: w, BlockTokens: 16}}
}

func serve(t testing.TB, q ServeQuery) *ServeResult {
	t.Helper()
	r, err := Serve(q)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestServe405B: Llama 3.1 405B's bf16 weights are 812 GB, more than
// eight 80 GB H100s hold (8 x 77 GB budget): the fewest is two nodes,
// tp8-pp2. The three answers: fp8 weights (406 GB) on eight H100s, with
// about 15 GB per GPU to spare for 16 users of 8,192 tokens; bf16 on
// eight H200s (141 GB) or B200s (180 GB); or the 16 H100s.
func TestServe405B(t *testing.T) {
	r := serve(t, query(t, "llama3.1-405b", "h100-sxm", 0, 8192, 16, costmodel.DTypeBF16))
	if !r.Fewest || r.GPUs != 16 || r.Best() == nil || r.Best().Layout != "tp8-pp2 x 1 replica" {
		t.Fatalf("fewest %d GPUs, best %+v", r.GPUs, r.Best())
	}
	kinds := map[string][]Alternative{}
	for _, a := range r.Alternatives {
		kinds[a.Kind] = append(kinds[a.Kind], a)
	}
	low := kinds[LowerBytes]
	if len(low) != 1 || low[0].Change != "weights fp8" || low[0].GPUs != 8 || low[0].Best == nil {
		t.Fatalf("lower bytes: %+v", low)
	}
	if room := low[0].Best.Memory.Memory.Headroom; room < 14e9 || room > 16e9 {
		t.Errorf("fp8 on 8 H100s leaves %v per GPU, want about 15 GB", room)
	}
	var bigger []string
	for _, a := range kinds[BiggerGPU] {
		bigger = append(bigger, a.GPU)
	}
	if got := strings.Join(bigger, " "); !strings.HasPrefix(got, "h200 b200") {
		t.Errorf("bigger GPUs %q, want h200 then b200 first", got)
	}
	more := kinds[MoreGPUs]
	if len(more) != 1 || more[0].GPUs != 16 || more[0].Best.Layout != "tp8-pp2 x 1 replica" {
		t.Errorf("more GPUs: %+v", more)
	}
	// Exactly eight H100s: no bf16 layout holds the weights.
	eight := serve(t, query(t, "llama3.1-405b", "h100-sxm", 8, 8192, 16, costmodel.DTypeBF16))
	if eight.Best() != nil || eight.GPUs != 8 || len(eight.Alternatives) == 0 {
		t.Errorf("on 8 H100s: best %+v, %d alternatives", eight.Best(), len(eight.Alternatives))
	}
}

// TestServe8B: Llama 3.1 8B on one H100 holds one 4,096-token
// conversation in 19.1 GB (16.1 GB weights, 0.54 GB KV, 2.5 GB
// overheads) and 108 such users in the 77 GB budget. 500 users need four
// GPUs: one tp=4 replica holds 522, while four tp=1 replicas, each with
// its own 16 GB of weights, hold only 432.
func TestServe8B(t *testing.T) {
	r := serve(t, query(t, "llama3.1-8b", "h100-sxm", 0, 4096, 1, costmodel.DTypeBF16))
	b := r.Best()
	if r.GPUs != 1 || b == nil || b.Memory.MaxUsers != 108 || math.Abs(float64(b.Memory.Memory.Total)-19.1e9) > 0.05e9 {
		t.Fatalf("%d GPUs, best %+v", r.GPUs, b)
	}
	if len(r.Alternatives) != 0 {
		t.Errorf("a load that fits one GPU got alternatives: %+v", r.Alternatives)
	}
	r = serve(t, query(t, "llama3.1-8b", "h100-sxm", 0, 4096, 500, costmodel.DTypeBF16))
	if r.GPUs != 4 || r.Best().Layout != "tp4-pp1 x 1 replica" || r.Best().Memory.MaxUsers != 522 {
		t.Errorf("500 users: %d GPUs, best %s holding %d", r.GPUs, r.Best().Layout, r.Best().Memory.MaxUsers)
	}
	for _, l := range r.Layouts[1:] {
		if l.Holds {
			t.Errorf("%s also holds 500 users", l.Layout)
		}
	}
}

// TestFewestIsMinimal: for every load below, no layout on any smaller
// GPU count holds it, and a layout on the answer does.
func TestFewestIsMinimal(t *testing.T) {
	loads := []ServeQuery{
		query(t, "llama3.1-8b", "h100-sxm", 0, 4096, 500, costmodel.DTypeBF16),
		query(t, "llama3-70b", "h100-sxm", 0, 8192, 32, costmodel.DTypeBF16),
		query(t, "llama3-70b", "h100-sxm", 0, 131072, 1, costmodel.DTypeBF16),
		query(t, "llama3-70b", "a100-40gb", 0, 8192, 100, costmodel.DTypeFP8),
		query(t, "qwen3-30b-a3b", "l40s", 0, 32768, 20, costmodel.DTypeBF16),
		query(t, "mixtral-8x7b", "gb200", 0, 32768, 300, costmodel.DTypeBF16),
	}
	for _, q := range loads {
		r := serve(t, q)
		if r.GPUs == 0 || r.Best() == nil {
			t.Errorf("%s: nothing holds %d users", q.Model.Name, q.Load.Users)
			continue
		}
		q, _ := q.normalize()
		for n := 1; n < r.GPUs; n++ {
			if n > q.GPUsPerNode && n%q.GPUsPerNode != 0 {
				continue
			}
			if best, err := bestOn(q, n); err != nil || best != nil {
				t.Errorf("%s, %d users: %s on %d GPUs holds it too (fewest said %d; err %v)", q.Model.Name, q.Load.Users, best.Layout, n, r.GPUs, err)
			}
		}
	}
}

// TestLayoutRules: tp stays in the node and divides the heads; pipelines
// span whole nodes; the ranking puts holding layouts first, fastest first.
func TestLayoutRules(t *testing.T) {
	q := query(t, "llama3-70b", "h100-sxm", 32, 8192, 32, costmodel.DTypeBF16)
	r := serve(t, q)
	seen := map[string]bool{}
	for i, l := range r.Layouts {
		seen[l.Layout] = true
		p := l.Plan
		if p.TP > 8 || 64%p.TP != 0 || (p.PP > 1 && p.TP != 8) || p.GPUs() != 32 {
			t.Errorf("%s breaks the layout rules", l.Layout)
		}
		if i > 0 {
			prev := r.Layouts[i-1]
			if !prev.Holds && l.Holds || prev.Holds && l.Holds && prev.Speed.TimePerOutputToken > l.Speed.TimePerOutputToken {
				t.Errorf("%s ranked after %s", l.Layout, prev.Layout)
			}
		}
	}
	for _, want := range []string{"tp8-pp1 x 4 replicas", "tp8-pp2 x 2 replicas", "tp8-pp4 x 1 replica", "tp1-pp1 x 32 replicas"} {
		if !seen[want] {
			t.Errorf("layouts on 32 GPUs lack %s: %v", want, seen)
		}
	}
	if seen["tp4-pp2 x 4 replicas"] {
		t.Error("a pipeline inside one node was listed")
	}
}

// TestServeBadInput: every bad query is an error that names the value.
func TestServeBadInput(t *testing.T) {
	bad := []struct {
		q    ServeQuery
		want string
	}{
		{query(t, "llama3-70b", "h100-sxm", 0, 8192, 0, costmodel.DTypeBF16), "users=0"},
		{query(t, "llama3-70b", "h100-sxm", 0, 0, 1, costmodel.DTypeBF16), "context=0"},
		{query(t, "llama3-70b", "h100-sxm", 12, 8192, 1, costmodel.DTypeBF16), "not a whole number of 8-GPU nodes"},
		{func() ServeQuery {
			q := query(t, "llama3-70b", "h100-sxm", 0, 8192, 1, costmodel.DTypeBF16)
			q.Load.KV = costmodel.DTypeInt4
			return q
		}(), "KV dtype int4"},
		{func() ServeQuery {
			q := query(t, "llama3-70b", "h100-sxm", 0, 8192, 1, costmodel.DTypeBF16)
			q.GPUsPerNode = 16
			return q
		}(), "16 GPUs per node"},
		{ServeQuery{}, "without a model"},
	}
	for _, b := range bad {
		if _, err := Serve(b.q); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want %q", err, b.want)
		}
	}
}

// TestNoScaleOut: an L40S has no network in the catalog, so a model
// larger than eight of them has no layout; the answers still come.
func TestNoScaleOut(t *testing.T) {
	r := serve(t, query(t, "llama3.1-405b", "l40s", 0, 8192, 1, costmodel.DTypeBF16))
	if r.GPUs != 0 || r.Best() != nil || len(r.Alternatives) == 0 {
		t.Fatalf("%d GPUs, %d alternatives", r.GPUs, len(r.Alternatives))
	}
	if last := r.Alternatives[len(r.Alternatives)-1]; last.Kind != MoreGPUs || last.Best != nil {
		t.Errorf("more GPUs answer %+v", last)
	}
}

// TestServeDeterministic: the same query gives byte-identical JSON.
func TestServeDeterministic(t *testing.T) {
	q := query(t, "deepseek-v3", "h200", 0, 16384, 40, costmodel.DTypeFP8)
	a, _ := json.Marshal(serve(t, q))
	b, _ := json.Marshal(serve(t, q))
	if string(a) != string(b) || len(a) < 1000 {
		t.Errorf("two runs differ (%d and %d bytes)", len(a), len(b))
	}
}

// BenchmarkServeFewest times a whole answer: the fewest-GPU search for
// Llama 3.1 405B in bf16 on H100s (about 130 replica shapes), the
// layouts on 16 GPUs and the three answers.
func BenchmarkServeFewest(b *testing.B) {
	q := query(b, "llama3.1-405b", "h100-sxm", 0, 8192, 16, costmodel.DTypeBF16)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Serve(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestServe70BLongContext: Llama 3 70B's 141 GB of bf16 weights need two
// H100s, which hold 4,096-token users; one 128k-token conversation is 43
// GB of KV cache, more than the 3.7 GB per GPU two H100s keep after the
// weights, so it takes four.
func TestServe70BLongContext(t *testing.T) {
	short := serve(t, query(t, "llama3-70b", "h100-sxm", 0, 4096, 1, costmodel.DTypeBF16))
	long := serve(t, query(t, "llama3-70b", "h100-sxm", 0, 131072, 1, costmodel.DTypeBF16))
	if short.GPUs != 2 || long.GPUs != 4 || long.Best().Layout != "tp4-pp1 x 1 replica" {
		t.Errorf("4,096 tokens on %d GPUs, 131,072 tokens on %d (%s)", short.GPUs, long.GPUs, long.Best().Layout)
	}
	two := serve(t, query(t, "llama3-70b", "h100-sxm", 2, 131072, 1, costmodel.DTypeBF16))
	if two.Best() != nil || !strings.Contains(strings.Join(two.Layouts[0].Memory.Notes, " "), "weights fit, users do not") {
		t.Errorf("on two H100s: best %+v, notes %q", two.Best(), two.Layouts[0].Memory.Notes)
	}
}

// FuzzServe: no query panics or yields a non-finite number; a query is
// either an error or an answer whose best layout, if any, holds the load.
func FuzzServe(f *testing.F) {
	f.Add(8192, 16, 0, 0, 0, 16, 0)
	f.Add(131072, 1, 8, 1, 1, 0, 1)
	f.Add(1, 1<<20, 0, 2, 0, 7, 2)
	f.Add(-5, 0, 12, 3, 2, -1, 3)
	models := []string{"llama3.1-405b", "llama3.1-8b", "deepseek-v3", "mistral-7b"}
	gpus := []string{"h100-sxm", "l40s", "gb200", "mi300x"}
	f.Fuzz(func(t *testing.T, context, users, n, w, kv, block, which int) {
		if users > 1<<22 || context > 1<<22 || n > 4096 {
			t.Skip()
		}
		i := (which%len(models) + len(models)) % len(models)
		q := query(t, models[i], gpus[i], n, context, users, costmodel.DType((w%4+4)%4))
		q.Load.KV, q.Load.BlockTokens = costmodel.DType((kv%4+4)%4), block
		r, err := Serve(q)
		if err != nil {
			return
		}
		if b := r.Best(); b != nil && b.Memory.MaxUsers < users {
			t.Errorf("best layout %s holds %d of %d users", b.Layout, b.Memory.MaxUsers, users)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("answer does not encode: %v", err)
		}
	})
}
