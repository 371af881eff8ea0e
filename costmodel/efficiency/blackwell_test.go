package efficiency

import (
	"math"
	"testing"
)

// cudnnRow is one shape of a published Blackwell attention benchmark:
// bf16, head dim 128, TFLOP/s as FlashAttention's benchmarks count them
// (Flops; the backward 2.5 times the forward's FLOPs).
type cudnnRow struct {
	seq                float64
	causal             bool
	cudnnFwd, cudnnBwd float64
	fa4Fwd, fa4Bwd     float64
}

// cudnnTables are NVIDIA/cudnn-frontend's training benchmark,
// benchmark/sdpa_benchmark_training/results/llama3.1/<gpu>/llama3.1_20260529_*.csv
// (cuDNN 9.23 backend, FlashAttention-4 4.0.0b15; batch 2, 64 query and 8
// key/value heads; non-deterministic backward): GB200 (Blackwell) and
// GB300 (Blackwell Ultra).
var cudnnTables = []struct {
	gpu  string
	rows []cudnnRow
}{
	{"gb200", []cudnnRow{
		{2048, false, 1389, 1114, 1386, 1138}, {4096, false, 1559, 1316, 1538, 1391},
		{8192, false, 1634, 1358, 1686, 1380}, {16384, false, 1549, 1313, 1663, 1402},
		{32768, false, 1519, 1198, 1470, 1313},
		{2048, true, 1068, 875, 1046, 847}, {4096, true, 1352, 1141, 1330, 1133},
		{8192, true, 1539, 1301, 1518, 1346}, {16384, true, 1622, 1288, 1636, 1429},
		{32768, true, 1545, 1162, 1529, 1267},
	}},
	{"gb300", []cudnnRow{
		{2048, false, 1892, 1215, 0, 0}, {4096, false, 2070, 1445, 2053, 1453},
		{8192, false, 2170, 1557, 2165, 1616}, {16384, false, 2163, 1533, 2179, 1601},
		{32768, false, 2028, 1457, 2018, 1494},
		{2048, true, 1467, 965, 0, 0}, {4096, true, 1822, 1263, 1668, 1219},
		{8192, true, 2011, 1453, 1914, 1478}, {16384, true, 2080, 1505, 2015, 1577},
		{32768, true, 2023, 1488, 2025, 1572},
	}},
}

// b200Causal is the older B200 run of the same benchmark
// (artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv: cuDNN 9.13 by
// PyTorch's cuDNN SDPA backend, batch 1, 128 query and 8 key/value
// heads, causal): forward and backward TFLOP/s at 4k ... 32k tokens.
var b200Causal = []struct{ seq, fwd, bwd float64 }{
	{4096, 856, 701}, {8192, 1171, 943}, {16384, 1332, 1075}, {32768, 1419, 1109},
}

// The B200 rows check that the GB200 figure carries over as a share of
// peak (benchmark.peak): at 32k, where the older cuDNN reaches its
// plateau, within 7%; shorter lengths are logged only (cuDNN 9.13 was
// far slower there than 9.23).

// blackwellTolerance bounds |model / published - 1| of the fa4 kernel
// against cuDNN's rows from 4k tokens on (the lengths of training); 2k
// is logged only. The model's rate rises with length to its ceiling
// while cuDNN's peaks at 8k-16k and falls by 5-10% at 32k (the backward
// most), so the ends of the table sit on either side of the 16k figure
// it is rescaled to.
const blackwellTolerance = 0.13

