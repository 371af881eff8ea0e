package costmodel

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/gpu-planner/planner/hardware"
)

// ncclRow is one nccl-tests timing of testdata/nccl/intranode.csv: the
// nccl_perf rows AIConfigurator uses by default (aic_default 1, fp16,
// 64 KiB and up) for A100, H100, H200, B200, B300, GB200 and GB300, each
// with its source directory (calibration/kernels/SOURCES.md).
type ncclRow struct {
	gpu, source string
	op          Collective
	n           int
	bytes, time float64 // the nccl-tests buffer; seconds
}

// ncclGPUs are the catalog names of the data's GPU keys.
var ncclGPUs = map[string]string{"a100_sxm": "a100-80gb", "h100_sxm": "h100-sxm", "h200_sxm": "h200",
	"b200_sxm": "b200", "b300_sxm": "b300", "gb200": "gb200", "gb300": "gb300"}

var ncclOps = map[string]Collective{"all_reduce": AllReduce, "all_gather": AllGather,
	"reduce_scatter": ReduceScatter, "alltoall": AllToAll}

func readNCCLRows(t *testing.T) []ncclRow {
	t.Helper()
	var rows []ncclRow
	for _, r := range readTestCSV(t, "testdata/nccl/intranode.csv") {
		n, err1 := strconv.Atoi(r[8])
		b, err2 := strconv.ParseFloat(r[11], 64)
		ms, err3 := strconv.ParseFloat(r[12], 64)
		op, ok := ncclOps[r[5]]
		if err1 != nil || err2 != nil || err3 != nil || !ok {
			t.Fatalf("intranode.csv row %v: %v %v %v", r, err1, err2, err3)
		}
		rows = append(rows, ncclRow{gpu: r[0], source: r[2], op: op, n: n, bytes: b, time: ms * 1e-3})
	}
	if len(rows) < 1000 {
		t.Fatalf("%d rows in testdata/nccl/intranode.csv, want at least 1000", len(rows))
	}
	return rows
}

// fitScaleUp is the least-squares fit of relative error of
//
//	time = latency + s x (busFactor/share + chunk/(share x n)) / NVLink
//
// which is linear in latency, 1/share and chunk/share: each row divided
// by its measured time gives 1 = latency/t + x/t/share + w/t x
// chunk/share, solved by the normal equations.
func fitScaleUp(rows []ncclRow, up map[string]float64) scaleUpFit {
	var m [3][4]float64
	for _, r := range rows {
		x := r.bytes * busFactor(r.op, r.n) / up[r.gpu]
		w := r.bytes / float64(r.n) / up[r.gpu]
		a := [3]float64{1 / r.time, x / r.time, w / r.time}
		for i := range 3 {
			for j := range 3 {
				m[i][j] += a[i] * a[j]
			}
			m[i][3] += a[i]
		}
	}
	c := solve3(m)
	return scaleUpFit{latency: c[0], share: 1 / c[1], chunk: c[2] / c[1]}
}

// fitSmall is the least-squares fit (relative error) of the
// small-message pair, time = smallLatency + s x busFactor /
// (smallShare x NVLink), on rows below 4 MiB.
func fitSmall(rows []ncclRow, up map[string]float64) (latency, share float64) {
	var a11, a12, a22, b1, b2 float64
	for _, r := range rows {
		u, v := 1/r.time, r.bytes*busFactor(r.op, r.n)/up[r.gpu]/r.time
		a11, a12, a22, b1, b2 = a11+u*u, a12+u*v, a22+v*v, b1+u, b2+v
	}
	det := a11*a22 - a12*a12
	return (b1*a22 - b2*a12) / det, det / (a11*b2 - a12*b1)
}

// smallMessage is where the data splits between the two fits.
const smallMessage = 4 * hardware.MiB

