// Package ceiling is a binder, not a scheduler: it binds every pending pod
// to the next node round-robin, with no filtering, scoring or gang logic, as
// fast as the API server takes binds. Its throughput is the machine's
// ceiling; a scheduler's throughput over it says how close to that limit the
// scheduler runs.
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
}

// Start binds, until Stop, every pod that names schedulerName and has no
// node, over every node of the cluster.
func Start(ctx context.Context, cs kubernetes.Interface, schedulerName string) (*Binder, error) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	b := &Binder{cs: cs, queue: make(chan *corev1.Pod, 4096), stop: make(chan struct{})}
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
			select {
			case b.queue <- o.(*corev1.Pod):
			case <-b.stop:
			}
		},
	}); err != nil {
		return nil, err
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
