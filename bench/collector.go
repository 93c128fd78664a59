package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// GangTimes is what the watch saw of one gang.
type GangTimes struct {
	Bound int
	// First and Last are when the first and the last member was seen bound,
	// on the harness's monotonic clock.
	First, Last time.Time
	// Gone counts members seen deleted; FirstMarked is when the first was
	// seen marked for eviction (condition DisruptionTarget) or gone, LastGone
	// when the last was seen gone.
	Gone                  int
	FirstMarked, LastGone time.Time
}

// Collector records, from a watch on pods, the moment each pod is first seen
// bound. It is the client-side clock every scheduler is measured with.
type Collector struct {
	mu     sync.Mutex
	seen   map[string]bool // namespace/name of pods seen bound
	gangs  map[string]*GangTimes
	total  int
	notify chan struct{}
	stop   chan struct{}
}

// NewCollector makes an empty collector (tests and benchmarks feed it).
func NewCollector() *Collector {
	return &Collector{seen: map[string]bool{}, gangs: map[string]*GangTimes{}, notify: make(chan struct{})}
}

// StartCollector watches the pods of a namespace.
func StartCollector(ctx context.Context, cs kubernetes.Interface, namespace string) (*Collector, error) {
	c := NewCollector()
	c.stop = make(chan struct{})
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { c.Observe(o.(*corev1.Pod), time.Now()) },
		UpdateFunc: func(_, o any) { c.Observe(o.(*corev1.Pod), time.Now()) },
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if p, ok := o.(*corev1.Pod); ok {
				c.ObserveGone(p, time.Now())
			}
		},
	}); err != nil {
		return nil, err
	}
	factory.Start(c.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		close(c.stop)
		return nil, fmt.Errorf("pod watch did not sync: %w", ctx.Err())
	}
	return c, nil
}

// Stop ends the watch.
func (c *Collector) Stop() {
	if c.stop != nil {
		close(c.stop)
	}
}

// Observe records a pod update seen at the given time.
func (c *Collector) Observe(p *corev1.Pod, at time.Time) {
	if p.Spec.NodeName == "" {
		return
	}
	if p.DeletionTimestamp != nil || disruptionTarget(p) {
		c.mark(p, at)
	}
	key := p.Namespace + "/" + p.Name
	name := p.Labels[gang.LabelGang]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.total++
	g := c.gang(name)
	if g.Bound == 0 {
		g.First = at
	}
	g.Bound++
	g.Last = at
	// Wake every waiter; each rechecks its own gang.
	close(c.notify)
	c.notify = make(chan struct{})
}

// disruptionTarget says whether the pod carries DisruptionTarget=True, as
// the scheduler marks a victim before deleting it.
func disruptionTarget(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// mark records the first member of the pod's gang seen marked for eviction.
func (c *Collector) mark(p *corev1.Pod, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gang(p.Labels[gang.LabelGang])
	if g.FirstMarked.IsZero() {
		g.FirstMarked = at
	}
}

// gang is the gang's record, made on first use; c.mu is held.
func (c *Collector) gang(name string) *GangTimes {
	g := c.gangs[name]
	if g == nil {
		g = &GangTimes{}
		c.gangs[name] = g
	}
	return g
}

// ObserveGone records a pod seen deleted at the given time.
func (c *Collector) ObserveGone(p *corev1.Pod, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gang(p.Labels[gang.LabelGang])
	g.Gone++
	g.LastGone = at
	if g.FirstMarked.IsZero() {
		g.FirstMarked = at
	}
	close(c.notify)
	c.notify = make(chan struct{})
}

// WaitGone blocks until n members of the gang are seen deleted.
func (c *Collector) WaitGone(ctx context.Context, gang string, n int) (GangTimes, error) {
	return c.wait(ctx, gang, n, "gone", func(g GangTimes) int { return g.Gone })
}

// Total is how many pods have been seen bound.
func (c *Collector) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// WaitGang blocks until n members of the gang are seen bound.
func (c *Collector) WaitGang(ctx context.Context, gang string, n int) (GangTimes, error) {
	return c.wait(ctx, gang, n, "bound", func(g GangTimes) int { return g.Bound })
}

// wait blocks until count of the gang's times reaches n, woken by each
// change the watch records.
func (c *Collector) wait(ctx context.Context, gang string, n int, what string, count func(GangTimes) int) (GangTimes, error) {
	for {
		c.mu.Lock()
		g, wake := c.gangs[gang], c.notify
		var got GangTimes
		if g != nil {
			got = *g
		}
		c.mu.Unlock()
		if count(got) >= n {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("gang %s: %d of %d members %s: %w", gang, count(got), n, what, ctx.Err())
		case <-wake:
		}
	}
}

// WaitTotal blocks until n pods in all are seen bound, calling sample once
// a second with the running total.
func (c *Collector) WaitTotal(ctx context.Context, n int, sample func(time.Time, int)) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		c.mu.Lock()
		total, wake := c.total, c.notify
		c.mu.Unlock()
		if total >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d pods bound: %w", total, n, ctx.Err())
		case now := <-tick.C:
			sample(now, total)
		case <-wake:
		}
	}
}

// Gang returns what was seen of a gang.
func (c *Collector) Gang(gang string) GangTimes {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.gangs[gang]; g != nil {
		return *g
	}
	return GangTimes{}
}
