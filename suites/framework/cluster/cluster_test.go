package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	kwokconfig "sigs.k8s.io/kwok/pkg/apis/config/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/fixtures"
)

func ciSmall(t *testing.T) NodeSpec {
	t.Helper()
	p, err := fixtures.LoadProfile("ci-small")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ProfileNodes(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProfileNodeCarriesShapeAndPlace(t *testing.T) {
	s := ciSmall(t)
	n := s.Node(31)
	if n.Name != "gpu-8x-00031" {
		t.Errorf("name = %s", n.Name)
	}
	gpu := n.Status.Allocatable[fixtures.ResourceGPU]
	if gpu.Value() != 8 {
		t.Errorf("allocatable GPUs = %s", gpu.String())
	}
	want := map[string]string{
		fixtures.LabelRack: "rack-3", fixtures.LabelBlock: "block-1", fixtures.LabelZone: "zone-0",
		LabelNodeSet: "ci-small", "node.kubernetes.io/instance-type": "gpu-8x-h100",
		// the controller manager would write the beta ones into each node
		"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux",
		"kubernetes.io/arch": "amd64", "beta.kubernetes.io/arch": "amd64",
	}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
}

func TestCreateNodesAndWaitReady(t *testing.T) {
	cs := fake.NewClientset()
	s := ciSmall(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := CreateNodes(ctx, cs, s); err != nil {
		t.Fatal(err)
	}
	nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if len(nodes.Items) != 32 {
		t.Fatalf("%d nodes, want 32", len(nodes.Items))
	}
	// Creating again is harmless: existing nodes are kept.
	if err := CreateNodes(ctx, cs, s); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WaitNodesReady(ctx, cs, s.Selector(), 32) }()
	// kwok's job, played here: mark each node Ready.
	for _, n := range nodes.Items {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, &n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRegisteredNodesAreReadyAndWaitForTheirLeases(t *testing.T) {
	cs := fake.NewClientset()
	s := ciSmall(t)
	s.Registered = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := CreateNodes(ctx, cs, s); err != nil {
		t.Fatal(err)
	}
	// Ready from the create: kwok's node-initialize stage selects none.
	if err := WaitNodesReady(ctx, cs, s.Selector(), 32); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WaitNodesLeased(ctx, cs, s) }()
	// kwok's job, played here: a lease for each node, and one of another
	// node past the spec's, which does not count until the spec has 40.
	for i := 0; i <= 32; i++ {
		name := s.name(i)
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease}}
		if i < 32 {
			select {
			case err := <-done:
				t.Fatalf("the wait ended with %d of 32 leases: %v", i, err)
			default:
			}
		}
		if _, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, l, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.Set.Count = 40
	err := WaitNodesLeased(short, cs, s)
	if err == nil || !strings.Contains(err.Error(), "33 of 40 nodes with a lease") {
		t.Fatalf("err = %v", err)
	}
}

func TestCreateNodesStopsAtTheFirstError(t *testing.T) {
	cs := fake.NewClientset()
	var creates atomic.Int64
	cs.PrependReactor("create", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if creates.Add(1) > 10 {
			return true, nil, errors.New("etcdserver: no space")
		}
		return false, nil, nil
	})
	s := ciSmall(t)
	s.Set.Count = 5000
	err := CreateNodes(context.Background(), cs, s)
	if err == nil || !strings.Contains(err.Error(), "etcdserver: no space") || !strings.Contains(err.Error(), "create node gpu-8x-") {
		t.Fatalf("err = %v", err)
	}
	// At most one create per worker after the first failure.
	if n := creates.Load(); n > 10+2*nodeWorkers {
		t.Errorf("%d creates tried after the first error, want the rest abandoned", n)
	}
}

func TestWaitNodesReadyReportsHowManyWereReady(t *testing.T) {
	cs := fake.NewClientset()
	s := ciSmall(t)
	if err := CreateNodes(context.Background(), cs, s); err != nil {
		t.Fatal(err)
	}
	// No node ever turns Ready here; whether the deadline comes before or
	// after the watch synced, the error says how many were.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := WaitNodesReady(ctx, cs, s.Selector(), 32)
	if err == nil || !strings.Contains(err.Error(), "0 of 32 nodes Ready") {
		t.Fatalf("err = %v", err)
	}
}

func TestSlicePinsPodsToItsNodes(t *testing.T) {
	cs := fake.NewClientset()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Nodes in a fake clientset never turn Ready: NewSlice reports that.
	_, err := NewSlice(ctx, cs, "spec-a", "gpu-8x", 2, 2, nil)
	if err == nil || !strings.Contains(err.Error(), "slice spec-a") {
		t.Fatalf("err = %v", err)
	}
	nodes, _ := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if len(nodes.Items) != 2 || len(nodes.Items[0].Spec.Taints) != 1 {
		t.Fatalf("slice nodes = %+v", nodes.Items)
	}
	// A slice's racks are its own: no other slice's rack has their value.
	if got := nodes.Items[0].Labels[fixtures.LabelRack]; got != "spec-a-rack-0" {
		t.Errorf("rack of a slice's node = %q, want spec-a-rack-0", got)
	}
	sl := &Slice{ID: "spec-a"}
	var p corev1.Pod
	sl.Pin(&p)
	if p.Spec.NodeSelector[LabelSlice] != "spec-a" {
		t.Errorf("selector = %v", p.Spec.NodeSelector)
	}
	taint := nodes.Items[0].Spec.Taints[0]
	if !p.Spec.Tolerations[0].ToleratesTaint(klog.Background(), &taint, false) {
		t.Errorf("pod does not tolerate its slice's taint %v", taint)
	}
	if _, err := NewSlice(ctx, cs, "spec-b", "gpu-8x", 3, 2, nil); err == nil {
		t.Error("a slice that does not fill its racks was accepted")
	}
}

func TestKwokBadInput(t *testing.T) {
	dir := t.TempDir()
	_, err := UpKwok(context.Background(), KwokOptions{Name: "x", BinDir: dir, WorkDir: filepath.Join(dir, "w")})
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver not found (run `make build` first)") {
		t.Fatalf("missing binaries: %v", err)
	}
	_, err = UpKwok(context.Background(), KwokOptions{Name: "x", BinDir: dir + " copy", WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), "contains a space") {
		t.Fatalf("path with a space: %v", err)
	}
	for _, b := range Binaries {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(dir, "w")
	if err := os.MkdirAll(filepath.Join(work, "clusters", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = UpKwok(context.Background(), KwokOptions{Name: "x", BinDir: dir, WorkDir: work})
	if !errors.Is(err, ErrClusterExists) || !strings.Contains(err.Error(), "make cluster-down") {
		t.Fatalf("second cluster-up: %v", err)
	}
}

// The patches are YAML that kwokctl reads: decoded strictly into kwok's own
// configuration type, each lands on its component.
func TestComponentsPatchesAreKwokctlConfiguration(t *testing.T) {
	o := KwokOptions{ControllerManagerFeatureGates: "GenericWorkload=false", APIServerEnv: map[string]string{"GOMEMLIMIT": "6144MiB", "GOGC": "off"},
		APIServerArgs: map[string]string{"delete-collection-workers": "32"}}
	patches := func(o KwokOptions) []kwokconfig.ComponentPatches {
		t.Helper()
		doc := strings.Split(fmt.Sprintf(kwokConfig, o.componentsPatches()), "---\n")[0]
		var c kwokconfig.KwokctlConfiguration
		if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		return c.ComponentsPatches
	}
	p := patches(o)
	if len(p) != 2 || p[0].Name != "kube-controller-manager" || len(p[0].ExtraArgs) != 2 ||
		p[0].ExtraArgs[0] != (kwokconfig.ExtraArgs{Key: "controllers", Value: "*,-ttl,-endpointslice-controller"}) ||
		p[0].ExtraArgs[1] != (kwokconfig.ExtraArgs{Key: "feature-gates", Value: "GenericWorkload=false", Override: true}) ||
		p[1].Name != "kube-apiserver" || len(p[1].ExtraEnvs) != 2 || p[1].ExtraEnvs[0] != (kwokconfig.Env{Name: "GOGC", Value: "off"}) ||
		len(p[1].ExtraArgs) != 2 || p[1].ExtraArgs[0] != (kwokconfig.ExtraArgs{Key: "delete-collection-workers", Value: "32"}) ||
		p[1].ExtraArgs[1] != (kwokconfig.ExtraArgs{Key: "disable-admission-plugins", Value: "TaintNodesByCondition"}) {
		t.Fatalf("patches = %+v", p)
	}
	// Without options, every cluster's own flags alone.
	if p := patches(KwokOptions{}); len(p) != 2 || len(p[0].ExtraArgs) != 1 || len(p[1].ExtraArgs) != 1 || len(p[1].ExtraEnvs) != 0 {
		t.Fatalf("patches without options = %+v", p)
	}
}

// A restart may start the components again only once the stopped ones have
// exited: waitExited returns when they are gone and names one that is not.
func TestWaitExitedWaitsForTheStoppedProcesses(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	stopped, running := start(), start()
	_ = stopped.Process.Kill()
	_ = stopped.Wait() // reaped: gone from the process table, as a detached component would be
	ctx := context.Background()
	if err := waitExited(ctx, map[string]int{"etcd": stopped.Process.Pid}, time.Second); err != nil {
		t.Fatalf("an exited process: %v", err)
	}
	// Exited and not reaped (where nothing reaps the detached components):
	// a zombie, gone for this purpose.
	zombie := start()
	_ = zombie.Process.Kill()
	if err := waitExited(ctx, map[string]int{"kwok-controller": zombie.Process.Pid}, 5*time.Second); err != nil {
		t.Fatalf("a zombie: %v", err)
	}
	err := waitExited(ctx, map[string]int{"etcd": stopped.Process.Pid, "kube-apiserver": running.Process.Pid}, 300*time.Millisecond)
	want := fmt.Sprintf("kube-apiserver (PID %d)", running.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "etcd") {
		t.Fatalf("one still running: got %v, want an error naming only %s", err, want)
	}
}

// Ctrl-C while kwokctl creates the cluster stops the run: the error says so,
// and does not blame the cluster; a kwokctl that fails by itself is still a
// cluster that did not come up.
func TestKwokStoppedWhileComingUp(t *testing.T) {
	up := func(kwokctl string, stopAfter time.Duration) error {
		dir := t.TempDir()
		for _, b := range Binaries {
			script := "#!/bin/sh\nexit 1\n"
			if b == "kwokctl" {
				script = kwokctl
			}
			if err := os.WriteFile(filepath.Join(dir, b), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if stopAfter > 0 {
			time.AfterFunc(stopAfter, cancel)
		}
		_, err := UpKwok(ctx, KwokOptions{Name: "x", BinDir: dir, WorkDir: filepath.Join(dir, "w")})
		return err
	}
	// e2e-framework asks `kwokctl get clusters` first, with no context.
	err := up("#!/bin/sh\n[ \"$1\" = create ] && exec sleep 60\nexit 0\n", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "stopped while coming up") || !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped during create: %v", err)
	}
	err = up("#!/bin/sh\nexit 1\n", 0)
	if err == nil || !strings.Contains(err.Error(), "did not come up") {
		t.Fatalf("kwokctl failing: %v", err)
	}
}

// An upstream-mode cluster's kwokctl configuration holds its own Stages (so
// kwokctl's defaults, heartbeats and pod stages among them, are left out):
// a node's initialisation alone; its controller manager runs only the
// service account and namespace controllers, its API server skips
// upstream's admission plugins, and kwokctl makes no lease. A realistic
// cluster has none of that.
func TestUpstreamModeLeavesOutWhatUpstreamHasNot(t *testing.T) {
	stagesOf := func(o KwokOptions) []string {
		t.Helper()
		var names []string
		for _, doc := range strings.Split(o.config(), "---\n") {
			var meta struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%v in:\n%s", err, doc)
			}
			if meta.Kind == "Stage" {
				names = append(names, meta.Metadata.Name)
			}
		}
		return names
	}
	o := KwokOptions{Name: "x", BinDir: "/b", WorkDir: "/w"}
	if s := stagesOf(o); len(s) != 0 {
		t.Errorf("realistic mode has Stages %v, want kwokctl's defaults", s)
	}
	if slices.Contains(o.createArgs("/c"), "--node-lease-duration-seconds=0") {
		t.Error("realistic mode turns leases off")
	}
	o.Mode = ModeUpstream
	if s := stagesOf(o); !slices.Equal(s, []string{"node-initialize"}) {
		t.Errorf("upstream mode has Stages %v, want node-initialize alone", s)
	}
	if !slices.Contains(o.createArgs("/c"), "--node-lease-duration-seconds=0") {
		t.Errorf("upstream mode args = %v, want no lease", o.createArgs("/c"))
	}
	doc := strings.Split(o.config(), "---\n")[0]
	var c kwokconfig.KwokctlConfiguration
	if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
		t.Fatalf("%v in:\n%s", err, doc)
	}
	p := c.ComponentsPatches
	if len(p) != 2 || len(p[0].ExtraArgs) != 1 || p[0].ExtraArgs[0].Value != "serviceaccount-controller,namespace-controller" ||
		len(p[1].ExtraArgs) != 1 || p[1].ExtraArgs[0].Value != "ServiceAccount,TaintNodesByCondition,Priority,PodGroupProtection" {
		t.Errorf("upstream mode patches = %+v", p)
	}
	o.Mode = "fast"
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), `unknown cluster mode "fast"`) {
		t.Errorf("unknown mode: %v", err)
	}
}
