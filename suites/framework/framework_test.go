package framework

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/fakeapi"
)

func priorityClassNames(t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	l, err := cs.SchedulingV1().PriorityClasses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, pc := range l.Items {
		out = append(out, pc.Name)
	}
	return out
}

// A kubeconfig that may create the first class but not the second gets a
// message that says what it lacks, and the first class is removed again.
func TestPriorityClassesWithoutRightsSayWhatIsMissingAndLeaveNothing(t *testing.T) {
	pcs, err := fixtures.PriorityClasses()
	if err != nil || len(pcs) < 2 {
		t.Fatalf("fixtures: %d classes, %v", len(pcs), err)
	}
	cs := fakeapi.New()
	creates := 0
	cs.PrependReactor("create", "priorityclasses", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if creates++; creates < 2 {
			return false, nil, nil
		}
		name := a.(k8stesting.CreateAction).GetObject().(*schedulingv1.PriorityClass).Name
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, name,
			errors.New(`User "vendor" cannot create resource "priorityclasses" in API group "scheduling.k8s.io" at the cluster scope`))
	})
	undo, err := EnsurePriorityClasses(context.Background(), cs)
	if undo != nil || err == nil {
		t.Fatalf("EnsurePriorityClasses accepted a forbidden create (undo %t, err %v)", undo != nil, err)
	}
	for _, want := range []string{"the kubeconfig may not create PriorityClasses", `User "vendor" cannot create resource "priorityclasses"`,
		"give it rights to create scheduling.k8s.io/v1 priorityclasses"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to say %q", err, want)
		}
	}
	if left := priorityClassNames(t, cs); len(left) != 0 {
		t.Fatalf("classes left behind: %v", left)
	}
}

// Classes the cluster has already are used and never removed; the others
// are created and removed by the returned undo.
func TestPriorityClassesUndoRemovesOnlyWhatItCreated(t *testing.T) {
	pcs, err := fixtures.PriorityClasses()
	if err != nil {
		t.Fatal(err)
	}
	theirs := pcs[0].DeepCopy()
	theirs.Description = "made by the cluster's admin"
	cs := fakeapi.New(theirs)
	undo, err := EnsurePriorityClasses(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := priorityClassNames(t, cs); len(got) != len(pcs) {
		t.Fatalf("classes %v, want all %d of the fixtures", got, len(pcs))
	}
	if err := undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	left := priorityClassNames(t, cs)
	if len(left) != 1 || left[0] != theirs.Name {
		t.Fatalf("after undo: %v, want only the admin's %s", left, theirs.Name)
	}
}

// RemoveRun deletes the namespaces and nodes labelled with its run, and
// nothing else: not another run's, not the cluster's own.
func TestRemoveRunTouchesOnlyItsRun(t *testing.T) {
	ns := func(name, run string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if run != "" {
			n.Labels = map[string]string{LabelRun: run}
		}
		return n
	}
	node := func(name, run string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if run != "" {
			n.Labels = map[string]string{LabelRun: run}
		}
		return n
	}
	cs := fakeapi.New(ns("gc-a1", "a"), ns("gc-a2", "a"), ns("gc-b1", "b"), ns("kube-system", ""),
		node("a-s0-00000", "a"), node("a-s0-00001", "a"), node("b-s0-00000", "b"), node("worker-1", ""))
	if err := RemoveRun(context.Background(), cs, "a"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nss, _ := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	var got []string
	for _, n := range nss.Items {
		got = append(got, n.Name)
	}
	for _, n := range nodes.Items {
		got = append(got, n.Name)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "b-s0-00000,gc-b1,kube-system,worker-1" {
		t.Fatalf("left after RemoveRun(a): %v", got)
	}
	// A second call finds nothing to do.
	if err := RemoveRun(ctx, cs, "a"); err != nil {
		t.Fatal(err)
	}
}