// TestPublishedBlackwell checks the fa4 kernel (cuDNN fused attention on
// Blackwell) against NVIDIA's published forward and backward figures,
// causal and not, and FlashAttention-4 against cuDNN (the class the kernel
// stands for: within 9% forward and 11% backward at every length).
func TestPublishedBlackwell(t *testing.T) {
	for _, tb := range cudnnTables {
		g := lookup(t, tb.gpu)
		a, _, err := AttentionFor(g, BF16)
		if err != nil {
			t.Fatal(err)
		}
		k, src := a.WithKernel(g.Arch, KernelFA4)
		if best, _ := a.WithKernel(g.Arch, KernelBest); best != k || src == "" {
			t.Errorf("%s: best is not the sourced fa4 kernel", tb.gpu)
		}
		for _, r := range tb.rows {
			fwd, bwd := rates(k, 128, r.seq, r.causal)
			t.Logf("%-5s %5g causal=%-5v forward %4.0f vs %4.0f (%+5.1f%%), backward %4.0f vs %4.0f (%+5.1f%%)",
				tb.gpu, r.seq, r.causal, fwd, r.cudnnFwd, 100*(fwd/r.cudnnFwd-1), bwd, r.cudnnBwd, 100*(bwd/r.cudnnBwd-1))
			if r.seq >= 4096 && (math.Abs(fwd/r.cudnnFwd-1) > blackwellTolerance || math.Abs(bwd/r.cudnnBwd-1) > blackwellTolerance) {
				t.Errorf("%s %g causal=%v: forward %.0f / %.0f, backward %.0f / %.0f published", tb.gpu, r.seq, r.causal, fwd, r.cudnnFwd, bwd, r.cudnnBwd)
			}
			if r.fa4Fwd > 0 && (math.Abs(r.fa4Fwd/r.cudnnFwd-1) > 0.09 || math.Abs(r.fa4Bwd/r.cudnnBwd-1) > 0.11) {
				t.Errorf("%s %g: FlashAttention-4 %.0f/%.0f against cuDNN %.0f/%.0f", tb.gpu, r.seq, r.fa4Fwd, r.fa4Bwd, r.cudnnFwd, r.cudnnBwd)
			}
		}
	}
	if k, err := ParseKernel("fa4"); err != nil || k != KernelFA4 || k.String() != "fa4" {
		t.Errorf("ParseKernel(fa4) = %v, %v", k, err)
	}
	g := lookup(t, "b200")
	a, _, err := AttentionFor(g, BF16)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := a.WithKernel(g.Arch, KernelFA4)
	for _, r := range b200Causal {
		fwd, bwd := rates(k, 128, r.seq, true)
		t.Logf("b200  %5g causal forward %4.0f vs %4.0f (%+5.1f%%), backward %4.0f vs %4.0f (%+5.1f%%) [cuDNN 9.13]",
			r.seq, fwd, r.fwd, 100*(fwd/r.fwd-1), bwd, r.bwd, 100*(bwd/r.bwd-1))
		if r.seq == 32768 && (math.Abs(fwd/r.fwd-1) > 0.07 || math.Abs(bwd/r.bwd-1) > 0.07) {
			t.Errorf("b200 32k causal: forward %.0f / %.0f, backward %.0f / %.0f", fwd, r.fwd, bwd, r.bwd)
		}
	}
}

// rates are the forward and backward TFLOP/s of curve a over batchHeads
// heads of seq tokens, head dim 128.
func rates(a Attention, batchHeads, seq float64, causal bool) (fwd, bwd float64) {
	f := Flops(batchHeads, seq, seq, 128, 128, causal)
	return f / a.Forward(batchHeads, seq, seq, 128, 128, causal) / 1e12,
		2.5 * f / a.Backward(batchHeads, seq, seq, 128, 128, causal) / 1e12
}

// dsv3GB200 is the same benchmark's DeepSeek-V3 configuration on GB200
// (results/dsv3/gb200/dsv3_20260529_181100.csv: batch 2, 128 heads, head
// dims 192 for q, k and 128 for v, cuDNN 9.23, bf16): forward and
// backward milliseconds, no mask and causal, 4k ... 32k tokens.
var dsv3GB200 = []struct {
	seq      float64
	causal   bool
	fwd, bwd float64
}{
	{4096, false, 1.549, 5.757}, {8192, false, 5.978, 24.109}, {16384, false, 25.203, 102.607}, {32768, false, 113.449, 409.822},
	{4096, true, 0.982, 3.317}, {8192, true, 3.355, 12.343}, {16384, true, 12.320, 49.496}, {32768, true, 49.763, 206.905},
}

