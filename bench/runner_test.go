package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/results"
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
		cs := fakeapi.New()
		pods := corev1.SchemeGroupVersion.WithResource("pods")
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

// With a binder beside the scheduler, every workload has a twin whose pods
// name the binder, and the two take turns: at each size of a round the
// twin's gang right after the original's, a concurrent twin right after its
// original; so that a ratio of the two is of one machine's moment.
func TestBesideTwinsTakeTurnsWithTheScheduler(t *testing.T) {
	cs := fakeapi.New()
	s := &results.Scenario{Name: "demo", Workloads: []results.Workload{
		{Name: "seq", Policy: results.PolicyGang, Mode: results.ModeSequential, Sizes: []int{1, 2}, Gangs: []results.GangCount{{Count: 2}}, Requests: gang.GPUs(8)},
		{Name: "conc", Policy: results.PolicyGang, Mode: results.ModeConcurrent, Sizes: []int{2}, Gangs: []results.GangCount{{Count: 2}}, Requests: gang.GPUs(8)},
	}}
	beside := &results.Beside{Name: "ceiling", SchedulerName: "gangconf-ceiling"}
	var mu sync.Mutex
	var order []string
	schedulers := map[string]string{}
	cs.PrependReactor("create", "podgroups", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		pg := a.(k8stesting.CreateAction).GetObject().(*schedulingv1beta1.PodGroup)
		order = append(order, strings.TrimPrefix(pg.Namespace, "bench-demo-")+"/"+pg.Name)
		return false, nil, nil
	})
	// Every pod is bound as it is created, by whichever binder it names.
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if prev, ok := schedulers[p.Namespace]; ok && prev != p.Spec.SchedulerName {
			t.Errorf("namespace %s has pods of %s and %s", p.Namespace, prev, p.Spec.SchedulerName)
		}
		schedulers[p.Namespace] = p.Spec.SchedulerName
		p.Spec.NodeName = "node"
		return false, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Target{Client: cs, SchedulerName: "sched", Beside: beside}, s, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"seq/s2-warmup", "seq-ceiling/s2-warmup",
		"seq/s1-g0", "seq-ceiling/s1-g0", "seq/s2-g0", "seq-ceiling/s2-g0",
		"seq/s1-g1", "seq-ceiling/s1-g1", "seq/s2-g1", "seq-ceiling/s2-g1",
		"conc/s2-g0", "conc/s2-g1", "conc-ceiling/s2-g0", "conc-ceiling/s2-g1",
	}
	if !slices.Equal(order, want) {
		t.Errorf("gangs ran in the order\n%v\nwant\n%v", order, want)
	}
	wantSched := map[string]string{"bench-demo-seq": "sched", "bench-demo-seq-ceiling": "gangconf-ceiling", "bench-demo-conc": "sched", "bench-demo-conc-ceiling": "gangconf-ceiling"}
	if !maps.Equal(schedulers, wantSched) {
		t.Errorf("pods named schedulers %v, want %v", schedulers, wantSched)
	}
	var workloads []string
	for _, sr := range res.Sizes {
		workloads = append(workloads, fmt.Sprintf("%s/%d:%d", sr.Workload, sr.Size, len(sr.Gangs)))
	}
	if got, want := fmt.Sprint(workloads), "[seq/1:2 seq/2:2 seq@ceiling/1:2 seq@ceiling/2:2 conc/2:2 conc@ceiling/2:2]"; got != want || res.Beside != beside {
		t.Errorf("result sizes %s (beside %v), want %s (beside %v)", got, res.Beside, want, beside)
	}
}
