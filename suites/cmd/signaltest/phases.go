package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/suites/framework/cluster"
)

// phase is where a run is, from what it has left on disk and in its cluster.
type phase int

const (
	phaseBuild     phase = iota // the suite's compile (ginkgo), or the command's (go build)
	phaseClusterUp              // kwokctl making the control plane
	phaseNodes                  // fake nodes created, the scheduler under test starting
	phaseSpecs                  // the specs, or the benchmark's scenario
	phaseTeardown               // the scheduler stopped, the cluster being removed
)

var phaseNames = []string{"compile", "cluster-up", "nodes", "specs", "teardown"}

func (p phase) String() string { return phaseNames[p] }

// markers watches one run's directories and cluster for the start of each
// phase. Phases only move forward: what is seen once stays seen.
type markers struct {
	workDir, results string
	// specsFile appears when the specs are about to run: the suite writes
	// preflight.json, the benchmark its environment.json, once the
	// cluster and scheduler are ready. doneGlob, when set, matches what a
	// run writes once its work is done, right before its teardown: the
	// benchmark's plots.
	specsFile, doneGlob string
	phase               phase
	// pidFiles are the scheduler's PID files seen: one gone again means
	// the harness has stopped the scheduler, the first step of its teardown.
	pidFiles map[string]bool
	client   kubernetes.Interface
	asked    time.Time
}

const apiEvery = 100 * time.Millisecond

func newMarkers(workDir, results string, t target) *markers {
	m := &markers{workDir: workDir, results: results, specsFile: filepath.Join(results, "preflight.json"), pidFiles: map[string]bool{}}
	if t == targetBench {
		m.specsFile = filepath.Join(results, "bench", "environment.json")
		m.doneGlob = filepath.Join(results, "plots", "*")
	}
	return m
}

// observe advances the phase as far as the run's state shows, and returns it.
// The latest phase whose marker is there wins: a phase can pass between two
// looks.
func (m *markers) observe(ctx context.Context) phase {
	// The scheduler's PID file is watched from the start, for the same reason.
	if m.schedulerStopped() {
		m.phase = max(m.phase, phaseTeardown)
	}
	for p := phaseTeardown; p > m.phase; p-- {
		if m.reached(ctx, p) {
			m.phase = p
			break
		}
	}
	return m.phase
}

// reached says whether the run has entered phase p.
func (m *markers) reached(ctx context.Context, p phase) bool {
	switch p {
	case phaseClusterUp:
		entries, _ := os.ReadDir(filepath.Join(m.workDir, "clusters"))
		return len(entries) > 0
	case phaseNodes:
		return m.hasNodes(ctx)
	case phaseSpecs:
		return exists(m.specsFile)
	case phaseTeardown:
		// The harness exports the control plane's logs before it removes
		// the cluster: into logs/ (the suites) or logs/<profile>/ (bench).
		found, _ := filepath.Glob(filepath.Join(m.results, "logs", "*control-plane"))
		more, _ := filepath.Glob(filepath.Join(m.results, "logs", "*", "control-plane"))
		var done []string
		if m.doneGlob != "" {
			done, _ = filepath.Glob(m.doneGlob)
		}
		return len(found)+len(more)+len(done) > 0
	}
	return false
}

// schedulerStopped says whether a PID file of the scheduler under test was
// seen and is gone.
func (m *markers) schedulerStopped() bool {
	files, _ := filepath.Glob(filepath.Join(m.workDir, "run-*", "scheduler.pid"))
	now := map[string]bool{}
	for _, f := range files {
		now[f] = true
		m.pidFiles[f] = true
	}
	for f := range m.pidFiles {
		if !now[f] {
			return true
		}
	}
	return false
}

// hasNodes asks the run's API server whether it has a node yet, at most
// every apiEvery, so as not to load a control plane that is coming up.
func (m *markers) hasNodes(ctx context.Context) bool {
	if time.Since(m.asked) < apiEvery {
		return false
	}
	m.asked = time.Now()
	if m.client == nil {
		kubeconfigs, _ := filepath.Glob(filepath.Join(m.workDir, "clusters", "*", "kubeconfig.yaml"))
		if len(kubeconfigs) == 0 {
			return false
		}
		cfg, err := cluster.RESTConfig(kubeconfigs[0])
		if err != nil {
			return false
		}
		cfg.Timeout = time.Second
		if m.client, err = kubernetes.NewForConfig(cfg); err != nil {
			return false
		}
	}
	nodes, err := m.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
	return err == nil && len(nodes.Items) > 0
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
