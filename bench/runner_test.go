package bench

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
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
