package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
)

// preflightCluster is a fake v1.37.2 cluster with one Ready node and the
// default namespace's service account. withAPI says whether it serves the
// PodGroup API and keeps spec.schedulingGroup; kwok whether something makes
// new fake nodes Ready.
func preflightCluster(t *testing.T, withAPI, kwok bool) *fake.Clientset {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real-node"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: metav1.NamespaceDefault}}
	cs := fakeapi.New(node, sa)
	d := cs.Discovery().(*fakediscovery.FakeDiscovery)
	d.FakedServerVersion = &version.Info{GitVersion: "v1.37.2"}
	if withAPI {
		d.Resources = []*metav1.APIResourceList{{GroupVersion: "scheduling.k8s.io/v1beta1",
			APIResources: []metav1.APIResource{{Name: "workloads"}, {Name: "podgroups"}, {Name: "podgroups/status"}}}}
	} else {
		// The API server drops the field of a gate it does not have on.
		cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			a.(k8stesting.CreateAction).GetObject().(*corev1.Pod).Spec.SchedulingGroup = nil
			return false, nil, nil
		})
	}
	if kwok {
		cs.PrependReactor("create", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
			n := a.(k8stesting.CreateAction).GetObject().(*corev1.Node)
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
			return false, nil, nil
		})
	}
	return cs
}

// expectOnly checks that the preflight left the cluster as it found it:
// the one real node, and no pod (the schedulingGroup check is a dry run).
func expectOnly(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	ctx := context.Background()
	nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	pods, _ := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if len(nodes.Items) != 1 || nodes.Items[0].Name != "real-node" || len(pods.Items) != 0 {
		t.Fatalf("preflight left nodes %v and pods %v", nodes.Items, pods.Items)
	}
}

func TestPreflightOnAGoodClusterFindsNoProblem(t *testing.T) {
	cs := preflightCluster(t, true, false)
	p, err := Run(context.Background(), cs, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.ServerVersion != "v1.37.2" || !p.SchedulingGroupKept || p.ReadyNodes != 1 || !p.FakeNodes || p.NoSlices != "" || p.Err() != nil {
		t.Fatalf("preflight = %+v", p)
	}
	if !strings.Contains(p.String(), "serves [workloads,podgroups,podgroups/status]") {
		t.Errorf("String() = %q", p.String())
	}
	expectOnly(t, cs)
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	var back Report
	data, _ := os.ReadFile(filepath.Join(dir, "preflight.json"))
	if err := json.Unmarshal(data, &back); err != nil || back.ServerVersion != "v1.37.2" {
		t.Fatalf("preflight.json = %s, %v", data, err)
	}
}

// A cluster without the API is refused with what to turn on, and where.
func TestPreflightOnAClusterWithoutTheAPISaysWhatToTurnOn(t *testing.T) {
	cs := preflightCluster(t, false, false)
	p, err := Run(context.Background(), cs, true)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Err()
	for _, want := range []string{
		"preflight: the cluster (v1.37.2) does not serve workloads and podgroups in scheduling.k8s.io/v1beta1",
		"start kube-apiserver with --runtime-config=scheduling.k8s.io/v1beta1=true --feature-gates=GenericWorkload=true",
		"the same gate on kube-controller-manager and the scheduler",
		"the API server drops pod spec.schedulingGroup (a dry-run create lost it); turn GenericWorkload on in kube-apiserver",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to say %q", err, want)
		}
	}
	expectOnly(t, cs)
}

// Without kwok, the probe node never turns Ready: specs that need a slice
// are skipped with the reason, and the probe node is removed. The wait
// is 1 s here (20 s in a run).
func TestPreflightWithoutKwokSkipsSlicesAndRemovesItsProbeNode(t *testing.T) {
	defer func(w time.Duration) { fakeNodeWait = w }(fakeNodeWait)
	fakeNodeWait = time.Second
	cs := preflightCluster(t, true, false)
	p, err := Run(context.Background(), cs, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.FakeNodes || !strings.Contains(p.NoSlices, "install kwok in the cluster") || p.Err() != nil {
		t.Fatalf("preflight = %+v", p)
	}
	expectOnly(t, cs)
}

func TestPreflightFindsKwokAndRemovesItsProbeNode(t *testing.T) {
	cs := preflightCluster(t, true, true)
	p, err := Run(context.Background(), cs, false)
	if err != nil {
		t.Fatal(err)
	}
	if !p.FakeNodes || p.NoSlices != "" {
		t.Fatalf("preflight = %+v", p)
	}
	expectOnly(t, cs)
}

func TestPreflightFailsWhenItCannotAsk(t *testing.T) {
	cs := preflightCluster(t, true, false)
	cs.PrependReactor("get", "version", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	})
	if _, err := Run(context.Background(), cs, true); err == nil ||
		!strings.Contains(err.Error(), "preflight: cannot reach the API server: dial tcp") {
		t.Fatalf("err = %v", err)
	}
}
