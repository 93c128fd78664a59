// Package ceiling is a binder, not a scheduler: it binds every pending pod
// to the next node round-robin, with no filtering or scoring, as fast as the
// API server takes binds. Its throughput is the machine's ceiling; a
// scheduler's throughput over it says how close to that limit the scheduler
// runs.
//
// The one rule it keeps is the gang's: a member of a gang-policy PodGroup
// waits until minCount members are pending, then they are bound together.
// No all-or-nothing scheduler can bind a gang's first member sooner, and a
// binder that bound members while the rest were still being created would
// have a gang latency (from the last create to the last bind) that is only
// how far it lagged behind the creates, a small and noisy residue, where the
// scheduler's is the whole placement.
package ceiling

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
)

// Workers is how many binds are in flight at once.
const Workers = 32

// Binder binds pending pods of one schedulerName.
type Binder struct {
	cs     kubernetes.Interface
	nodes  []string
	next   atomic.Uint64
	queue  chan *corev1.Pod
	stop   chan struct{}
	wg     sync.WaitGroup
	Errors atomic.Int64

	groups schedulinglisters.PodGroupLister
	mu     sync.Mutex
	held   map[string][]*corev1.Pod // gang PodGroup (namespace/name) -> members waiting for minCount
	open   map[string]bool          // gangs released: later members bind at once
}

// Start binds, until Stop, every pod that names schedulerName and has no
// node, over every node of the cluster.
func Start(ctx context.Context, cs kubernetes.Interface, schedulerName string) (*Binder, error) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	b := &Binder{cs: cs, queue: make(chan *corev1.Pod, 4096), stop: make(chan struct{}),
		held: map[string][]*corev1.Pod{}, open: map[string]bool{}}
	for _, n := range nodes.Items {
		if len(n.Spec.Taints) == 0 {
			b.nodes = append(b.nodes, n.Name)
		}
	}
	if len(b.nodes) == 0 {
		return nil, fmt.Errorf("ceiling binder: no untainted node to bind to")
	}
	sel := fields.AndSelectors(fields.OneTermEqualSelector("spec.nodeName", ""),
		fields.OneTermEqualSelector("spec.schedulerName", schedulerName)).String()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = sel }))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			for _, p := range b.admit(ctx, o.(*corev1.Pod)) {
				select {
				case b.queue <- p:
				case <-b.stop:
					return
				}
			}
		},
	}); err != nil {
		return nil, err
	}
	// A PodGroup's own informer factory: the pods' field selector does not
	// apply to PodGroups.
	groupFactory := informers.NewSharedInformerFactory(cs, 0)
	groupInf := groupFactory.Scheduling().V1beta1().PodGroups()
	b.groups = groupInf.Lister()
	// A PodGroup made again under the same name is a new gang; its members
	// are held again. (Handlers of one informer run one at a time, but the
	// pods' and the groups' are two, so the maps have their own lock.)
	if _, err := groupInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(o any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(o); err == nil {
				b.forget(key)
			}
		},
	}); err != nil {
		return nil, err
	}
	groupFactory.Start(b.stop)
	if !cache.WaitForCacheSync(ctx.Done(), groupInf.Informer().HasSynced) {
		close(b.stop)
		return nil, fmt.Errorf("ceiling binder: PodGroup watch did not sync: %w", ctx.Err())
	}
	for i := 0; i < Workers; i++ {
		b.wg.Add(1)
		go b.work()
	}
	factory.Start(b.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Stop()
		return nil, fmt.Errorf("ceiling binder: pod watch did not sync: %w", ctx.Err())
	}
	return b, nil
}

// admit returns the pods to bind now: p alone, unless p is a member of a
// gang whose minCount members are not all pending yet; the member that
// completes them releases them all.
func (b *Binder) admit(ctx context.Context, p *corev1.Pod) []*corev1.Pod {
	min := b.minCount(ctx, p)
	if min <= 1 {
		return []*corev1.Pod{p}
	}
	key := p.Namespace + "/" + *p.Spec.SchedulingGroup.PodGroupName
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open[key] {
		return []*corev1.Pod{p}
	}
	held := append(b.held[key], p)
	if len(held) < min {
		b.held[key] = held
		return nil
	}
	delete(b.held, key)
	b.open[key] = true
	return held
}

// minCount is the gang minCount of p's PodGroup; 0 for a pod in no group,
// in a group that does not exist, or in one of the basic policy.
func (b *Binder) minCount(ctx context.Context, p *corev1.Pod) int {
	if p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil {
		return 0
	}
	name := *p.Spec.SchedulingGroup.PodGroupName
	pg, err := b.groups.PodGroups(p.Namespace).Get(name)
	if err != nil {
		// Made just before its pods, the group may not have reached the
		// watch yet.
		if pg, err = b.cs.SchedulingV1beta1().PodGroups(p.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return 0
		}
	}
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinCount)
	}
	return 0
}

// forget drops what the binder knows of a PodGroup that was deleted.
func (b *Binder) forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.held, key)
	delete(b.open, key)
}

func (b *Binder) work() {
	defer b.wg.Done()
	for {
		select {
		case <-b.stop:
			return
		case p := <-b.queue:
			node := b.nodes[b.next.Add(1)%uint64(len(b.nodes))]
			binding := &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID},
				Target:     corev1.ObjectReference{Kind: "Node", Name: node},
			}
			if err := b.cs.CoreV1().Pods(p.Namespace).Bind(context.Background(), binding, metav1.CreateOptions{}); err != nil {
				b.Errors.Add(1)
			}
		}
	}
}

// Stop ends binding.
func (b *Binder) Stop() {
	close(b.stop)
	b.wg.Wait()
}
