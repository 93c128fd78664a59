package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// shortWaits makes ManageFakeNodes wait milliseconds, not seconds.
func shortWaits(t *testing.T) {
	t.Helper()
	in, own, clean := kwokInClusterWait, ownKwokWait, runCleanupWait
	kwokInClusterWait, ownKwokWait, runCleanupWait = 200*time.Millisecond, 5*time.Second, 5*time.Second
	t.Cleanup(func() { kwokInClusterWait, ownKwokWait, runCleanupWait = in, own, clean })
}

// existingEnv is a run on PROVIDER=existing whose kwok binary is script.
func existingEnv(t *testing.T, script string) *Env {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "kwok"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return newEnv(settings.Settings{Provider: "existing", Scheduler: "external", SchedulerName: "x", ClusterName: "c",
		Kubeconfig: fakeapi.Kubeconfig(t), BinDir: bin, WorkDir: t.TempDir(), Results: t.TempDir()})
}

// markReadyWhen makes every node Ready, as kwok would, once ready says so.
func markReadyWhen(t *testing.T, cs kubernetes.Interface, ready func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
			if !ready() {
				continue
			}
			nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			for _, n := range nodes.Items {
				if !cluster.NodeReady(&n) {
					n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
					_, _ = cs.CoreV1().Nodes().UpdateStatus(ctx, &n, metav1.UpdateOptions{})
				}
			}
		}
	}()
}

func TestNodeManagerNeededWhereNothingMayManageNodes(t *testing.T) {
	for _, c := range []struct {
		provider, profile string
		want              bool
	}{{"existing", "", true}, {"kind", "", true}, {"kwok", "ci-small", false}, {"kwok", "bare", true}} {
		e := newEnv(settings.Settings{Provider: c.provider, Cluster: c.profile})
		if got := e.needsNodeManager(); got != c.want {
			t.Errorf("%s %s: needs a node manager = %t, want %t", c.provider, c.profile, got, c.want)
		}
	}
}

// A kwok in the cluster makes the probe node Ready: the harness starts none.
func TestKwokInTheClusterMeansNoKwokOfOurOwn(t *testing.T) {
	shortWaits(t)
	e := existingEnv(t, "exit 1")
	cs := fakeapi.New()
	markReadyWhen(t, cs, func() bool { return true })
	var logs []string
	logf := func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	if err := e.manageFakeNodes(context.Background(), cs, "run1", logf); err != nil {
		t.Fatal(err)
	}
	if e.KwokController != nil || len(logs) != 1 || !strings.Contains(logs[0], "kwok already manages nodes in this cluster") {
		t.Fatalf("controller %v, logs %q", e.KwokController, logs)
	}
	n, err := cs.CoreV1().Nodes().Get(context.Background(), e.ProbeNode.NodeName(0), metav1.GetOptions{})
	if err != nil || n.Labels[cluster.LabelRun] != "run1" || len(n.Spec.Taints) != 1 {
		t.Fatalf("probe node %+v: %v; want the run's label and the slice's taint", n, err)
	}
	if err := e.releaseRun(cs); err != nil {
		t.Fatal(err)
	}
	if l, _ := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("nodes left: %d", len(l.Items))
	}
}

// Without kwok in the cluster the harness's own makes the probe node Ready;
// releasing the run stops it and removes the run's nodes and namespaces,
// and nothing else.
func TestOwnKwokManagesTheRunAndGoesWithIt(t *testing.T) {
	shortWaits(t)
	e := existingEnv(t, "sleep 30 & wait")
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real"}}
	cs := fakeapi.New(other)
	// The fake kwok has started once it has its configuration.
	markReadyWhen(t, cs, func() bool {
		_, err := os.Stat(filepath.Join(e.runDir(), "kwok-controller.yaml"))
		return err == nil
	})
	if err := e.manageFakeNodes(context.Background(), cs, "run2", t.Logf); err != nil {
		t.Fatal(err)
	}
	c := e.KwokController
	if c == nil {
		t.Fatal("no kwok controller started")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc-1", Labels: map[string]string{cluster.LabelRun: "run2"}}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := e.releaseRun(cs); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(c.PID()) {
		t.Error("the kwok controller still runs")
	}
	nodes, _ := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	nss, _ := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{LabelSelector: cluster.LabelRun})
	if len(nodes.Items) != 1 || nodes.Items[0].Name != "real" || len(nss.Items) != 0 {
		t.Errorf("left: %d nodes (want only real), %d run namespaces", len(nodes.Items), len(nss.Items))
	}
}

// A kwok that exits at start fails the run at once with its log's end.
func TestOwnKwokThatExitsFailsWithItsLog(t *testing.T) {
	shortWaits(t)
	e := existingEnv(t, `echo "no such flag" >&2; exit 3`)
	cs := fakeapi.New()
	err := e.manageFakeNodes(context.Background(), cs, "run3", t.Logf)
	if err == nil || !strings.Contains(err.Error(), "kwok controller exited (exit status 3)") || !strings.Contains(err.Error(), "no such flag") {
		t.Fatalf("err = %v", err)
	}
	if err := e.releaseRun(cs); err != nil {
		t.Fatal(err)
	}
}
