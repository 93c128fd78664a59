package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/suites/framework/preflight"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// CanRestartScheduler says whether the harness can crash the scheduler
// under test and see it back: it owns the process, or was given
// SCHEDULER_RESTART_CMD for one it does not start; if not, why not.
func (e *Env) CanRestartScheduler() (bool, string) {
	if e.SchedulerProcess == nil && e.SchedulerRestartCmd == "" {
		return false, fmt.Sprintf("the harness does not run the scheduler under test (SCHEDULER=%s), so it cannot kill and restart it: "+
			"give %s, a command that kills it as a crash would and lets what runs it bring it back", e.Settings.Scheduler, settings.EnvRestartCmd)
	}
	return true, ""
}

// NotMadeHere starts the reason of every spec skipped because the harness
// did not make the cluster: what a vendor's cluster rightly lacks.
const NotMadeHere = "the harness did not make the cluster"

// CanRestartControlPlane says whether the harness made the cluster and so
// can restart its API server; if not, why not.
func (e *Env) CanRestartControlPlane() (bool, string) {
	if e.Kwok == nil {
		return false, fmt.Sprintf("%s (PROVIDER=%s), so it cannot restart its API server", NotMadeHere, e.Provider)
	}
	return true, ""
}

// FaultPlan is the preflight plan's steps for the fault specs: whether
// each fault can run, and how, or why it is skipped.
func (e *Env) FaultPlan() []preflight.Step {
	crash := preflight.Step{What: "scheduler crash and restart (area:faults)"}
	switch ok, why := e.CanRestartScheduler(); {
	case !ok:
		crash.Note = why
	case e.SchedulerProcess == nil:
		crash.Runs, crash.Note = true, settings.EnvRestartCmd+" kills it; the harness waits until it answers again"
	default:
		crash.Runs, crash.Note = true, "SIGKILL to the process the harness runs, then the same command line again"
	}
	api := preflight.Step{What: "API server restart (area:faults)", Note: "every control plane process stopped and started again"}
	if ok, why := e.CanRestartControlPlane(); !ok {
		api.Note = why
	} else {
		api.Runs = true
	}
	return []preflight.Step{crash, api}
}

// CrashScheduler kills the scheduler under test with SIGKILL, as a crash or
// an OOM kill would: it gets no chance to finish bindings in flight. One
// the harness does not start is killed by SCHEDULER_RESTART_CMD.
func (e *Env) CrashScheduler(ctx context.Context) error {
	if ok, why := e.CanRestartScheduler(); !ok {
		return errors.New(why)
	}
	if e.SchedulerProcess == nil {
		// Down even when the command fails: it may have killed it first.
		e.schedulerDown = true
		return e.runRestartCmd(ctx)
	}
	return e.SchedulerProcess.Kill()
}

// EnsureScheduler starts the scheduler under test again if it is not
// running, with the same command line, and waits until it is ready. Specs
// that crash it call this from their cleanup too, so that a failing spec
// leaves a working scheduler for the next one.
func (e *Env) EnsureScheduler(ctx context.Context) error {
	if ok, why := e.CanRestartScheduler(); !ok {
		return errors.New(why)
	}
	proc := e.SchedulerProcess
	if proc == nil {
		return e.ensureAnswering(ctx)
	}
	if proc.Running() {
		return nil
	}
	if err := proc.Start(false); err != nil {
		return err
	}
	return e.waitSchedulerReady(ctx, proc)
}

// RestartControlPlane stops every control plane process (etcd, API server,
// controller manager, kwok) and starts them again on the same data, and
// returns once the API server is ready. The scheduler under test keeps
// running and has to find its way back.
func (e *Env) RestartControlPlane(ctx context.Context) (time.Duration, error) {
	if ok, why := e.CanRestartControlPlane(); !ok {
		return 0, errors.New(why)
	}
	start := time.Now()
	if err := e.Kwok.Restart(ctx); err != nil {
		return 0, err
	}
	cs, err := e.Clientset()
	if err != nil {
		return 0, err
	}
	if err := waitAPIReady(ctx, cs, time.Minute); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// waitAPIReady polls the API server's /readyz until it answers ok.
func waitAPIReady(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		_, last = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("API server not ready %s after its restart: %v", timeout, errors.Join(err, last))
	}
	return nil
}
