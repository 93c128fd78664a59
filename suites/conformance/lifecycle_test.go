package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// protectionFinalizer keeps a PodGroup while members still run.
const protectionFinalizer = "scheduling.k8s.io/podgroup-protection"

// Semantics item 5.
var _ = ginkgo.Describe("Deletion protection", ginkgo.Label("profile:core", "area:lifecycle", "item:5"), func() {
	ginkgo.It("a new PodGroup carries the podgroup-protection finalizer", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		pg, err := f.Client.SchedulingV1beta1().PodGroups(s.Namespace).Create(ctx, newPodGroup(s), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Finalizers).To(gomega.ContainElement(protectionFinalizer))
	})

	ginkgo.Context("a deleted PodGroup whose members are bound", func() {
		var g *gang.Gang
		getGroup := func(ctx context.Context) (*schedulingv1beta1.PodGroup, error) { return g.GetPodGroup(ctx, f.Client) }
		ginkgo.BeforeEach(func(ctx context.Context) {
			s := f.NewSpec(ctx)
			g = s.GPUGang("protected", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 8)
			f.Create(ctx, g)
			f.ExpectBound(ctx, g, 2, "the gang is bound")
			gomega.Expect(f.Client.SchedulingV1beta1().PodGroups(g.Namespace).Delete(ctx, g.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		})

		ginkgo.It("stays, terminating, while its members run (watched for 5s)", func(ctx context.Context) {
			gomega.Consistently(ctx, getGroup).WithTimeout(framework.QuietWindow).
				Should(gomega.HaveField("DeletionTimestamp", gomega.Not(gomega.BeNil())), "the PodGroup is kept, marked for deletion")
		})

		ginkgo.It("goes once all its members have Succeeded", func(ctx context.Context) {
			gomega.Expect(g.Finish(ctx, f.Client)).To(gomega.Succeed())
			gomega.Eventually(ctx, func(ctx context.Context) error {
				_, err := getGroup(ctx)
				return err
			}).WithTimeout(framework.Patience).Should(gomega.Satisfy(apierrors.IsNotFound), "the PodGroup is removed once no member runs")
		})
	})
})
