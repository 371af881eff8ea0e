// Package calibration checks the step-time model against published
// measurements: the calibration set testdata/measured.csv (83 rows) and
// testdata/measured-modern.csv (239 rows), with citations, documented in
// testdata/README.md, is read; each row is mapped to a model, a cluster,
// a plan and a framework preset (package frameworks), or listed with the
// reason it cannot be modeled; predicted with costmodel; and compared,
// per source and per source x GPU generation x format. FitOn fits a
// small named set of parameters (Params) on the rows a function selects
// (InFit) with a squared log error; LeaveOneSourceOut refits without
// each source in turn. Targets checks the accuracy targets; the tests
// fail when an enforced one regresses.
//
// The costmodel package itself does no I/O; this package owns reading
// the data.
package calibration
