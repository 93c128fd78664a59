package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// eventually polls cond every 20 ms until it holds or timeout has passed.
func eventually(timeout time.Duration, cond func() bool) bool {
	return wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, timeout, true,
		func(context.Context) (bool, error) { return cond(), nil }) == nil
}

// The tracker must find a run's processes however they got away from it:
// in its group, a child reparented away, or in a session of their own as
// kwokctl's components are, known only by the run's directory they name.
func TestTrackerFindsTheRunsProcessesAndNothingElse(t *testing.T) {
	mark := t.TempDir() + "/"
	start := func(env []string, attr *syscall.SysProcAttr, args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env, cmd.SysProcAttr = append(os.Environ(), env...), attr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	// The run: a shell in a group of its own with a sleeping child.
	run := start(nil, &syscall.SysProcAttr{Setpgid: true}, "sh", "-c", "sleep 60 & wait")
	// Left its group and names the run's directory only in its environment.
	detached := start([]string{"RESULTS=" + mark + "results"}, &syscall.SysProcAttr{Setsid: true}, "sleep", "61")
	// Someone else's.
	other := start(nil, &syscall.SysProcAttr{Setsid: true}, "sleep", "62")

	tr := newTracker(mark, run.Process.Pid)
	pidsOf := func() map[int]bool {
		tr.poll()
		out := map[int]bool{}
		for _, p := range tr.alive() {
			out[p.id.pid] = true
		}
		return out
	}
	if !eventually(10*time.Second, func() bool { return len(pidsOf()) == 3 }) {
		t.Fatalf("tracked %v, want the shell %d, its sleep and %d", pidsOf(), run.Process.Pid, detached.Process.Pid)
	}
	got := pidsOf()
	if !got[run.Process.Pid] || !got[detached.Process.Pid] || got[other.Process.Pid] {
		t.Fatalf("tracked %v: want the shell %d and %d, not %d", got, run.Process.Pid, detached.Process.Pid, other.Process.Pid)
	}
	for _, p := range tr.alive() {
		if err := kill(p); err != nil {
			t.Fatal(err)
		}
	}
	_ = run.Wait()
	_ = detached.Wait()
	if !eventually(10*time.Second, func() bool { return len(pidsOf()) == 0 }) {
		t.Fatalf("still alive after kill: %v", tr.alive())
	}
	if q, ok := readProc(other.Process.Pid); !ok || !stillRuns(q.id) {
		t.Fatal("the process that is not the run's was ended")
	}
}

func TestTrackerNamesAPortTheRunStillListensOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	// This test process stands for the run's; the tracker skips its own.
	tr := newTracker("/nothing/", 0)
	p, _ := readProc(os.Getpid())
	tr.members[p.id] = p
	tr.self = -1
	tr.pollPorts()
	if !tr.ports[port] {
		t.Fatalf("ports %v, want %d", tr.ports, port)
	}
	if open := tr.openPorts(); len(open) != 1 {
		t.Fatalf("open ports %v, want port %d", open, port)
	}
	l.Close()
	if open := tr.openPorts(); len(open) != 0 {
		t.Fatalf("open ports %v after close, want none", open)
	}
}

func TestParseListen(t *testing.T) {
	for _, c := range []struct {
		line  string
		inode uint64
		port  int
		ok    bool
	}{
		{"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000 100 0 0 10 0", 123456, 8080, true},
		{"   1: 0100007F:1F90 0100007F:A2B4 01 00000000:00000000 00:00000000 00000000     0        0 123457 1 0000 100 0 0 10 0", 0, 0, false},
		{"  sl  local_address rem_address   st", 0, 0, false},
	} {
		inode, port, ok := parseListen(c.line)
		if inode != c.inode || port != c.port || ok != c.ok {
			t.Errorf("parseListen(%q) = %d, %d, %v; want %d, %d, %v", c.line, inode, port, ok, c.inode, c.port, c.ok)
		}
	}
}

