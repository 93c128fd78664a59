package bench

import (
	"context"
	"errors"
	"maps"
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
		deletes := map[string]int{}
		for _, a := range cs.Actions() {
			if a.GetResource() == pods {
				deletes[a.GetVerb()]++
			}
		}
		want := map[string]int{"delete": 5}
		if collection {
			want = map[string]int{"delete-collection": 1}
		}
		delete(deletes, "list")
		left, err := g.Pods(ctx, cs)
		if err != nil || len(left) > 0 || !maps.Equal(deletes, want) {
			t.Errorf("collection delete %v: deletes %v, want %v; %d pods left, %v", collection, deletes, want, len(left), err)
		}
	}
}
