package calibration

// The accuracy the model is held to, in absolute relative error
// |predicted/measured - 1|. The tests of this package fail beyond them
// and `planner validate` prints the data's errors against them, so both
// read them here. Table 5 of Korthikanti et al. 2022 (whole steps of GPT
// 22B to 1T) is held out of the fit (FitSubset is their Table 4), so its
// error measures prediction rather than fitting; the median bounds every
// compared row without letting one hard row decide.
const (
	// HeldOutSource is the held-out source with its own limits.
	HeldOutSource = "korthikanti2022_table5"
	// TargetHeldOutMean and TargetHeldOutMax bound the mean and the
	// largest error over HeldOutSource.
	TargetHeldOutMean = 0.035
	TargetHeldOutMax  = 0.08
	// TargetMedian bounds the median error over every compared row and
	// over the rows held out of the fit.
	TargetMedian = 0.10
)