// Any five points in a row aim at every phase, and a seed gives the same
// points again.
func TestPlanCoversEveryPhaseAndReplays(t *testing.T) {
	ps := plan(42, 20, []target{targetConformance, targetBench})
	for i := 0; i+5 <= len(ps); i += 5 {
		seen := map[phase]bool{}
		for _, p := range ps[i : i+5] {
			seen[p.Aim] = true
		}
		if len(seen) != 5 {
			t.Fatalf("points %d-%d aim at %v, want all five phases", i+1, i+5, seen)
		}
	}
	again := plan(42, 20, []target{targetConformance, targetBench})
	for i := range ps {
		if ps[i].Aim != again[i].Aim || ps[i].Target != again[i].Target || ps[i].Signal != again[i].Signal || ps[i].delay != again[i].delay {
			t.Fatalf("seed 42 gave point %d %+v, then %+v", i+1, ps[i], again[i])
		}
	}
}

func TestStoppedLineNamesTheSignalSent(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		line string
		want bool
	}{
		{syscall.SIGTERM, "gangbench: stopped (terminated signal received)", true},
		{syscall.SIGINT, "gangbench: stopped (terminated signal received)", false},
		{syscall.SIGINT, "make: *** [Makefile:80: build] Interrupt", true},
		{syscall.SIGTERM, "make: *** [Makefile:80: build] Terminated", true},
		{syscall.SIGTERM, "SSS••make: *** [Makefile:163: conformance] Terminated", true},
		{syscall.SIGINT, "ginkgo: stopped (interrupt signal received)", true},
		{syscall.SIGTERM, "make: *** [Makefile:80: build] Error 1", false},
	} {
		if got := stoppedLine(c.sig).MatchString(c.line); got != c.want {
			t.Errorf("%s, %q: matched %v, want %v", signalName(c.sig), c.line, got, c.want)
		}
	}
}

// Phases follow the files a run writes, and only move forward.
func TestMarkersFollowTheRunsFiles(t *testing.T) {
	dir := t.TempDir()
	work, results := filepath.Join(dir, "kwok"), filepath.Join(dir, "results")
	m := newMarkers(work, results, targetConformance)
	ctx := context.Background()
	step := func(what string, want phase, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := m.observe(ctx); got != want {
			t.Fatalf("%s: phase %s, want %s", what, got, want)
		}
	}
	step("nothing yet", phaseBuild)
	step("cluster directory", phaseClusterUp, filepath.Join(work, "clusters", "c", "kwok.yaml"))
	pid := filepath.Join(work, "run-c", "scheduler.pid")
	// No API server answers here: the specs' marker alone moves on past nodes.
	step("scheduler started", phaseClusterUp, pid)
	step("preflight written", phaseSpecs, filepath.Join(results, "preflight.json"))
	if err := os.Remove(pid); err != nil {
		t.Fatal(err)
	}
	step("scheduler stopped", phaseTeardown)
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	step("cluster removed", phaseTeardown)
}

// The benchmark writes its own marker of the specs, and its control plane's
// logs under the cluster profile's name.
func TestMarkersOfTheBenchmark(t *testing.T) {
	dir := t.TempDir()
	work, results := filepath.Join(dir, "kwok"), filepath.Join(dir, "results")
	m := newMarkers(work, results, targetBench)
	for _, d := range []string{filepath.Join(work, "clusters", "bench"), filepath.Join(results, "bench")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(results, "preflight.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := m.observe(context.Background()); got != phaseClusterUp {
		t.Fatalf("phase %s with the suites' marker only, want %s", got, phaseClusterUp)
	}
	if err := os.WriteFile(filepath.Join(results, "bench", "environment.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := m.observe(context.Background()); got != phaseSpecs {
		t.Fatalf("phase %s, want %s", got, phaseSpecs)
	}
	// Its plots come last, right before its teardown.
	if err := os.MkdirAll(filepath.Join(results, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := m.observe(context.Background()); got != phaseSpecs {
		t.Fatalf("phase %s with no plot yet, want %s", got, phaseSpecs)
	}
	if err := os.WriteFile(filepath.Join(results, "plots", "smoke.svg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := m.observe(context.Background()); got != phaseTeardown {
		t.Fatalf("phase %s, want %s", got, phaseTeardown)
	}
}
