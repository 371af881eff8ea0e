package efficiency

// Evidence says what backs a curve: the rows it was fitted on and how
// well it reproduces them, or that it is extrapolated and why.
type Evidence struct {
	// GPU is the catalog GPU the curve was asked for and Fitted the
	// calibration GPU keys whose rows set its parameters, e.g.
	// "h100_sxm+h200_sxm".
	GPU, Fitted string
	// Generation and Format name the parameter set used.
	Generation, Format string
	// Errors are |pred/meas - 1| over all rows of the fit.
	Errors Errors
	// Source cites the measurements.
	Source string
	// Extrapolated is true when no measurement of this GPU and format
	// backs the curve; Reason says what was assumed instead.
	Extrapolated bool
	Reason       string
}
