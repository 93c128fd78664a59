package monitor

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
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
	observePod := func(obj any, deleted bool) {
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
	onPod := func(obj any) { observePod(obj, false) }
	onGroup := func(obj any) {
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
	handlers := []struct {
		inf cache.SharedIndexInformer
		fn  func(any)
	}{{pods, onPod}}
	synced := []cache.InformerSynced{pods.HasSynced}
	// On a cluster that does not serve PodGroups there are no gangs to
	// check, and an informer on them would never sync.
	if served(cs) {
		handlers = append(handlers, struct {
			inf cache.SharedIndexInformer
			fn  func(any)
		}{groups, onGroup})
		synced = append(synced, groups.HasSynced)
	}
	for _, h := range handlers {
		fn := h.fn
		handler := cache.ResourceEventHandlerFuncs{
			AddFunc:    fn,
			UpdateFunc: func(_, o any) { fn(o) },
		}
		if h.inf == pods {
			handler.DeleteFunc = func(o any) { observePod(o, true) }
		}
		if _, err := h.inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
	}
	factory.Start(m.stop)
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		close(m.stop)
		return nil, fmt.Errorf("invariant monitor: informers did not sync: %w", ctx.Err())
	}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-m.stop:
				return
			case now := <-tick.C:
				m.Evaluate(now)
			}
		}
	}()
	return m, nil
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
