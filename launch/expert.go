package launch

import "github.com/gpu-planner/planner/costmodel"

// expertDegrees is the plan's expert and expert-tensor parallel degrees,
// 1 where unset.
func expertDegrees(p costmodel.Plan) (ep, etp int) {
	return max(p.EP, 1), max(p.ETP, 1)
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
func expertSplit(p costmodel.Plan) bool {
	ep, etp := expertDegrees(p)
	return ep > 1 || etp > 1
}
