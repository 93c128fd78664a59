// Package preflight finds out, before a suite runs, what a cluster can do:
// whether it serves the PodGroup API and keeps pods' scheduling groups,
// which alpha gates its API server has on, and whether the suite can make
// fake nodes there. Its report says what to fix, and which specs are
// skipped and why.
package preflight

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Report is what the preflight found out about a cluster before anything
// ran on it.
type Report struct {
	ServerVersion       string   `json:"serverVersion"`
	ServedResources     []string `json:"servedResources"`
	SchedulingGroupKept bool     `json:"schedulingGroupKept"`
	ReadyNodes          int      `json:"readyNodes"`
	// FakeNodes is true when nodes the suite creates become Ready (kwok
	// manages them): then each spec gets its own slice of nodes.
	FakeNodes bool `json:"fakeNodes"`
	// NoSlices, when set, is why specs that need their own node slice are
	// skipped.
	NoSlices string `json:"noSlices,omitempty"`
	// AlphaGates says, for each alpha gate, "" when the API server has it
	// on, else why the alpha specs that need it are skipped.
	AlphaGates map[string]string `json:"alphaGates"`
	// MissingRights are the resources the kubeconfig may not act on as the
	// suite does, each with what to grant; they are Problems too.
	MissingRights []string `json:"missingRights,omitempty"`
	// Problems are what makes the cluster unfit for the suite, each with
	// what to do about it.
	Problems []string `json:"problems,omitempty"`
	// Plan is what will run and what will be skipped, and why (SetPlan).
	Plan []Step `json:"plan,omitempty"`
}

// fakeNodeWait is how long a probe node may take to turn Ready under kwok
// (a variable so that unit tests can wait less).
var fakeNodeWait = 20 * time.Second

// Run checks a cluster before a run and reports what it found, with
// Problems saying what to fix when the cluster lacks the PodGroup API or
// the kubeconfig lacks rights the suite needs.
// It fails only when it cannot ask. fakeNodes says whether the harness
// knows that kwok runs there.
func Run(ctx context.Context, cs kubernetes.Interface, fakeNodes bool) (*Report, error) {
	p := &Report{FakeNodes: fakeNodes}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("preflight: cannot reach the API server: %w", err)
	}
	p.ServerVersion = v.GitVersion
	gv := schedulingv1beta1.SchemeGroupVersion.String()
	list, err := cs.Discovery().ServerResourcesForGroupVersion(gv)
	if err == nil {
		for _, r := range list.APIResources {
			p.ServedResources = append(p.ServedResources, r.Name)
		}
	}
	if !p.served() {
		p.Problems = append(p.Problems, fmt.Sprintf("the cluster (%s) does not serve workloads and podgroups in %s; "+
			"start kube-apiserver with --runtime-config=%s=true --feature-gates=GenericWorkload=true, and the same gate on kube-controller-manager and the scheduler",
			p.ServerVersion, gv, gv))
	}
	if p.MissingRights, err = checkRights(ctx, cs); err != nil {
		return nil, err
	}
	if len(p.MissingRights) > 0 {
		// The probes below would only fail on what is missing.
		p.Problems = append(p.Problems, p.MissingRights...)
		return p, nil
	}
	if p.SchedulingGroupKept, err = schedulingGroupKept(ctx, cs); err != nil {
		return nil, err
	}
	if !p.SchedulingGroupKept {
		p.Problems = append(p.Problems, "the API server drops pod spec.schedulingGroup (a dry-run create lost it); turn GenericWorkload on in kube-apiserver")
	}
	if p.AlphaGates, err = ProbeAlpha(ctx, cs); err != nil {
		return nil, err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("preflight: list nodes: %w", err)
	}
	for i := range nodes.Items {
		if cluster.NodeReady(&nodes.Items[i]) {
			p.ReadyNodes++
		}
	}
	if !p.FakeNodes {
		p.FakeNodes = fakeNodesWork(ctx, cs)
	}
	if !p.FakeNodes {
		p.NoSlices = "the cluster does not run kwok, so the suite cannot make a private slice of nodes for this spec; install kwok in the cluster to run it"
	}
	return p, nil
}

// Write saves the preflight report as preflight.json.
func (p *Report) Write(dir string) error {
	return results.WriteJSON(filepath.Join(dir, "preflight.json"), p)
}

// Err is the preflight's problems as one error, nil when there are none.
func (p *Report) Err() error {
	if len(p.Problems) == 0 {
		return nil
	}
	return fmt.Errorf("preflight: %s", strings.Join(p.Problems, "; "))
}

// String is the preflight in one line for logs.
func (p *Report) String() string {
	var alpha []string
	for _, g := range AlphaGates {
		if p.AlphaGates[g] == "" {
			alpha = append(alpha, g)
		}
	}
	s := fmt.Sprintf("preflight: %s serves [%s]; spec.schedulingGroup kept: %t; alpha gates on: [%s]; %d Ready nodes; ",
		p.ServerVersion, strings.Join(p.ServedResources, ","), p.SchedulingGroupKept, strings.Join(alpha, ","), p.ReadyNodes)
	if p.FakeNodes {
		return s + "fake nodes available (per-spec node slices)"
	}
	return s + "no fake nodes: specs that need a node slice are skipped"
}

// schedulingGroupKept creates a pod with dry-run and checks that the API
// server kept spec.schedulingGroup (it drops it when the gate is off).
func schedulingGroupKept(ctx context.Context, cs kubernetes.Interface) (bool, error) {
	pod, err := fixtures.Pod()
	if err != nil {
		return false, err
	}
	name := "gangconf-preflight"
	pod.Name, pod.Namespace = name, metav1.NamespaceDefault
	if err := cluster.WaitServiceAccount(ctx, cs, pod.Namespace); err != nil {
		return false, fmt.Errorf("preflight: %w", err)
	}
	pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &name}
	got, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false, fmt.Errorf("preflight: dry-run create of a pod in %s: %w", pod.Namespace, err)
	}
	return got.Spec.SchedulingGroup != nil && got.Spec.SchedulingGroup.PodGroupName != nil, nil
}

// fakeNodesWork creates one tainted fake node and sees whether something
// (kwok) makes it Ready; the node is removed either way.
func fakeNodesWork(ctx context.Context, cs kubernetes.Interface) bool {
	wctx, cancel := context.WithTimeout(ctx, fakeNodeWait)
	defer cancel()
	sl, err := cluster.NewSlice(wctx, cs, "gangconf-preflight", "gpu-8x", 1, 1, nil)
	if sl == nil {
		// NewSlice failed after creating the node: remove it by name.
		_ = cs.CoreV1().Nodes().Delete(context.Background(), "gangconf-preflight-00000", metav1.DeleteOptions{})
		return false
	}
	_ = sl.Delete(context.Background(), cs)
	return err == nil
}
