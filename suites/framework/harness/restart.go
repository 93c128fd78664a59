package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// restartCmdTimeout bounds SCHEDULER_RESTART_CMD: a kubectl delete or a
// supervisor's kill returns in seconds; one that hangs must not hold the
// run for the suite's whole timeout.
var restartCmdTimeout = 2 * time.Minute

// answerTimeout bounds the check, before any spec, that something binds a
// pod naming the schedulerName of a scheduler the harness does not start.
var answerTimeout = time.Minute

// restartCmdLog is where SCHEDULER_RESTART_CMD's output goes, in the run's
// log directory; every run of it is appended after a header.
func (e *Env) restartCmdLog() string { return filepath.Join(e.Logs(), "restart-cmd.log") }

// runRestartCmd runs SCHEDULER_RESTART_CMD under sh -c with KUBECONFIG set to
// the run's kubeconfig, for at most restartCmdTimeout. A failure is one
// line naming its exit status and its last line of output.
func (e *Env) runRestartCmd(ctx context.Context) error {
	logPath := e.restartCmdLog()
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	start, _ := log.Seek(0, io.SeekEnd)
	fmt.Fprintf(log, "===== gangconf: %s at %s: %s =====\n", settings.EnvRestartCmd, time.Now().Format(time.RFC3339), e.SchedulerRestartCmd)
	header, _ := log.Seek(0, io.SeekCurrent)
	ctx, cancel := context.WithTimeout(ctx, restartCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", e.SchedulerRestartCmd)
	// Absolute, as the command may change directory; a list (a:b) as it is.
	kubeconfig := e.Kubeconfig
	if abs, err := filepath.Abs(kubeconfig); err == nil && !strings.ContainsRune(kubeconfig, os.PathListSeparator) {
		kubeconfig = abs
	}
	cmd.Env = append(os.Environ(), settings.EnvKubeconfig+"="+kubeconfig)
	// A file, not a pipe: a scheduler the command starts in the background
	// keeps its output open, and Wait must not wait for it.
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group, ended whole on a timeout or Ctrl-C; what it
	// starts with setsid (a supervised scheduler) is left running.
	proc.GroupCancel(cmd, syscall.SIGKILL)
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if err == nil {
		return nil
	}
	last := lastLine(logPath, max(start, header))
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s did not finish within %s: %s\n(its output: %s)", settings.EnvRestartCmd, restartCmdTimeout, last, logPath)
	case ctx.Err() != nil:
		return fmt.Errorf("%s stopped: %w", settings.EnvRestartCmd, ctx.Err())
	}
	return fmt.Errorf("%s failed (%v): %s\n(its output: %s)", settings.EnvRestartCmd, err, last, logPath)
}

// lastLine is the last non-empty line of the file from offset on, or a
// note that there was none.
func lastLine(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < offset {
		return "(its output cannot be read)"
	}
	lines := strings.Split(strings.TrimSpace(string(data[offset:])), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "(it printed nothing)"
}

// ensureAnswering waits, after SCHEDULER_RESTART_CMD, until the scheduler
// the harness does not start answers again: its SCHEDULER_READY_URL when
// given, else a probe pod naming its schedulerName bound.
func (e *Env) ensureAnswering(ctx context.Context) error {
	if !e.schedulerDown {
		return nil
	}
	if url := e.SchedulerReadyURL; url != "" {
		err := scheduler.Poll(ctx, time.Minute, nil, func(ctx context.Context) bool { return scheduler.ReadyURLOK(ctx, url) })
		if err != nil {
			return fmt.Errorf("the scheduler is not ready on %s %s after %s (%w)", url, time.Minute, settings.EnvRestartCmd, err)
		}
	} else {
		cs, err := e.Clientset()
		if err != nil {
			return err
		}
		if err := e.probeBound(ctx, cs, nil, probeTimeout); err != nil {
			return fmt.Errorf("after %s: %w", settings.EnvRestartCmd, err)
		}
	}
	e.schedulerDown = false
	return nil
}

// CheckSchedulerAnswers fails the run, before any spec, unless something
// binds a pod naming the schedulerName of a scheduler the harness does not
// start within a minute: otherwise every spec would fail on its own, each
// as if the scheduler broke the contract. A scheduler the harness starts
// was checked so by Up.
func (e *Env) CheckSchedulerAnswers(ctx context.Context) error {
	if e.SchedulerKind.Started {
		return nil
	}
	cs, err := e.Clientset()
	if err != nil {
		return err
	}
	return e.probeBound(ctx, cs, nil, answerTimeout)
}

// errNotAnswered is a probe pod that no scheduler the harness does not run
// bound within timeout.
func (e *Env) errNotAnswered(err error, ns string, timeout time.Duration) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("stopped waiting for a scheduler to bind the probe pod %s/probe: %w", ns, err)
	}
	const msg = "no scheduler answers schedulerName %q: a pod naming it (%s/probe) was not bound within %s; start the scheduler, or set SCHEDULER_NAME to the name it serves"
	return fmt.Errorf(msg, e.SchedulerName, ns, timeout)
}