// solve3 solves a 3x3 system given as an augmented matrix (Gaussian
// elimination; the normal equations here are well conditioned).
func solve3(m [3][4]float64) [3]float64 {
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			f := m[j][i] / m[i][i]
			for k := i; k < 4; k++ {
				m[j][k] -= f * m[i][k]
			}
		}
	}
	var x [3]float64
	for i := 2; i >= 0; i-- {
		s := m[i][3]
		for k := i + 1; k < 3; k++ {
			s -= m[i][k] * x[k]
		}
		x[i] = s / m[i][i]
	}
	return x
}

// TestScaleUpFit refits scaleUpFits on the measured NCCL collectives
// inside one node, prints each generation and operation's fit and error,
// fails when a constant drifts from its fit, then prices every row
// through Evaluator.cost and holds the median |error| to its guard.
func TestScaleUpFit(t *testing.T) {
	rows := readNCCLRows(t)
	up := map[string]float64{}
	arch := map[string]hardware.Arch{}
	for k, name := range ncclGPUs {
		g := mustGPU(t, name)
		up[k], arch[k] = float64(g.ScaleUp), nvlinkGeneration(g.Arch)
	}
	for _, a := range []hardware.Arch{hardware.Ampere, hardware.Hopper, hardware.Blackwell} {
		for _, op := range []Collective{AllReduce, AllGather, ReduceScatter, AllToAll} {
			sub := slices.DeleteFunc(slices.Clone(rows), func(r ncclRow) bool { return arch[r.gpu] != a || r.op != op })
			large := slices.DeleteFunc(slices.Clone(sub), func(r ncclRow) bool { return r.bytes < float64(smallMessage) })
			small := slices.DeleteFunc(slices.Clone(sub), func(r ncclRow) bool { return r.bytes >= float64(smallMessage) })
			f, held := fitScaleUp(large, up), scaleUpFits[a][op]
			f.smallLatency, f.smallShare = fitSmall(small, up)
			t.Logf("%-9v %-14v rows %3d+%3d  latency %4.1f µs  share %.3f  chunk %.3f  small: latency %4.1f µs  share %.3f",
				a, op, len(large), len(small), f.latency*1e6, f.share, f.chunk, f.smallLatency*1e6, f.smallShare)
			if math.Abs(f.latency-held.latency) > 0.051e-6 || math.Abs(f.share-held.share) > 0.0006 || math.Abs(f.chunk-held.chunk) > 0.0006 ||
				math.Abs(f.smallLatency-held.smallLatency) > 0.051e-6 || math.Abs(f.smallShare-held.smallShare) > 0.0006 {
				t.Errorf("%v %v: scaleUpFits holds %+v, the fit finds %+v", a, op, held, f)
			}
		}
	}
	by := map[string][]float64{}
	var all []float64
	m, _ := LookupModel("qwen3-30b-a3b")
	for _, r := range rows {
		c, err := hardware.ClusterForGPUs(mustGPU(t, ncclGPUs[r.gpu]), r.n, 0)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEvaluator(m, c, DefaultAssumptions())
		if err != nil {
			t.Fatal(err)
		}
		rel := e.cost(r.op, r.bytes, group{size: r.n, local: r.n}).time/r.time - 1
		k := r.gpu + " " + r.op.String() + map[bool]string{true: " <4 MiB", false: ""}[r.bytes < float64(smallMessage)]
		by[k] = append(by[k], rel)
		all = append(all, math.Abs(rel))
	}
	logSignedMedians(t, by)
	med := median(all)
	t.Logf("all %d rows: median |error| %.1f%%", len(all), 100*med)
	if med > scaleUpGuard {
		t.Errorf("NCCL collectives inside a node: median |error| %.1f%%, guard %.0f%%", 100*med, 100*scaleUpGuard)
	}
}

// scaleUpGuard holds TestScaleUpFit's median |error| (today's figure,
// 6.8% over 1,064 rows, plus a margin).
const scaleUpGuard = 0.08
