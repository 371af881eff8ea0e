// Package frameworks holds framework presets: what a training framework
// does that a parallel layout does not say. A preset sets the attention
// kernel, fused or eager elementwise kernels, which communication it
// overlaps, the gradient dtype, whether sequence parallelism comes with
// tensor parallelism, and the FP8 and 4-bit recipes it offers, each
// setting with its citation. `planner estimate --framework NAME` and
// `planner search --framework NAME` apply one in a word; the calibration
// says with the same presets what each published measurement ran.
package frameworks
