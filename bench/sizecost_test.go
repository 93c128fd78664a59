package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// A fixture result whose API server pays 2 ms a pod up to 512 members and
// 6 ms at 1024 (the scheduler 1, 1 and 1 ms): the figure carries each
// process's CPU time per pod at each size, sizes in order, so the step
// shows; a workload of one size draws no curve.
func TestCPUPerPodAgainstSizeShowsTheStep(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cpu-per-pod-result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	figs := costFigures(&r)
	if len(figs) != 1 || figs[0].file != "cost-fixture-cpu-per-pod" {
		t.Fatalf("figures = %+v, want one, cost-fixture-cpu-per-pod", figs)
	}
	want := map[string]plotter.XYs{
		"sweep-8gpu API server": {{X: 64, Y: 2}, {X: 512, Y: 2}, {X: 1024, Y: 6}},
		"sweep-8gpu scheduler":  {{X: 64, Y: 1}, {X: 512, Y: 1}, {X: 1024, Y: 1}},
	}
	if len(figs[0].series) != len(want) {
		t.Fatalf("series = %+v", figs[0].series)
	}
	for _, s := range figs[0].series {
		w, ok := want[s.name]
		if !ok || len(s.pts) != len(w) {
			t.Fatalf("series %q = %v, want %v", s.name, s.pts, w)
		}
		for i := range w {
			if s.pts[i].X != w[i].X || abs(s.pts[i].Y-w[i].Y) > 1e-9 {
				t.Errorf("series %q point %d = %v, want %v", s.name, i, s.pts[i], w[i])
			}
		}
	}
	dir := t.TempDir()
	files, err := Plot(dir, &r)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range files {
		if filepath.Base(f) == "cost-fixture-cpu-per-pod.svg" {
			svg, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = strings.Contains(string(svg), "sweep-8gpu API server")
		}
	}
	if !found {
		t.Errorf("plots %v: no cost-fixture-cpu-per-pod.svg with the API server's curve", files)
	}
	// Without CPU times (a cluster the harness did not make), no figure.
	for i := range r.Sizes {
		r.Sizes[i].CPU = nil
	}
	if figs := costFigures(&r); len(figs) != 0 {
		t.Errorf("figures without CPU times = %+v", figs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// A size's CPU time is what each process spent between the snapshots, added
// over its gangs; a process missing from a snapshot, or whose time went
// back (it restarted), adds nothing; repeats add up.
func TestSizeCPUAddsOverGangsAndRepeats(t *testing.T) {
	sr := results.SizeResult{Workload: "w", Size: 4, Gangs: make([]results.GangResult, 2)}
	addSizeCPU(&sr, map[string]time.Duration{"kube-apiserver": 10, "scheduler": 5, "etcd": 9},
		map[string]time.Duration{"kube-apiserver": 30, "scheduler": 9, "etcd": 1})
	addSizeCPU(&sr, map[string]time.Duration{"kube-apiserver": 30, "kwok-controller": 1},
		map[string]time.Duration{"kube-apiserver": 46})
	want := []results.ProcessCPU{{Process: "kube-apiserver", CPU: 36}, {Process: "scheduler", CPU: 4}}
	if len(sr.CPU) != len(want) || sr.CPU[0] != want[0] || sr.CPU[1] != want[1] {
		t.Fatalf("CPU = %+v, want %+v", sr.CPU, want)
	}
	if d, ok := sr.CPUPerPod("kube-apiserver"); !ok || d != 4 {
		t.Errorf("API server per pod = %v %v, want 4ns (36 over 8 pods, truncated)", d, ok)
	}
	if _, ok := sr.CPUPerPod("etcd"); ok {
		t.Error("etcd per pod without its CPU time")
	}
	r := &results.Result{Scenario: &results.Scenario{Name: "s"}, Sizes: []results.SizeResult{sr}}
	if err := r.Merge(&results.Result{Scenario: &results.Scenario{Name: "s"}, Sizes: []results.SizeResult{sr}}); err != nil {
		t.Fatal(err)
	}
	if got := r.Sizes[0].CPU; len(got) != 2 || got[0].CPU != 72 || got[1].CPU != 8 {
		t.Errorf("merged CPU = %+v, want twice each", got)
	}
}
