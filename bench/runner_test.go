package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// A repeat of a scenario creates its namespaces again right after the run
// before deleted them; it must wait for the old ones to go rather than take
// a terminating namespace (where every create is refused) as made.
func TestCreateNamespaceWaitsForATerminatingOneToGo(t *testing.T) {
	now := metav1.Now()
	cs := fake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench-demo", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-demo", Name: "default"}},
	)
	gets := 0
	cs.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		// The namespace controller finishes on the third look.
		if gets++; gets == 3 {
			return false, nil, cs.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("namespaces"), "", "bench-demo")
		}
		return false, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := createNamespace(ctx, cs, "bench-demo"); err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "bench-demo", metav1.GetOptions{})
	if err != nil || ns.DeletionTimestamp != nil || gets < 3 {
		t.Fatalf("after %d looks: namespace %v, %v", gets, ns, err)
	}
}

// A gang is removed one pod at a time through many clients, or, where the
// API server deletes collections with as many workers, by one collection
// delete; either way no pod is left.
func TestRemoveGangDeletesEachPodOrTheCollection(t *testing.T) {
	for _, collection := range []bool{false, true} {
		cs := fake.NewClientset()
		pods := corev1.SchemeGroupVersion.WithResource("pods")
		cs.PrependReactor("delete-collection", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			// The tracker, not the clientset: a reactor runs under its lock.
			sel := a.(k8stesting.DeleteCollectionAction).GetListRestrictions().Labels
			l, err := cs.Tracker().List(pods, corev1.SchemeGroupVersion.WithKind("Pod"), a.GetNamespace())
			if err != nil {
				return true, nil, err
			}
			for _, p := range l.(*corev1.PodList).Items {
				if sel.Matches(labels.Set(p.Labels)) {
					err = errors.Join(err, cs.Tracker().Delete(pods, p.Namespace, p.Name))
				}
			}
			return true, nil, err
		})
		ctx := context.Background()
		g := &gang.Gang{Namespace: "bench", Name: "g", MinCount: 5, Members: 5, Requests: gang.GPUs(8)}
		if err := g.Create(ctx, cs); err != nil {
			t.Fatal(err)
		}
		cs.ClearActions()
		if err := (Target{Client: cs, CollectionDelete: collection}).removeGang(ctx, g); err != nil {
			t.Fatal(err)
		}
		byName, whole := 0, 0
		for _, a := range cs.Actions() {
			if a.GetResource() == pods {
				byName += map[bool]int{true: 1}[a.GetVerb() == "delete"]
				whole += map[bool]int{true: 1}[a.GetVerb() == "delete-collection"]
			}
		}
		left, err := g.Pods(ctx, cs)
		want := map[bool][2]int{false: {5, 0}, true: {0, 1}}[collection]
		if err != nil || len(left) > 0 || [2]int{byName, whole} != want {
			t.Errorf("collection delete %v: %d pods deleted by name, %d collection deletes (want %v); %d left, %v", collection, byName, whole, want, len(left), err)
		}
	}
}
