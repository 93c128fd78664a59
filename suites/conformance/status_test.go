package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// reasonScheduled is the reason v1.37.2 sets with PodGroupInitiallyScheduled=True;
// the API package has no constant for it.
const reasonScheduled = "Scheduled"

// Semantics items 13 and 14.
var _ = ginkgo.Describe("PodGroup status", ginkgo.Label("profile:core", "area:status"), func() {
	var g *gang.Gang
	isScheduled := framework.HaveCondition(metav1.ConditionTrue, reasonScheduled)
	// scheduled binds a gang of two and returns its PodGroup's condition
	// once it says so.
	scheduled := func(ctx context.Context) *metav1.Condition {
		ginkgo.GinkgoHelper()
		s := f.NewSpec(ctx)
		g = s.GPUGang("done", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 8)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 2, "the gang is bound")
		return f.ExpectGroupCondition(ctx, g, schedulingv1beta1.PodGroupInitiallyScheduled, isScheduled, "the PodGroup says it was scheduled")
	}
	staysScheduled := func(ctx context.Context, why string) {
		ginkgo.GinkgoHelper()
		gomega.Consistently(ctx, func(ctx context.Context) (*metav1.Condition, error) {
			return g.Condition(ctx, f.Client, schedulingv1beta1.PodGroupInitiallyScheduled)
		}).WithTimeout(framework.QuietWindow).Should(isScheduled, why)
	}

	ginkgo.It("a scheduled gang reports PodGroupInitiallyScheduled=True, reason Scheduled, with observedGeneration", ginkgo.Label("item:14"), func(ctx context.Context) {
		c := scheduled(ctx)
		pg, err := f.Client.SchedulingV1beta1().PodGroups(g.Namespace).Get(ctx, g.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(c.ObservedGeneration).To(gomega.Equal(pg.Generation), "observedGeneration is the PodGroup's generation")
	})

	ginkgo.It("PodGroupInitiallyScheduled stays True after its members are gone (watched for 5s)", ginkgo.Label("item:14"), func(ctx context.Context) {
		scheduled(ctx)
		zero := int64(0)
		gomega.Expect(f.Client.CoreV1().Pods(g.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
			metav1.ListOptions{LabelSelector: g.Selector()})).To(gomega.Succeed())
		staysScheduled(ctx, "the condition never goes back to False")
	})

	ginkgo.It("PodGroupInitiallyScheduled stays True when a member added later does not fit (watched for 5s after it was tried)", ginkgo.Label("item:14"), func(ctx context.Context) {
		scheduled(ctx)
		// Added only once True is visible, so the scheduler's own copy of the
		// PodGroup has had time to show it too: the condition is about the
		// group's first placement, which a failing late member does not undo.
		g.Members = 3
		gomega.Expect(g.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		f.ExpectTried(ctx, g)
		staysScheduled(ctx, "the late member's failed attempt does not set the condition back to False")
	})

	ginkgo.Context("members whose priority differs from their PodGroup's", ginkgo.Label("item:13"), func() {
		ginkgo.BeforeEach(func(ctx context.Context) {
			s := f.NewSpec(ctx)
			g = s.GPUGang("mixed", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 8)
			g.PriorityClassName = "gangconf-high"
			_, err := g.CreatePodGroup(ctx, f.Client)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			// The pods name no class: priority 0 against the group's 10000.
			g.PriorityClassName = ""
			gomega.Expect(g.CreatePods(ctx, f.Client, 0, 2)).To(gomega.Succeed())
		})

		ginkgo.It("are rejected as a group: PodGroupInitiallyScheduled=False, reason SchedulerError (PodGroupError from v1.38), no member bound (watched for 5s)", func(ctx context.Context) {
			expectRejectedAsGroup(ctx, g, 0, "no member of an inconsistent group is bound")
		})

		ginkgo.It("each get a FailedScheduling warning event", func(ctx context.Context) {
			for i := 0; i < g.Members; i++ {
				f.ExpectEvent(ctx, g.Namespace, g.PodNames()[i], "FailedScheduling", corev1.EventTypeWarning)
			}
		})
	})
})

// expectRejectedAsGroup waits until the PodGroup reports its members'
// inconsistency (PodGroupInitiallyScheduled=False, with the reason of the
// cluster's version) and checks that no more than the bound members already
// there are bound.
func expectRejectedAsGroup(ctx context.Context, g *gang.Gang, bound int, why string) {
	ginkgo.GinkgoHelper()
	f.ExpectGroupCondition(ctx, g, schedulingv1beta1.PodGroupInitiallyScheduled,
		framework.HaveCondition(metav1.ConditionFalse, f.Contract.GroupErrorReason),
		"the PodGroup reports the inconsistency")
	f.ExpectStaysBound(ctx, g, bound, why)
}
