package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// probeTimeout bounds the wait for a scheduler without a readiness URL to
// bind its probe pod.
const probeTimeout = 2 * time.Minute

// waitProbeBound is readiness for a scheduler that offers no probe: it is
// ready once it has bound a plain pod that names its schedulerName. A
// scheduler that serves another name never binds it, and is reported so.
func (e *Env) waitProbeBound(ctx context.Context, proc *scheduler.Process) error {
	cs, err := e.Clientset()
	if err != nil {
		return err
	}
	return e.probeBound(ctx, cs, proc, probeTimeout)
}

// probeBound creates the probe pod and waits up to timeout until it is
// bound: by proc, or, with proc nil, by a scheduler the harness does not
// run. The probe's namespace goes either way.
func (e *Env) probeBound(ctx context.Context, cs kubernetes.Interface, proc *scheduler.Process, timeout time.Duration) error {
	// One namespace per probe: a restarted scheduler's probe must not wait
	// for the previous probe's namespace to finish terminating.
	e.probes++
	ns := fmt.Sprintf("gangconf-probe-%s-%d", e.ClusterName, e.probes)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: map[string]string{cluster.LabelRun: e.probeRunLabel()}}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("readiness probe: %w", err)
	}
	defer func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	}()
	pod, err := fixtures.Pod()
	if err != nil {
		return err
	}
	pod.Name, pod.Namespace = "probe", ns
	pod.Spec.SchedulerName = e.SchedulerName
	pod.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	if e.ProbeNode != nil {
		// On a cluster the harness did not make: the run's probe node, not
		// a real node nor a spec's slice.
		e.ProbeNode.Pin(pod)
		pod.Spec.NodeSelector[corev1.LabelHostname] = e.ProbeNode.NodeName(0)
	}
	if err := cluster.WaitServiceAccount(ctx, cs, ns); err != nil {
		return err
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("readiness probe: %w", err)
	}
	bound := func(ctx context.Context) bool {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "probe", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != ""
	}
	if proc == nil {
		if err := scheduler.Poll(ctx, timeout, nil, bound); err != nil {
			return e.errNotAnswered(err, ns, timeout)
		}
		return nil
	}
	err = proc.WaitUntil(ctx, timeout, fmt.Sprintf("binding a probe pod with schedulerName %q", e.SchedulerName), bound)
	if err == nil {
		return nil
	}
	select {
	case <-proc.Exited():
		// It died: its log says why, and the name is beside the point.
		return err
	default:
	}
	return fmt.Errorf("%w\n(the probe pod %s/probe was never bound: %s)", err, ns, e.probeHint())
}

// probeHint says what most likely keeps a running scheduler from binding
// the probe pod: it serves another schedulerName.
func (e *Env) probeHint() string {
	if e.SchedulerKind.Class != kinds.Command {
		return fmt.Sprintf("does the scheduler serve schedulerName %q? set SCHEDULER_NAME to the name it serves, or give SCHEDULER_READY_URL", e.SchedulerName)
	}
	if !strings.Contains(e.SchedulerCmd, ".SchedulerName") {
		return fmt.Sprintf("SCHEDULER_CMD never uses {{.SchedulerName}}, so the command probably serves a name of its own, not %q: "+
			"pass {{.SchedulerName}} to it, or set SCHEDULER_NAME to the name it serves", e.SchedulerName)
	}
	return fmt.Sprintf("the command probably ignores the {{.SchedulerName}} it is given (%q) and serves another name: "+
		"check the flag it reads the name from, or set SCHEDULER_NAME to the name it serves; SCHEDULER_READY_URL skips this probe", e.SchedulerName)
}
