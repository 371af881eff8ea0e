// Package calibration checks the step-time model against published
// measurements: the calibration set testdata/measured.csv (83 rows with
// citations, documented in testdata/README.md) is read, each row is
// mapped to a model, a cluster and a plan (or listed with the reason it
// cannot be modeled), predicted with costmodel, and compared. Fit finds
// the few fitted parameters of costmodel.DefaultAssumptions on a stated
// subset (FitSubset); the tests fail when the accuracy regresses.
//
// The costmodel package itself does no I/O; this package owns reading
// the data.
package calibration
