package bench

import (
	"slices"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// cpuSnapshot is the processes' CPU time now, to the nanosecond (cpuTime),
// by name; a process that cannot be read is left out.
func cpuSnapshot(pids map[string]int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, pid := range pids {
		if d, err := cpuTime(pid); err == nil {
			out[name] = d
		}
	}
	return out
}

// addSizeCPU adds what each process spent between two snapshots to the
// size's CPU time.
func addSizeCPU(sr *results.SizeResult, before, after map[string]time.Duration) {
	var spent []results.ProcessCPU
	for name, b := range before {
		if a, ok := after[name]; ok && a >= b {
			spent = append(spent, results.ProcessCPU{Process: name, CPU: a - b})
		}
	}
	sr.CPU = results.AddCPU(sr.CPU, spent)
}

// costProcesses are the processes whose CPU time per pod is drawn against
// the PodGroup size: the two that do a pod's work.
var costProcesses = []struct{ process, label string }{
	{"kube-apiserver", "API server"},
	{"scheduler", "scheduler"},
}

// costFigures draws the API server's and the scheduler's CPU time per pod
// against the PodGroup size, for workloads of more than one size with CPU
// times: where the cost of a pod grows with its gang's size, the curve
// rises (flat is linear cost in the gang's size).
func costFigures(r *results.Result) []figure {
	f := figure{file: r.Scenario.Name + "-cpu-per-pod", title: "CPU time per pod bound (while gangs were placed) - " + r.Scenario.Name, ylabel: "ms of CPU per pod"}
	for _, cv := range curves(r) {
		w, srs := cv.workload, cv.sizes
		slices.SortFunc(srs, func(a, b results.SizeResult) int { return a.Size - b.Size })
		for _, cp := range costProcesses {
			var pts plotter.XYs
			for _, sr := range srs {
				if d, ok := sr.CPUPerPod(cp.process); ok {
					pts = append(pts, plotter.XY{X: float64(sr.Size), Y: float64(d) / float64(time.Millisecond)})
				}
			}
			if len(pts) > 1 {
				f.series = append(f.series, series{w + " " + cp.label, pts})
			}
		}
	}
	if len(f.series) == 0 {
		return nil
	}
	return []figure{f}
}