// TestPublishedBlackwellMLA compares the fa4 kernel with cuDNN at
// DeepSeek-V3's head dims (192 + 128). The forward runs faster per FLOP
// than at head dim 128 (the exponentials are fewer per FLOP) and the
// backward slower: published backward over forward time is 3.4-4.2, not
// the 2.5 x FLOPs at about 0.85 of the forward's rate (about 3) of head
// dim 128. The model keeps head dim 128's rates per FLOP, so it is
// pessimistic on the forward and optimistic on the backward. Their sum,
// a training step's attention, is checked at 4k and 8k tokens (the
// DeepSeek-V3 rows of the calibration train at 4k), within 6%; at 16k
// and 32k the model is 6-16% fast, logged only.
func TestPublishedBlackwellMLA(t *testing.T) {
	g := lookup(t, "gb200")
	a, _, err := AttentionFor(g, BF16)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := a.WithKernel(g.Arch, KernelFA4)
	for _, r := range dsv3GB200 {
		fwd := k.Forward(256, r.seq, r.seq, 192, 128, r.causal) * 1e3
		bwd := k.Backward(256, r.seq, r.seq, 192, 128, r.causal) * 1e3
		sum := (fwd + bwd) / (r.fwd + r.bwd)
		t.Logf("gb200 dsv3 %5g causal=%-5v forward %.3g vs %.3g ms (%+5.1f%%), backward %.3g vs %.3g ms (%+5.1f%%), sum %+5.1f%%",
			r.seq, r.causal, fwd, r.fwd, 100*(fwd/r.fwd-1), bwd, r.bwd, 100*(bwd/r.bwd-1), 100*(sum-1))
		if r.seq <= 8192 && math.Abs(sum-1) > 0.06 {
			t.Errorf("dsv3 %g causal=%v: forward + backward %.3g ms against %.3g published", r.seq, r.causal, fwd+bwd, r.fwd+r.bwd)
		}
	}
}

// fa2Blackwell are PyTorch SDPA's flash backend (FlashAttention-2) in the
// same benchmark's artifacts (artifacts/sdpa_bf16_benchmark_results_NVIDIA_<gpu>.csv:
// batch 1, 128 query and 8 key/value heads, head dim 128, causal):
// forward and backward TFLOP/s at 4k ... 32k tokens.
var fa2Blackwell = []struct {
	gpu  string
	rows [][3]float64 // tokens, forward, backward
}{
	{"gb200", [][3]float64{{4096, 387, 311}, {8192, 414, 338}, {16384, 430, 352}, {32768, 438, 360}}},
	{"gb300", [][3]float64{{4096, 366, 292}, {8192, 411, 330}, {16384, 431, 351}, {32768, 440, 362}}},
	{"b200", [][3]float64{{4096, 325, 256}, {8192, 373, 299}, {16384, 394, 320}, {32768, 404, 331}}},
}

// TestPublishedBlackwellFA2 checks the fa2 kernel on Blackwell against
// the published FlashAttention-2 rows, within 8% from 4k tokens on
// (B200's rows are held out: the GB200 figure carries to it as a share
// of peak).
func TestPublishedBlackwellFA2(t *testing.T) {
	for _, tb := range fa2Blackwell {
		g := lookup(t, tb.gpu)
		a, _, err := AttentionFor(g, BF16)
		if err != nil {
			t.Fatal(err)
		}
		k, src := a.WithKernel(g.Arch, KernelFA2)
		if src == "" {
			t.Errorf("%s: fa2 without a source", tb.gpu)
		}
		for _, r := range tb.rows {
			fwd, bwd := rates(k, 128, r[0], true)
			t.Logf("%-5s fa2 %5g causal forward %3.0f vs %3.0f (%+5.1f%%), backward %3.0f vs %3.0f (%+5.1f%%)",
				tb.gpu, r[0], fwd, r[1], 100*(fwd/r[1]-1), bwd, r[2], 100*(bwd/r[2]-1))
			if math.Abs(fwd/r[1]-1) > 0.08 || math.Abs(bwd/r[2]-1) > 0.08 {
				t.Errorf("%s fa2 %g: forward %.0f / %.0f, backward %.0f / %.0f", tb.gpu, r[0], fwd, r[1], bwd, r[2])
			}
		}
	}
}
