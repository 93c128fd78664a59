package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/preflight"
)

// neverPriority is gangconf-high's value with preemptionPolicy Never
// (fixtures/templates/priorityclasses.yaml).
const neverPriority = "gangconf-high-never"

// saysNever sets the PodGroup's preemptionPolicy to Never. In v1.37.2 a
// PodGroup of a Never class must: the API server defaults the field to
// PreemptLowerPriority before priority admission runs, which then forbids
// the default as disagreeing with the class.
func saysNever(g *gang.Gang) *gang.Gang {
	g.EditGroup = func(pg *schedulingv1beta1.PodGroup) {
		never := schedulingv1beta1.PreemptNever
		pg.Spec.PreemptionPolicy = &never
	}
	return g
}

// Semantics item 23 (PodGroupPreemptionPolicy).
var _ = ginkgo.Describe("PodGroup preemption policy", ginkgo.Label("profile:alpha", "area:preemption-policy", "item:23"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GatePreemptionPolicy)

	ginkgo.It("a gang whose PodGroup says Never evicts nothing and stays Pending, where the same gang at PreemptLowerPriority preempts (watched for 5s)", func(ctx context.Context) {
		rec := s.RecordPods(ctx)
		// Two like slices, each full of a low-priority gang; the same
		// high-priority gang comes to each, once as Never.
		never, preempting := s.Slice(ctx, "gpu-8x", 2, 2), s.Slice(ctx, "gpu-8x", 2, 2)
		lowNever := running(ctx, s, never, "low-a", lowPriority, 2, false)
		lowPreempting := running(ctx, s, preempting, "low-b", lowPriority, 2, false)
		waiting := saysNever(s.GPUGang("never", never, 2, 2, 8))
		waiting.PriorityClassName = neverPriority
		f.Create(ctx, waiting)
		pg, err := waiting.GetPodGroup(ctx, f.Client)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Spec.PreemptionPolicy).To(gomega.HaveValue(gomega.Equal(schedulingv1beta1.PreemptNever)),
			"the PodGroup itself carries preemptionPolicy Never, not only its members' priority class")
		preemptor := submit(ctx, s, preempting, "preemptor", highPriority, 2, false)
		f.ExpectBound(ctx, preemptor, 2, "the PreemptLowerPriority gang evicts the low gang and is bound")
		expectDisrupted(ctx, rec, lowPreempting.PodNames(), 2, "its victims are evicted")
		f.ExpectTried(ctx, waiting)
		expectUndisturbed(ctx, rec, lowNever.PodNames(), "the Never gang evicts nobody")
		f.ExpectStaysBound(ctx, waiting, 0, "the Never gang waits")
	})

	ginkgo.Context("members whose own policy differs from their PodGroup's", func() {
		var mixed *gang.Gang
		ginkgo.BeforeEach(func(ctx context.Context) {
			// The PodGroup's class says Never; its members' class has the
			// same value and preempts. Two free nodes: room for both.
			mixed = saysNever(s.GPUGang("mixed", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 8))
			mixed.PriorityClassName = neverPriority
			editPods(mixed, func(p *corev1.Pod) { p.Spec.PriorityClassName = highPriority })
			f.Create(ctx, mixed)
		})

		ginkgo.It("are rejected as a group: PodGroupInitiallyScheduled=False, reason SchedulerError (PodGroupError from v1.38); no member bound (watched for 5s)", func(ctx context.Context) {
			expectRejectedAsGroup(ctx, mixed, 0, "no member is bound")
		})
	})
})
