package framework

import (
	"context"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// PodRecorder keeps every version of every pod of a namespace that a watch
// delivered, so that a spec can ask what happened to a pod that is gone
// (a preemption victim is marked, then deleted).
type PodRecorder struct {
	mu       sync.Mutex
	versions map[string][]*corev1.Pod
	deleted  map[string]bool
}

// RecordPods starts recording the spec's namespace; it stops with the spec.
func (s *Spec) RecordPods(ctx context.Context) *PodRecorder {
	ginkgo.GinkgoHelper()
	r := &PodRecorder{versions: map[string][]*corev1.Pod{}, deleted: map[string]bool{}}
	factory := informers.NewSharedInformerFactoryWithOptions(s.f.Client, 0, informers.WithNamespace(s.Namespace))
	inf := factory.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.add(o) },
		UpdateFunc: func(_, o any) { r.add(o) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if p, ok := o.(*corev1.Pod); ok {
				r.mu.Lock()
				r.deleted[p.Name] = true
				r.mu.Unlock()
			}
		},
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	stop := make(chan struct{})
	factory.Start(stop)
	ginkgo.DeferCleanup(func() { close(stop) })
	gomega.Expect(cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)).To(gomega.BeTrue(), "pod watch synced")
	return r
}

func (r *PodRecorder) add(o any) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.versions[p.Name] = append(r.versions[p.Name], p)
}

// Ever says whether any recorded version of the pod satisfied match.
func (r *PodRecorder) Ever(name string, match func(*corev1.Pod) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.versions[name] {
		if match(p) {
			return true
		}
	}
	return false
}

// Disrupted lists the pods among names that were ever marked for
// termination: given a deletionTimestamp, or deleted.
func (r *PodRecorder) Disrupted(names ...string) []string {
	var out []string
	for _, n := range names {
		r.mu.Lock()
		gone := r.deleted[n]
		r.mu.Unlock()
		if gone || r.Ever(n, func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }) {
			out = append(out, n)
		}
	}
	return out
}

// Bound lists the pods among names that were ever bound to a node.
func (r *PodRecorder) Bound(names ...string) []string {
	var out []string
	for _, n := range names {
		if r.Ever(n, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }) {
			out = append(out, n)
		}
	}
	return out
}

// HasCondition matches a pod whose condition t has status True and the
// given reason.
func HasCondition(t corev1.PodConditionType, reason string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue && c.Reason == reason {
				return true
			}
		}
		return false
	}
}
