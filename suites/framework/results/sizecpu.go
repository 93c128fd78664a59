package results

import (
	"slices"
	"strings"
	"time"
)

// ProcessCPU is the CPU time one process spent while a size was measured:
// for each gang, from before its first create to its last member bound
// (removing it is not counted), so that a size's time divided by its pods
// is what a pod of that size cost the process.
type ProcessCPU struct {
	Process string        `json:"process"`
	CPU     time.Duration `json:"cpuNs"`
}

// AddCPU is the sum of two sets of processes' CPU times, by process name,
// sorted by it.
func AddCPU(a, b []ProcessCPU) []ProcessCPU {
	out := slices.Clone(a)
	for _, p := range b {
		if i := slices.IndexFunc(out, func(o ProcessCPU) bool { return o.Process == p.Process }); i >= 0 {
			out[i].CPU += p.CPU
		} else {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(x, y ProcessCPU) int { return strings.Compare(x.Process, y.Process) })
	return out
}

// Pods is how many pods the size's recorded gangs had.
func (sr SizeResult) Pods() int { return len(sr.Gangs) * sr.Size }

// CPUPerPod is the process's CPU time per pod of the size; ok is false when
// the size has no CPU time of that process or no pods.
func (sr SizeResult) CPUPerPod(process string) (d time.Duration, ok bool) {
	i := slices.IndexFunc(sr.CPU, func(p ProcessCPU) bool { return p.Process == process })
	if i < 0 || sr.Pods() == 0 {
		return 0, false
	}
	return sr.CPU[i].CPU / time.Duration(sr.Pods()), true
}
