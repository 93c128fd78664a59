package harness

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gangconf/gangconf/suites/framework/scheduler"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// RestartDetached kills the scheduler that an earlier Up started detached
// (make cluster-up) with SIGKILL, as a crash would, starts it again
// detached with the same settings, and returns once it is ready: what a
// Deployment does for a scheduler pod that died. It is a restart command
// (SCHEDULER_RESTART_CMD) for a scheduler the suite does not start.
func RestartDetached(ctx context.Context, s settings.Settings, logf func(string, ...any)) error {
	if err := s.Validate(); err != nil {
		return err
	}
	env, err := Attach(s)
	if err != nil {
		return err
	}
	if !env.SchedulerKind.Started {
		return fmt.Errorf("SCHEDULER=%s is not started by the harness, so cluster %s has no scheduler of its own to restart", s.Scheduler, s.ClusterName)
	}
	if err := scheduler.KillByPIDFile(filepath.Join(env.runDir(), "scheduler.pid")); err != nil {
		return err
	}
	proc, err := env.prepareScheduler()
	if err != nil {
		return err
	}
	proc.Restarted = true
	if err := proc.Start(true); err != nil {
		return err
	}
	if err := env.waitSchedulerReady(ctx, proc); err != nil {
		return err
	}
	logf("scheduler %s killed and started again (PID %d), ready", proc.Name, proc.PID())
	return nil
}
