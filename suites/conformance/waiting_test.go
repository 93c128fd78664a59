package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// gateName is the scheduling gate the specs put on a member.
const gateName = "gangconf.io/gate"

// addNode adds one more node to the slice, like the others.
func addNode(ctx context.Context, sl *cluster.Slice) {
	ginkgo.GinkgoHelper()
	more := sl.Nodes
	more.Set.Count++
	// Nodes that exist are left as they are: this creates the new one.
	gomega.Expect(cluster.CreateNodes(ctx, f.Client, more)).To(gomega.Succeed())
	gomega.Expect(cluster.WaitNodesReady(ctx, f.Client, more.Selector(), more.Set.Count)).To(gomega.Succeed())
}

// Semantics items 6, 7 and 10: what a waiting gang does when it, or its
// PodGroup, changes.
var _ = ginkgo.Describe("Changes while a gang waits", ginkgo.Label("profile:core", "area:quorum"), func() {
	ginkgo.It("a scheduling gate on one member holds the whole gang (watched for 5s); once the gate is removed, the whole gang is bound", ginkgo.Label("item:7"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("gated", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
		p, err := g.Pod(2)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: gateName}}
		_, err = f.Client.CoreV1().Pods(g.Namespace).Create(ctx, p, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		f.ExpectStaysBound(ctx, g, 0, "no member is bound while one of the three is gated")
		_, err = f.Client.CoreV1().Pods(g.Namespace).Patch(ctx, p.Name, types.JSONPatchType,
			[]byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`), metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		f.ExpectBound(ctx, g, 3, "the whole gang is bound once the gate is gone")
	})

	ginkgo.It("a gang whose minCount was raised above its members before they were all present binds no member once they are (watched for 5s twice)", ginkgo.Label("item:7"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// Room for three; minCount 3, then 4, with two members present.
		g := s.GPUGang("raised", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
		gomega.Expect(g.SetMinCount(ctx, f.Client, 4)).To(gomega.Succeed())
		// The first window also gives the scheduler time to see the new
		// quorum before the third member arrives.
		f.ExpectStaysBound(ctx, g, 0, "two members of a gang of minCount 4 are not bound")
		gomega.Expect(g.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		f.ExpectStaysBound(ctx, g, 0, "three members of a gang of minCount 4 are not bound, though three was the quorum they were created for")
	})

	ginkgo.It("members of a gang waiting for quorum (watched for 5s) are bound once its PodGroup is deleted and created again with the basic policy", ginkgo.Label("item:6", "item:10"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("recreated", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
		f.ExpectStaysBound(ctx, g, 0, "two members of a gang of three are not bound")
		pgs := f.Client.SchedulingV1beta1().PodGroups(g.Namespace)
		gomega.Expect(pgs.Delete(ctx, g.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		// The protection finalizer keeps a PodGroup while its members are
		// not finished (item 5), Pending ones too: the spec removes it, as
		// an admin forcing the deletion would.
		_, err := pgs.Patch(ctx, g.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := pgs.Get(ctx, g.Name, metav1.GetOptions{})
			return err
		}).WithTimeout(framework.Patience).Should(gomega.Satisfy(apierrors.IsNotFound), "the PodGroup is gone")
		g.Basic = true
		_, err = g.CreatePodGroup(ctx, f.Client)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		f.ExpectBound(ctx, g, 2, "under the basic policy both members are bound")
	})
})

// quorumBound creates a gang of three 8-GPU members with minCount 2 on the
// slice, which has room for two, and returns once the two are bound and the
// third was tried.
func quorumBound(ctx context.Context, s *framework.Spec, sl *cluster.Slice) *gang.Gang {
	ginkgo.GinkgoHelper()
	g := s.GPUGang("surplus", sl, 2, 3, 8)
	f.Create(ctx, g)
	f.ExpectBound(ctx, g, 2, "the quorum of 2 is bound")
	f.ExpectTried(ctx, g)
	return g
}

// Semantics item 9: members beyond the quorum that did not fit are retried
// when room frees.
var _ = ginkgo.Describe("Surplus members", ginkgo.Label("profile:core", "area:all-or-nothing", "item:9"), func() {
	ginkgo.It("a member left Pending beyond the bound quorum is bound when a node is added", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		g := quorumBound(ctx, s, sl)
		addNode(ctx, sl)
		f.ExpectBound(ctx, g, 3, "the third member takes the new node")
	})

	ginkgo.It("a member left Pending beyond the bound quorum is bound when the pod in its way finishes", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		blocker := standalone(ctx, s, "blocker", sl, 2, 1, 8)
		g := quorumBound(ctx, s, sl)
		gomega.Expect(blocker.Finish(ctx, f.Client)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 3, "the third member takes the node the finished pod freed")
	})
})

// Semantics items 8 and 14: the PodGroup's condition follows the gang from
// Unschedulable to Scheduled.
var _ = ginkgo.Describe("PodGroup status over time", ginkgo.Label("profile:core", "area:status", "item:8", "item:14"), func() {
	ginkgo.It("a gang reported Unschedulable is reported Scheduled once room frees and it is bound", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		blocker := standalone(ctx, s, "blocker", sl, 1, 1, 8)
		g := s.GPUGang("later", sl, 2, 2, 8)
		f.Create(ctx, g)
		f.ExpectGroupCondition(ctx, g, schedulingv1beta1.PodGroupInitiallyScheduled,
			framework.HaveCondition(metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonUnschedulable),
			"the PodGroup says it could not be scheduled while one node is taken")
		gomega.Expect(blocker.Finish(ctx, f.Client)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 2, "the gang is bound once the node is free")
		f.ExpectGroupCondition(ctx, g, schedulingv1beta1.PodGroupInitiallyScheduled,
			framework.HaveCondition(metav1.ConditionTrue, reasonScheduled), "the PodGroup says it was scheduled")
	})
})
