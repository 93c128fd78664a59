package scheduler

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gangconf/gangconf/reference-scheduler/config"
	"github.com/gangconf/gangconf/suites/framework/proc"
)

func TestFreePortRefusesAPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = FreePort(port)
	if err == nil || !strings.Contains(err.Error(), "port "+strconv.Itoa(port)+" on 127.0.0.1 is in use") {
		t.Fatalf("err = %v", err)
	}
	if p, err := FreePort(0); err != nil || p == 0 {
		t.Fatalf("FreePort(0) = %d, %v", p, err)
	}
}

func TestSchedulerThatExitsAtStartIsReportedWithItsLog(t *testing.T) {
	sh, _ := exec.LookPath("sh")
	dir := t.TempDir()
	p := &Process{Name: "broken", Binary: sh, Args: []string{"-c", "echo 'E1129 invalid configuration'; exit 3"},
		LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	err := p.WaitReady(context.Background(), 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited at start") || !strings.Contains(err.Error(), "invalid configuration") {
		t.Fatalf("err = %v", err)
	}
}

func TestStopEndsTheProcessAndItsPIDFile(t *testing.T) {
	sleep, _ := exec.LookPath("sleep")
	dir := t.TempDir()
	p := &Process{Name: "sleeper", Binary: sleep, Args: []string{"600"}, LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("process still running after Stop")
	}
	if _, err := os.Stat(p.PIDFile); !os.IsNotExist(err) {
		t.Fatalf("PID file left behind: %v", err)
	}
}

func TestKillThenStartAgainKeepsOneLog(t *testing.T) {
	sh, _ := exec.LookPath("sh")
	dir := t.TempDir()
	// The child sleep shares the process group: a crash kill must end it too.
	p := &Process{Name: "crashy", Binary: sh, Args: []string{"-c", "echo started; sleep 600 & wait"},
		LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := p.Kill(); err == nil {
		t.Fatal("Kill of a process never started succeeded")
	}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	waitLog := func(n int) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for strings.Count(Tail(p.LogPath, 10), "started") < n {
			if time.Now().After(deadline) {
				t.Fatalf("log after start %d:\n%s", n, Tail(p.LogPath, 10))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitLog(1)
	first := p.PID()
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if p.Running() {
		t.Fatal("still running after Kill")
	}
	if live := liveInGroup(t, first); len(live) > 0 {
		t.Fatalf("the killed process group still runs %v", live)
	}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	waitLog(2)
	if p.Starts() != 2 || !p.Running() || p.PID() == first {
		t.Fatalf("starts %d, running %v, pid %d (first %d)", p.Starts(), p.Running(), p.PID(), first)
	}
	if !strings.Contains(Tail(p.LogPath, 10), "started again (start 2)") {
		t.Fatalf("the restart is not marked in the log:\n%s", Tail(p.LogPath, 10))
	}
}

func TestStopByPIDFileStopsADetachedProcess(t *testing.T) {
	sleep, _ := exec.LookPath("sleep")
	sleep, _ = filepath.EvalSymlinks(sleep)
	dir := t.TempDir()
	p := &Process{Name: "sleeper", Binary: sleep, Args: []string{"600"}, LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := p.Start(true); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if err := StopByPIDFile(p.PIDFile); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(15 * time.Second):
		t.Fatal("detached process still running")
	}
}

// A process that ignores SIGTERM still dies at once: KillByPIDFile is a
// crash, not a stop.
func TestKillByPIDFileKillsAtOnceAndTheRestartLogGoesOn(t *testing.T) {
	sh, _ := exec.LookPath("sh")
	sh, _ = filepath.EvalSymlinks(sh)
	dir := t.TempDir()
	p := &Process{Name: "stubborn", Binary: sh, Args: []string{"-c", "trap '' TERM; echo first; sleep 600"},
		LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := p.Start(true); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	for log, _ := os.ReadFile(p.LogPath); !strings.Contains(string(log), "first"); log, _ = os.ReadFile(p.LogPath) {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := KillByPIDFile(p.PIDFile); err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("kill took %s: it waited for a SIGTERM the process ignores", took)
	}
	again := &Process{Name: "stubborn", Binary: sh, Args: []string{"-c", "echo second"}, LogPath: p.LogPath, Restarted: true}
	if err := again.Start(false); err != nil {
		t.Fatal(err)
	}
	<-again.Exited()
	log, _ := os.ReadFile(p.LogPath)
	if !strings.Contains(string(log), "first") || !strings.Contains(string(log), "second") {
		t.Fatalf("the restart's log does not go on from the first run's:\n%s", log)
	}
}

// After a restart by another process, the PID file names the new
// scheduler: stopping the crashed one must leave it for StopByPIDFile.
func TestStopLeavesThePIDFileOfTheSchedulerAfterIt(t *testing.T) {
	sleep, _ := exec.LookPath("sleep")
	sleep, _ = filepath.EvalSymlinks(sleep)
	dir := t.TempDir()
	first := &Process{Name: "first", Binary: sleep, Args: []string{"600"}, LogPath: filepath.Join(dir, "log"), PIDFile: filepath.Join(dir, "pid")}
	if err := first.Start(false); err != nil {
		t.Fatal(err)
	}
	defer first.Stop()
	second := &Process{Name: "second", Binary: sleep, Args: []string{"600"}, LogPath: filepath.Join(dir, "log"), PIDFile: first.PIDFile, Restarted: true}
	if err := second.Start(true); err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := StopByPIDFile(first.PIDFile); err != nil {
		t.Fatal(err)
	}
	select {
	case <-second.Exited():
	case <-time.After(15 * time.Second):
		t.Fatal("the scheduler started after the first one still runs: its PID file was removed")
	}
}

func TestStopByPIDFileLeavesAReusedPIDAlone(t *testing.T) {
	sleep, _ := exec.LookPath("sleep")
	cmd := exec.Command(sleep, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The PID now belongs to `sleep`, not to the recorded scheduler binary.
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n/nonexistent/reference-scheduler\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := StopByPIDFile(pidFile); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("an unrelated process was signalled: %v", err)
	}
}

func TestWithKubeconfigFillsClientConnection(t *testing.T) {
	out, err := WithKubeconfig([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  qps: 5000\n"), "/k/config")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "kubeconfig: /k/config") || !strings.Contains(string(out), "qps: 5000") {
		t.Fatalf("got:\n%s", out)
	}
	if _, err := WithKubeconfig([]byte("kind: Pod\n"), "/k"); err == nil {
		t.Fatal("a non-scheduler configuration was accepted")
	}
}

func TestReferenceRejectsBadInputBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Reference(ReferenceOptions{BinDir: dir}); err == nil || !strings.Contains(err.Error(), "no reference scheduler profile") {
		t.Fatalf("no profile: %v", err)
	}
	prof, err := config.Lookup("reference")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Reference(ReferenceOptions{Profile: prof, BinDir: dir}); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("missing binary: %v", err)
	}
}

// liveInGroup lists the processes of group pgid that are not zombies (an
// orphan's zombie waits for init, which may be slow to reap it).
func liveInGroup(t *testing.T, pgid int) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []string
	for _, f := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		fields, err := proc.StatFields(pid)
		// State, ppid, pgrp.
		if err == nil && len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" {
			live = append(live, f)
		}
	}
	return live
}
