package kernel

import (
	"fmt"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Must returns v, and panics when err is not nil: a notebook that cannot
// compute what it teaches must fail its cell, not print a wrong lesson.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Cluster is n GPUs of the catalog type gpu, in whole nodes. It panics on
// an unknown GPU or a count that does not fill whole nodes (see Must).
func Cluster(gpu string, n int) hardware.Cluster {
	return Must(hardware.ClusterForGPUs(Must(hardware.LookupGPU(gpu)), n, 0))
}

// DataParallelBytes sums what one GPU sends per step for data
// parallelism: the gradient reduction and ZeRO's weight all-gathers.
func DataParallelBytes(r *costmodel.Report) (sum hardware.Bytes) {
	for _, l := range r.Traffic {
		if l.Kind == costmodel.CommDPGrads || l.Kind == costmodel.CommDPParams {
			sum += l.Bytes
		}
	}
	return sum
}

// PerToken writes a per-token cache size the way the chapters state
// them: in KiB below one MiB, else in MiB. Binary units, because a
// per-token size is a product of powers of two (2 x 32 layers x 8 heads x
// 128 x 2 bytes is 128 KiB exactly, 131 kB in decimal units); capacities
// stay in decimal GB, as hardware.Bytes prints them.
func PerToken(b hardware.Bytes) string {
	if b < hardware.MiB {
		return fmt.Sprintf("%.3g KiB", float64(b/hardware.KiB))
	}
	return fmt.Sprintf("%.3g MiB", float64(b/hardware.MiB))
}
