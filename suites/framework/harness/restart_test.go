package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// externalEnv is a run of an external scheduler serving my-scheduler, with
// restart command cmd.
func externalEnv(t *testing.T, cmd string) *Env {
	t.Helper()
	return newEnv(settings.Settings{Provider: "existing", Kubeconfig: fakeapi.Kubeconfig(t), Scheduler: "external",
		SchedulerName: "my-scheduler", SchedulerRestartCmd: cmd, ClusterName: "x", Results: t.TempDir()})
}

// With SCHEDULER_RESTART_CMD, the faults run on a scheduler the harness
// does not start: the command runs with the run's kubeconfig, its output
// goes to the run's log, and the scheduler is waited for until it answers.
func TestRestartCommandCrashesAnExternalScheduler(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer ready.Close()
	e := externalEnv(t, `echo "killing my-scheduler with $KUBECONFIG"`)
	e.SchedulerReadyURL = ready.URL
	if ok, why := e.CanRestartScheduler(); !ok {
		t.Fatalf("CanRestartScheduler: %s", why)
	}
	if err := e.CrashScheduler(context.Background()); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(e.Results, "logs", "restart-cmd.log"))
	if err != nil || !strings.Contains(string(log), "killing my-scheduler with "+e.Kubeconfig) {
		t.Fatalf("restart-cmd.log = %q, %v", log, err)
	}
	if !e.schedulerDown {
		t.Fatal("the scheduler is not marked down after its crash")
	}
	if err := e.EnsureScheduler(context.Background()); err != nil || e.schedulerDown {
		t.Fatalf("EnsureScheduler = %v, down %t", err, e.schedulerDown)
	}
	// Seen back once, a cleanup's second call has nothing to wait for.
	ready.Close()
	if err := e.EnsureScheduler(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A failing restart command is one line: its exit status and its last line
// of output; a hanging one is stopped at the bound.
func TestRestartCommandFailureSaysItsStatusAndLastLine(t *testing.T) {
	e := externalEnv(t, `echo deleting; echo 'error: no pods match component=my-scheduler' >&2; exit 3`)
	err := e.CrashScheduler(context.Background())
	first, _, _ := strings.Cut(errString(err), "\n")
	if first != "SCHEDULER_RESTART_CMD failed (exit status 3): error: no pods match component=my-scheduler" {
		t.Fatalf("err = %v", err)
	}
	e = externalEnv(t, "false")
	if err := e.CrashScheduler(context.Background()); !strings.HasPrefix(errString(err), "SCHEDULER_RESTART_CMD failed (exit status 1): (it printed nothing)") {
		t.Fatalf("err = %v", err)
	}
	defer func(d time.Duration) { restartCmdTimeout = d }(restartCmdTimeout)
	restartCmdTimeout = 500 * time.Millisecond
	e = externalEnv(t, "echo waiting; sleep 600")
	start := time.Now()
	err = e.CrashScheduler(context.Background())
	if !strings.HasPrefix(errString(err), "SCHEDULER_RESTART_CMD did not finish within 500ms: waiting") || time.Since(start) > 10*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Before any spec, a schedulerName nobody serves is one line saying so;
// the probe's namespace is removed. The wait is 1 s here (1 min in a run).
func TestNoSchedulerAnswersTheName(t *testing.T) {
	cs := fakeapi.New()
	e := externalEnv(t, "")
	err := e.probeBound(context.Background(), cs, nil, time.Second)
	want := `no scheduler answers schedulerName "my-scheduler": a pod naming it (gangconf-probe-x-1/probe) was not bound within 1s; ` +
		"start the scheduler, or set SCHEDULER_NAME to the name it serves"
	if errString(err) != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	expectNoNamespaceLeft(t, cs)
	if ok, why := e.CanRestartScheduler(); ok || !strings.Contains(why, "give SCHEDULER_RESTART_CMD") {
		t.Fatalf("without a restart command: %v %q", ok, why)
	}
}

// A scheduler the harness does not run answers once it binds the probe.
func TestAnExternalSchedulerAnswersByBindingTheProbe(t *testing.T) {
	cs := fakeapi.New()
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod); p.Spec.SchedulerName == "my-scheduler" {
			p.Spec.NodeName = "node-a"
		}
		return false, nil, nil
	})
	e := externalEnv(t, "")
	if err := e.probeBound(context.Background(), cs, nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	expectNoNamespaceLeft(t, cs)
}

// The plan names how the scheduler is crashed, or why the specs are skipped.
func TestFaultPlanSaysHowOrWhyNot(t *testing.T) {
	plan := externalEnv(t, "systemctl kill -s KILL my-scheduler").FaultPlan()
	if len(plan) != 2 || !plan[0].Runs || !strings.HasPrefix(plan[0].Note, "SCHEDULER_RESTART_CMD kills it") ||
		plan[1].Runs || !strings.Contains(plan[1].Note, "the harness did not make the cluster (PROVIDER=existing)") {
		t.Fatalf("with a restart command: %+v", plan)
	}
	plan = externalEnv(t, "").FaultPlan()
	if plan[0].Runs || !strings.Contains(plan[0].Note, "give SCHEDULER_RESTART_CMD") {
		t.Fatalf("without one: %+v", plan)
	}
}
