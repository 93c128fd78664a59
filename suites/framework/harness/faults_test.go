package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/settings"
)

// Fault specs skip with this reason when the harness does not own what the
// fault needs, and the fault calls refuse rather than act on what another
// party runs.
func TestFaultsNeedWhatTheHarnessStarted(t *testing.T) {
	e := newEnv(settings.Settings{Scheduler: "external", Provider: "existing"})
	if ok, why := e.CanRestartScheduler(); ok || !strings.Contains(why, "SCHEDULER=external") {
		t.Fatalf("external scheduler: %v %q", ok, why)
	}
	if ok, why := e.CanRestartControlPlane(); ok || !strings.Contains(why, "PROVIDER=existing") {
		t.Fatalf("existing cluster: %v %q", ok, why)
	}
	if err := e.CrashScheduler(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot kill") {
		t.Fatalf("CrashScheduler: %v", err)
	}
	if err := e.EnsureScheduler(context.Background()); err == nil {
		t.Fatal("EnsureScheduler started a scheduler the harness does not own")
	}
	if _, err := e.RestartControlPlane(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot restart") {
		t.Fatalf("RestartControlPlane: %v", err)
	}
}
