// Package proc tells, from /proc, whether a process the harness started
// still runs and which processes a run left, and starts and signals
// processes in groups of their own. An exited process keeps its entry as a
// zombie until its parent reaps it, which for a detached component may be
// late or never; it counts as gone.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StatFields returns the fields of /proc/<pid>/stat after the command name
// (state first, then ppid, pgrp, ...: proc(5) numbers them from 3). The
// name is in parentheses and may hold spaces and parentheses itself.
func StatFields(pid int) ([]string, error) {
	return statFields(fmt.Sprintf("/proc/%d/stat", pid))
}

func statFields(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed %s", path)
	}
	return strings.Fields(s[i+1:]), nil
}

// PIDs lists the processes in /proc.
func PIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Mentions says whether the process's command line or environment names
// mark, a run's own directory: every process a run starts inherits RESULTS
// and WORK_DIR (the Makefile exports them) or is handed a path beneath
// them, also those that leave the run's process group (kwokctl's
// components, a detached scheduler).
func Mentions(pid int, mark string) bool {
	for _, f := range []string{"cmdline", "environ"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
		if err == nil && bytes.Contains(data, []byte(mark)) {
			return true
		}
	}
	return false
}

// Alive says whether pid exists and any of its threads has not exited. The
// process's own entry shows the main thread, a zombie as soon as that thread
// is done, while the others may still be exiting with the process's files
// open: a kube-apiserver restarted then could not listen on its port, the
// old one's socket still open ("address already in use").
func Alive(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	for _, t := range tasks {
		f, err := statFields(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err == nil && len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// Runs says whether pid is alive and executing binary, so that a PID the
// kernel has given to another program since does not count.
func Runs(pid int, binary string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && Alive(pid) && strings.TrimSuffix(exe, " (deleted)") == binary
}

// Children returns the processes whose parent is pid, from every process's
// stat: /proc/<pid>/task/*/children needs a kernel option.
func Children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, err := StatFields(child); err == nil && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// SignalWithChildren sends sig to pid and to its children, not further:
// Ginkgo's CLI and its parallel processes, which each handle a Ctrl-C and
// stop their own helpers (the kwokctl removing a cluster must not get it).
func SignalWithChildren(pid int, sig syscall.Signal) error {
	children := Children(pid)
	err := syscall.Kill(pid, sig)
	for _, c := range children {
		_ = syscall.Kill(c, sig)
	}
	return err
}

// OwnGroup makes cmd start in a process group of its own: a Ctrl-C at the
// terminal then reaches the harness alone, which stops its processes in
// order, and the kernel sends cmd SIGTERM if the harness dies first.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// Interruptible makes cmd, made with exec.CommandContext, start in a process
// group of its own, out of reach of a Ctrl-C at the terminal, and get one
// SIGINT, to its whole group, when the context is done: every process of a
// make conformance then gets the one SIGINT (a second makes Ginkgo skip its
// teardown), also when the caller got a SIGTERM, which make would pass on to
// its children itself. Wait then waits for the teardown, however long.
func Interruptible(cmd *exec.Cmd) {
	GroupCancel(cmd, syscall.SIGINT)
}

// IsExecutable says whether path is a file its owner, group or others may
// run.
func IsExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// GroupCancel makes cmd start in a process group of its own that gets sig,
// whole, when cmd's context is done.
func GroupCancel(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
}

// StopGroup ends the process group that pid leads (see OwnGroup): SIGTERM,
// then SIGKILL if exited is not closed within grace. It returns once exited
// is closed, that is once the caller's Wait has reaped pid.
func StopGroup(pid int, exited <-chan struct{}, grace time.Duration) {
	select {
	case <-exited:
		return
	default:
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
}
