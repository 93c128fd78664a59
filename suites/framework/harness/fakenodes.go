package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
)

// Waits of ManageFakeNodes (variables so that unit tests can wait less).
var (
	// kwokInClusterWait is how long the probe node may take to turn Ready
	// under a kwok that already runs in the cluster: kwok makes a node Ready
	// within a second or two of its creation.
	kwokInClusterWait = 10 * time.Second
	// ownKwokWait bounds the wait for the harness's own kwok controller to
	// make the probe node Ready (it starts in about a second).
	ownKwokWait = time.Minute
	// runCleanupWait bounds each wait of releaseFakeNodes.
	runCleanupWait = time.Minute
)

// needsNodeManager says whether the run's fake nodes may have nothing that
// makes them Ready: on a cluster the harness did not make (existing, kind),
// or made without kwokctl's kwok controller (a profile withoutKwokController).
func (e *Env) needsNodeManager() bool {
	if e.Provider != "kwok" {
		return true
	}
	prof, err := fixtures.LoadProfile(e.Cluster)
	return err == nil && prof.WithoutKwokController
}

// ManageFakeNodes makes sure that the run's fake nodes (labelled
// cluster.LabelRun=runID) turn Ready, so that no spec is skipped for want of
// a node slice. It creates the run's probe node (Env.ProbeNode, tainted so
// that only the scheduler's readiness probe lands there) and, unless a kwok
// already in the cluster makes it Ready within kwokInClusterWait, starts a
// kwok controller of the harness's own that manages the run's nodes and
// nothing else. Down stops it and removes the run's nodes.
func (e *Env) ManageFakeNodes(ctx context.Context, runID string, logf func(string, ...any)) error {
	if !e.needsNodeManager() {
		return nil
	}
	cs, err := e.Clientset()
	if err != nil {
		return err
	}
	return e.manageFakeNodes(ctx, cs, runID, logf)
}

// manageFakeNodes is ManageFakeNodes on the cluster cs reaches.
func (e *Env) manageFakeNodes(ctx context.Context, cs kubernetes.Interface, runID string, logf func(string, ...any)) error {
	// Set first: Down removes the run's nodes by it, a half-made probe too.
	e.RunID = runID
	probe, err := cluster.CreateSlice(ctx, cs, "gangconf-probe-"+runID, "gpu-8x", 1, 1, map[string]string{cluster.LabelRun: runID}, nil)
	if err != nil {
		return fmt.Errorf("the run's probe node: %w", err)
	}
	e.ProbeNode = probe
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, kwokInClusterWait)
	err = probe.WaitReady(wctx, cs)
	cancel()
	if err == nil {
		logf("kwok already manages nodes in this cluster (probe node %s Ready after %s): the harness starts no kwok of its own",
			probe.NodeName(0), time.Since(start).Round(100*time.Millisecond))
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("stopped waiting for the run's probe node: %w", cerr)
	}
	return e.startKwokController(ctx, cs, logf)
}

// startKwokController starts the harness's own kwok controller for the run's
// nodes and waits until it has made the probe node Ready.
func (e *Env) startKwokController(ctx context.Context, cs kubernetes.Interface, logf func(string, ...any)) error {
	kubeconfig, err := filepath.Abs(e.Kubeconfig)
	if err != nil {
		return err
	}
	c, err := cluster.StartKwokController(cluster.KwokControllerOptions{
		Binary: filepath.Join(e.BinDir, "kwok"), Kubeconfig: kubeconfig, RunID: e.RunID,
		Dir: e.runDir(), LogPath: filepath.Join(e.Logs(), "kwok-controller.log"),
	})
	if err != nil {
		return err
	}
	e.KwokController = c
	start := time.Now()
	err = c.WaitUntil(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, ownKwokWait)
		defer cancel()
		return e.ProbeNode.WaitReady(ctx, cs)
	})
	if err != nil {
		return fmt.Errorf("the harness's kwok controller (no kwok in the cluster made probe node %s Ready in %s) did not make it Ready: %w",
			e.ProbeNode.NodeName(0), kwokInClusterWait, err)
	}
	logf("no kwok in the cluster made probe node %s Ready in %s: the harness's kwok controller (PID %d, log %s) manages the nodes labelled %s=%s, and only those; probe node Ready after %s",
		e.ProbeNode.NodeName(0), kwokInClusterWait, c.PID(), c.LogPath(), cluster.LabelRun, e.RunID, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// releaseFakeNodes undoes ManageFakeNodes, with deadlines of its own so that
// it runs after Ctrl-C too: it waits for the run's namespaces to be gone
// while the kwok controller still runs (it ends their pods on the run's
// nodes), stops the controller, and removes the run's nodes.
func (e *Env) releaseFakeNodes() error {
	if e.RunID == "" {
		return nil
	}
	cs, err := e.Clientset()
	if err != nil {
		if e.KwokController != nil {
			e.KwokController.Stop()
			e.KwokController = nil
		}
		return err
	}
	return e.releaseRun(cs)
}

// releaseRun is releaseFakeNodes on the cluster cs reaches.
func (e *Env) releaseRun(cs kubernetes.Interface) error {
	var errs []error
	sel := metav1.ListOptions{LabelSelector: cluster.LabelRun + "=" + e.RunID}
	if e.KwokController != nil {
		errs = append(errs, removeRunNamespaces(cs, sel))
		e.KwokController.Stop()
		e.KwokController = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), runCleanupWait)
	defer cancel()
	if err := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		errs = append(errs, fmt.Errorf("delete the run's nodes: %w", err))
	}
	errs = append(errs, waitGone("nodes", sel, func(ctx context.Context) ([]string, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, sel)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, n := range l.Items {
			out = append(out, n.Name)
		}
		return out, nil
	}))
	e.ProbeNode, e.RunID = nil, ""
	return errors.Join(errs...)
}

// removeRunNamespaces deletes the run's namespaces (specs and
// framework.RemoveRun may have already) and waits until they are gone.
func removeRunNamespaces(cs kubernetes.Interface, sel metav1.ListOptions) error {
	return waitGone("namespaces", sel, func(ctx context.Context) ([]string, error) {
		l, err := cs.CoreV1().Namespaces().List(ctx, sel)
		if err != nil {
			return nil, err
		}
		var left []string
		for _, ns := range l.Items {
			if ns.DeletionTimestamp == nil {
				_ = cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
			}
			left = append(left, ns.Name)
		}
		return left, nil
	})
}

// waitGone polls list until it finds nothing, for up to runCleanupWait, and
// names what is left after that.
func waitGone(what string, sel metav1.ListOptions, list func(context.Context) ([]string, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), runCleanupWait)
	defer cancel()
	var left []string
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var err error
		left, err = list(ctx)
		return err == nil && len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the run's %s (%s) still there after %s: %s", what, sel.LabelSelector, runCleanupWait, strings.Join(left, ", "))
	}
	return nil
}

// probeRunLabel is the cluster.LabelRun value of a readiness probe's
// namespace: the run's ID once it has one, so that Down waits for the
// probe's pod on the run's probe node to end while kwok still runs.
func (e *Env) probeRunLabel() string {
	if e.RunID != "" {
		return e.RunID
	}
	return "probe"
}
