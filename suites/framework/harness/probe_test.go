package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// commandScheduler starts SCHEDULER_CMD line as the harness would.
func commandScheduler(t *testing.T, line string) *scheduler.Process {
	t.Helper()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := scheduler.Command(scheduler.CommandOptions{Template: line, Kubeconfig: kc, SchedulerName: "my-scheduler", RunDir: dir, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

func expectNoNamespaceLeft(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	nss, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nss.Items) != 0 {
		t.Fatalf("probe namespaces left behind: %v, %v", nss, err)
	}
}

// A command that runs but never binds the probe pod is told that it
// probably does not serve the schedulerName it was given. The wait is 1 s
// here (2 min in a run).
func TestProbeNotBoundSaysTheCommandIgnoresTheName(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"echo serving default-scheduler {{.Kubeconfig}} {{.SchedulerName}}; exec sleep 600",
			`the command probably ignores the {{.SchedulerName}} it is given ("my-scheduler")`},
		{"echo serving default-scheduler {{.Kubeconfig}}; exec sleep 600",
			`SCHEDULER_CMD never uses {{.SchedulerName}}, so the command probably serves a name of its own, not "my-scheduler"`},
	}
	for _, c := range cases {
		cs := fakeapi.New()
		proc := commandScheduler(t, c.cmd)
		e := newEnv(settings.Settings{Scheduler: "command", SchedulerName: "my-scheduler", SchedulerCmd: c.cmd, ClusterName: "x"})
		err := e.probeBound(context.Background(), cs, proc, time.Second)
		if err == nil {
			t.Fatal("an unbound probe pod passed")
		}
		for _, want := range []string{`command scheduler not binding a probe pod with schedulerName "my-scheduler" after 1s`,
			"serving default-scheduler", "(the probe pod gangconf-probe-x", "/probe was never bound: ", c.want} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant it to say %q", err, want)
			}
		}
		expectNoNamespaceLeft(t, cs)
	}
}

// A command that exits at once is reported with its log, and not blamed
// on the schedulerName.
func TestProbeReportsACommandThatExitsAtOnce(t *testing.T) {
	cs := fakeapi.New()
	line := "echo 'unknown flag: --name'; exit 2"
	proc := commandScheduler(t, line)
	e := newEnv(settings.Settings{Scheduler: "command", SchedulerName: "my-scheduler", SchedulerCmd: line, ClusterName: "x"})
	err := e.probeBound(context.Background(), cs, proc, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "command scheduler exited at start (exit status 2)") ||
		!strings.Contains(err.Error(), "unknown flag: --name") || strings.Contains(err.Error(), "SchedulerName") {
		t.Fatalf("err = %v", err)
	}
	expectNoNamespaceLeft(t, cs)
}

func TestProbeBoundIsReady(t *testing.T) {
	cs := fakeapi.New()
	// The scheduler, played here: every pod is bound as it is created.
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if p.Spec.SchedulerName == "my-scheduler" {
			p.Spec.NodeName = "node-a"
		}
		return false, nil, nil
	})
	proc := commandScheduler(t, "sleep 600")
	e := newEnv(settings.Settings{Scheduler: "command", SchedulerName: "my-scheduler", SchedulerCmd: "sleep 600", ClusterName: "x"})
	if err := e.probeBound(context.Background(), cs, proc, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	expectNoNamespaceLeft(t, cs)
}

// Up with a command scheduler that never turns ready stops it and removes
// its run directory: nothing of the run is left but its log.
func TestUpStopsACommandThatNeverTurnsReady(t *testing.T) {
	port, err := scheduler.FreePort(0)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "pid")
	s := settings.Settings{Provider: "existing", Kubeconfig: fakeapi.Kubeconfig(t), Scheduler: "command", SchedulerName: "my-scheduler",
		SchedulerCmd:      "echo $$ > " + marker + "; exec sleep 600",
		SchedulerReadyURL: fmt.Sprintf("http://127.0.0.1:%d/readyz", port),
		WorkDir:           t.TempDir(), Results: t.TempDir(), ClusterName: "x"}
	// The harness waits a minute; the test gives it 2 s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	env, err := Up(ctx, s, false, t.Logf)
	if err == nil || env != nil || !strings.Contains(err.Error(), "command scheduler not ready on "+s.SchedulerReadyURL) {
		t.Fatalf("Up = %v, %v", env, err)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("the command never ran: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("the command (pid %d) still runs after Up failed", pid)
	}
	if entries, _ := os.ReadDir(s.WorkDir); len(entries) != 0 {
		t.Errorf("Up left files in the work directory: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(s.Results, "logs", "scheduler-command.log")); err != nil {
		t.Errorf("the scheduler's log is gone: %v", err)
	}
}
