package conformance

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// quietWindow is how long a "nothing happens" assertion holds.
const quietWindow = 5 * time.Second

var _ = ginkgo.Describe("PodGroup API", ginkgo.Label("profile:core", "area:api"), func() {
	ginkgo.It("serves Workload and PodGroup in scheduling.k8s.io/v1beta1", func(ctx context.Context) {
		list, err := f.Client.Discovery().ServerResourcesForGroupVersion(schedulingv1beta1.SchemeGroupVersion.String())
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the API server does not serve %s", schedulingv1beta1.SchemeGroupVersion)
		var names []string
		for _, r := range list.APIResources {
			names = append(names, r.Name)
		}
		gomega.Expect(names).To(gomega.ContainElements("workloads", "podgroups", "podgroups/status"))
	})
})

var _ = ginkgo.Describe("All-or-nothing", ginkgo.Label("profile:core", "area:all-or-nothing"), func() {
	ginkgo.It("a gang that fits binds all its pods", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		g := s.Gang("fits", sl)
		g.MinCount, g.Members, g.Requests = 3, 3, gang.GPUs(4)
		gomega.Expect(g.Create(ctx, f.Client)).To(gomega.Succeed())

		gomega.Eventually(ctx, func(ctx context.Context) (int, error) {
			return g.Bound(ctx, f.Client)
		}).WithTimeout(time.Minute).Should(gomega.Equal(3), "every member of a gang that fits is bound")
	})

	ginkgo.It("a gang that cannot fully fit binds no pod and reports Unschedulable (no pod bound for 5s)", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// Two 8-GPU nodes hold two of the three 8-GPU members: never all three.
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		g := s.Gang("too-big", sl)
		g.MinCount, g.Members, g.Requests = 3, 3, gang.GPUs(8)
		gomega.Expect(g.Create(ctx, f.Client)).To(gomega.Succeed())

		gomega.Eventually(ctx, func(ctx context.Context) (*metav1.Condition, error) {
			return g.Condition(ctx, f.Client, schedulingv1beta1.PodGroupInitiallyScheduled)
		}).WithTimeout(time.Minute).Should(gomega.And(
			gomega.Not(gomega.BeNil()),
			gomega.HaveField("Status", metav1.ConditionFalse),
			gomega.HaveField("Reason", schedulingv1beta1.PodGroupReasonUnschedulable),
		), "the PodGroup reports PodGroupInitiallyScheduled=False, reason Unschedulable")
		gomega.Consistently(ctx, func(ctx context.Context) (int, error) {
			return g.Bound(ctx, f.Client)
		}).WithTimeout(quietWindow).Should(gomega.BeZero(), "no member of a gang that cannot fully fit is bound")
	})
})
