// Package scheduler starts, watches and stops the scheduler under test as a
// process of the harness's own, and ends only the processes it started.
package scheduler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gangconf/gangconf/suites/framework/proc"
)

// Process is a running scheduler started by the harness.
type Process struct {
	Name    string
	Binary  string
	Args    []string
	LogPath string
	// Port is the scheduler's secure port on loopback (/readyz, /metrics);
	// 0 when the scheduler has none the harness knows of.
	Port int
	// ReadyURL answers 200 once the scheduler is ready; empty when the
	// harness must find readiness another way.
	ReadyURL string
	// PIDFile records the PID so another process (make cluster-down) can
	// stop a scheduler that outlived the process that started it.
	PIDFile string
	// Restarted says that an earlier process ran this scheduler (make
	// scheduler-restart): its log goes on, as after a restart here.
	Restarted bool

	cmd    *exec.Cmd
	exited chan struct{}
	err    error
	// starts counts Start calls: a restarted scheduler's log is appended to
	// the first run's, so one file tells the whole story.
	starts int
}

// FreePort returns a loopback port nobody listens on, or checks that want is
// free when it is not 0.
func FreePort(want int) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(want)))
	if err != nil {
		if want != 0 {
			return 0, fmt.Errorf("port %d on 127.0.0.1 is in use; stop what listens there or choose another port", want)
		}
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start runs the process with its output in LogPath. When detached, it gets a
// session of its own and outlives the harness (make cluster-up); otherwise
// the kernel sends it SIGTERM if the harness dies without stopping it.
func (p *Process) Start(detached bool) error {
	if err := os.MkdirAll(filepath.Dir(p.LogPath), 0o755); err != nil {
		return err
	}
	again := p.starts > 0 || p.Restarted
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if again {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	log, err := os.OpenFile(p.LogPath, flags, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	if again {
		fmt.Fprintf(log, "\n===== gangconf: scheduler started again (start %d) at %s =====\n", p.starts+1, time.Now().Format(time.RFC3339))
	}
	p.starts++
	p.cmd = exec.Command(p.Binary, p.Args...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if detached {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		p.cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s scheduler %s: %w", p.Name, p.Binary, err)
	}
	p.exited = make(chan struct{})
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	if p.PIDFile != "" {
		// The resolved path is what /proc/<pid>/exe will show.
		exe, err := filepath.EvalSymlinks(p.Binary)
		if err != nil {
			exe = p.Binary
		}
		if err := os.WriteFile(p.PIDFile, []byte(strconv.Itoa(p.cmd.Process.Pid)+"\n"+exe+"\n"), 0o644); err != nil {
			_ = p.Stop()
			return err
		}
	}
	return nil
}

// WaitReady blocks until ReadyURL answers 200, and fails at once, with the
// end of its log, if the process exits first.
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration) error {
	return p.WaitUntil(ctx, timeout, "ready on "+p.ReadyURL, p.readyURLOK)
}

// WaitUntil blocks until ok says yes, polling it, and fails at once, with the
// end of the log, if the process exits first.
func (p *Process) WaitUntil(parent context.Context, timeout time.Duration, what string, ok func(context.Context) bool) error {
	switch err := Poll(parent, timeout, p.exited, ok); {
	case err == nil:
		return nil
	case errors.Is(err, ErrExited):
		return fmt.Errorf("%s scheduler exited at start (%v); last lines of %s:\n%s", p.Name, p.err, p.LogPath, Tail(p.LogPath, 15))
	case errors.Is(err, context.Canceled):
		// The run was stopped (Ctrl-C, SIGTERM), not the scheduler slow.
		return fmt.Errorf("%s scheduler: stopped waiting until %s: %w", p.Name, what, err)
	default:
		return fmt.Errorf("%s scheduler not %s after %s; last lines of %s:\n%s", p.Name, what, timeout, p.LogPath, Tail(p.LogPath, 15))
	}
}

// ErrExited is Poll's answer when the process it watches exits first.
var ErrExited = errors.New("the scheduler exited")

// Poll calls ok every 200 ms until it says yes, for at most timeout. It
// stops at once with ErrExited when exited is closed (nil: a scheduler the
// harness does not run), with context.Canceled when parent is cancelled,
// and with context.DeadlineExceeded when the time is up, the caller's
// deadline included: a scheduler too slow for it is still too slow.
func Poll(parent context.Context, timeout time.Duration, exited <-chan struct{}, ok func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			return ErrExited
		case <-ctx.Done():
			if err := parent.Err(); errors.Is(err, context.Canceled) {
				return err
			}
			return context.DeadlineExceeded
		case <-tick.C:
		}
		if ok(ctx) {
			return nil
		}
	}
}

// LoopbackClient reads a scheduler's secure port on loopback, which it
// serves over its own self-signed certificate. All requests share it, and so
// a kept-alive connection: a client made for each request left its TLS
// connection open in the scheduler after it (300 scrapes, 300 connections).
var LoopbackClient = &http.Client{
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

func (p *Process) readyURLOK(ctx context.Context) bool { return ReadyURLOK(ctx, p.ReadyURL) }

// ReadyURLOK says whether url answers 200 within 2 s.
func ReadyURLOK(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := LoopbackClient.Do(req)
	if err != nil {
		return false
	}
	// Read to the end, so that the connection is kept for the next request.
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// PID is the process's ID (0 before Start).
func (p *Process) PID() int {
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Starts is how many times the process was started.
func (p *Process) Starts() int { return p.starts }

// Running says whether the process was started and has not ended.
func (p *Process) Running() bool {
	if p.exited == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Kill ends the process group at once with SIGKILL, as a crash would: the
// scheduler gets no chance to finish a binding or clean up.
func (p *Process) Kill() error {
	if !p.Running() {
		return fmt.Errorf("%s scheduler is not running", p.Name)
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s scheduler (pid %d): %w", p.Name, p.cmd.Process.Pid, err)
	}
	<-p.exited
	return nil
}

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop ends the process and its process group (a command scheduler runs
// under a shell): SIGTERM, then SIGKILL after a grace period.
func (p *Process) Stop() error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	select {
	case <-p.exited:
	default:
		pid := p.cmd.Process.Pid
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-p.exited
		}
	}
	// The file may name a scheduler started after this one crashed (make
	// scheduler-restart, a restart command): that one is not ours to forget.
	if pid, _, err := readPIDFile(p.PIDFile); err == nil && pid == p.cmd.Process.Pid {
		_ = os.Remove(p.PIDFile)
	}
	return nil
}

// StopByPIDFile stops a detached scheduler recorded in pidFile by an earlier
// process: SIGTERM, then SIGKILL after a grace period.
func StopByPIDFile(pidFile string) error { return signalPIDFile(pidFile, 10*time.Second) }

// KillByPIDFile kills a detached scheduler recorded in pidFile with SIGKILL
// at once, as a crash or an OOM kill would, and returns once it is gone.
func KillByPIDFile(pidFile string) error { return signalPIDFile(pidFile, 0) }

// signalPIDFile ends the scheduler recorded in pidFile, and its process
// group (the scheduler and anything its shell started): SIGTERM and up to
// grace for it to exit, then SIGKILL. It signals the PID only if that PID
// still runs the recorded binary, so a reused PID is never hit.
func signalPIDFile(pidFile string, grace time.Duration) error {
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer os.Remove(pidFile)
	pid, exe, err := parsePIDFile(pidFile, data)
	if err != nil {
		return err
	}
	gone := func() bool { return !proc.Runs(pid, exe) }
	if gone() {
		return nil
	}
	if grace > 0 {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		if waitFor(gone, grace) {
			return nil
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if !waitFor(gone, 10*time.Second) {
		return fmt.Errorf("scheduler PID %d (%s) still runs after SIGKILL", pid, exe)
	}
	return nil
}

// readPIDFile reads a PID file that Start wrote: the PID and the binary.
func readPIDFile(path string) (int, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	return parsePIDFile(path, data)
}

func parsePIDFile(path string, data []byte) (int, string, error) {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	pid, err := strconv.Atoi(lines[0])
	if err != nil || len(lines) < 2 {
		return 0, "", fmt.Errorf("malformed PID file %s", path)
	}
	return pid, lines[1], nil
}

// waitFor polls done until it holds or timeout passes, and says whether it held.
func waitFor(done func() bool, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done() {
			return true
		}
	}
	return done()
}

// Tail returns the last n lines of a file, for error messages.
func Tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
