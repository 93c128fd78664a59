package monitor

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Monitor feeds an Invariant from informers on every pod and PodGroup of the
// cluster, and evaluates it every second.
type Monitor struct {
	*Invariant
	stop chan struct{}
	done chan struct{}
}

// Start begins watching. The monitor runs until Stop.
func Start(ctx context.Context, cs kubernetes.Interface, quiet time.Duration) (*Monitor, error) {
	m := &Monitor{Invariant: NewInvariant(quiet), stop: make(chan struct{}), done: make(chan struct{})}
	factory := informers.NewSharedInformerFactory(cs, 0)
	pods := factory.Core().V1().Pods().Informer()
	groups := factory.Scheduling().V1beta1().PodGroups().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { m.observePod(o, false) },
		UpdateFunc: func(_, o any) { m.observePod(o, false) },
		DeleteFunc: func(o any) { m.observePod(o, true) },
	}); err != nil {
		return nil, err
	}
	synced := []cache.InformerSynced{pods.HasSynced}
	// On a cluster that does not serve PodGroups there are no gangs to
	// check, and an informer on them would never sync.
	if served(cs) {
		if _, err := groups.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    m.observeGroup,
			UpdateFunc: func(_, o any) { m.observeGroup(o) },
		}); err != nil {
			return nil, err
		}
		synced = append(synced, groups.HasSynced)
	}
	factory.Start(m.stop)
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		close(m.stop)
		return nil, fmt.Errorf("invariant monitor: informers did not sync: %w", ctx.Err())
	}
	go func() {
		defer close(m.done)
		wait.Until(func() { m.Evaluate(time.Now()) }, time.Second, m.stop)
	}()
	return m, nil
}

// observePod records a bind or a deletion of a gang's member; deleted says
// the informer saw the pod go.
func (m *Monitor) observePod(obj any, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil {
		return
	}
	e := Event{At: time.Now(), Gang: GangKey{p.Namespace, *p.Spec.SchedulingGroup.PodGroupName}, Pod: p.Name, Node: p.Spec.NodeName,
		Deleted: deleted || p.DeletionTimestamp != nil}
	if e.Deleted || e.Node != "" {
		m.Observe(e)
	}
}

// observeGroup records a PodGroup's policy: its quorum, or that it has none.
func (m *Monitor) observeGroup(obj any) {
	pg, ok := obj.(*schedulingv1beta1.PodGroup)
	if !ok {
		return
	}
	e := Event{At: time.Now(), Gang: GangKey{pg.Namespace, pg.Name}}
	switch {
	case pg.Spec.SchedulingPolicy.Gang != nil:
		e.MinCount = pg.Spec.SchedulingPolicy.Gang.MinCount
	case pg.Spec.SchedulingPolicy.Basic != nil:
		e.Basic = true
	default:
		return
	}
	m.Observe(e)
}

// WaitQuiet blocks until no gang has had a bind for the quiet window (or
// the context ends), then returns every violation of the run.
func (m *Monitor) WaitQuiet(ctx context.Context) []Violation {
	for {
		last := m.LastBind()
		wait := m.Quiet - time.Since(last)
		if wait <= 0 {
			return m.Evaluate(time.Now())
		}
		select {
		case <-ctx.Done():
			return m.Evaluate(time.Now())
		case <-time.After(wait):
		}
	}
}

// Stop ends the watch.
func (m *Monitor) Stop() {
	close(m.stop)
	<-m.done
}

// served says whether the cluster serves PodGroups.
func served(cs kubernetes.Interface) bool {
	list, err := cs.Discovery().ServerResourcesForGroupVersion(schedulingv1beta1.SchemeGroupVersion.String())
	if err != nil {
		return false
	}
	for _, r := range list.APIResources {
		if r.Name == "podgroups" {
			return true
		}
	}
	return false
}
