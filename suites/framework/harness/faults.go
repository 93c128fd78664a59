package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// CanRestartScheduler says whether the harness owns the scheduler process
// and so can crash and restart it; if not, why not.
func (e *Env) CanRestartScheduler() (bool, string) {
	if e.SchedulerProcess == nil {
		return false, fmt.Sprintf("the harness does not run the scheduler under test (SCHEDULER=%s), so it cannot kill and restart it", e.Settings.Scheduler)
	}
	return true, ""
}

// CanRestartControlPlane says whether the harness made the cluster and so
// can restart its API server; if not, why not.
func (e *Env) CanRestartControlPlane() (bool, string) {
	if e.Kwok == nil {
		return false, fmt.Sprintf("the harness did not make the cluster (PROVIDER=%s), so it cannot restart its API server", e.Provider)
	}
	return true, ""
}

// CrashScheduler kills the scheduler under test with SIGKILL, as a crash or
// an OOM kill would: it gets no chance to finish bindings in flight.
func (e *Env) CrashScheduler() error {
	if ok, why := e.CanRestartScheduler(); !ok {
		return errors.New(why)
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
