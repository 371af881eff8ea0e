package launch

import "reflect"

// expertDegrees reads the expert-parallel degrees of a plan, EP and ETP,
// from fields of those names when the plan type has them (1 when it
// does not, or they are unset), so the exporters follow the plan as
// expert parallelism is added to it.
func expertDegrees(plan any) (ep, etp int) {
	return intField(plan, "EP"), intField(plan, "ETP")
}

// intField is the integer field name of struct v, or 1 when v has no
// such field or it is below 1.
func intField(v any, name string) int {
	f := reflect.ValueOf(v).FieldByName(name)
	if !f.IsValid() || !f.CanInt() || f.Int() < 1 {
		return 1
	}
	return int(f.Int())
}

// expertArgs adds the expert-parallel keys, named by the framework, when
// the plan splits the experts.
func expertArgs(a *args, job Job, epKey, etpKey string) {
	ep, etp := expertDegrees(job.Plan)
	if ep > 1 {
		a.add(epKey, ep)
	}
	if etp > 1 {
		a.add(etpKey, etp)
	}
}

// expertSplit reports whether the plan splits the experts.
func expertSplit(plan any) bool {
	ep, etp := expertDegrees(plan)
	return ep > 1 || etp > 1
}
