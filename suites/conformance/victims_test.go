package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// halfNodeGang is a gang of members 4-GPU pods (all of them its quorum), one
// a node, at a priority, whose whole group goes if any member is preempted.
// Its members linger while terminating (Hold) until the spec releases them.
func halfNodeGang(s *framework.Spec, sl *cluster.Slice, name, priority string, members int) *gang.Gang {
	g := s.GPUGang(name, sl, int32(members), members, 4)
	apart(g)
	g.PriorityClassName, g.DisruptionAll, g.Hold = priority, true, true
	return g
}

// firstNomination returns the first nominatedNodeName the recorder saw on
// the pod while it had no node, or "".
func firstNomination(rec *framework.PodRecorder, pod string) string {
	var nnn string
	rec.Ever(pod, func(p *corev1.Pod) bool {
		if p.Spec.NodeName == "" && p.Status.NominatedNodeName != "" {
			nnn = p.Status.NominatedNodeName
			return true
		}
		return false
	})
	return nnn
}

// Semantics items 18 and 20: which victims a gang takes, and where it goes.
var _ = ginkgo.Describe("Choice of victims", ginkgo.Label("profile:extended", "area:preemption"), func() {
	ginkgo.Context("two lower-priority groups on the same four nodes, where either group's room would do", ginkgo.Label("item:20"), func() {
		// Four 8-GPU nodes each hold one 4-GPU member of a low-priority
		// gang and one of a medium-priority gang, both disruptionMode all.
		// A high-priority gang of four 4-GPU members, one a node, needs the
		// room of one of them. With every node alike, the only choice left
		// is which group goes.
		var (
			s                 *framework.Spec
			rec               *framework.PodRecorder
			low, medium, high *gang.Gang
		)
		ginkgo.BeforeEach(func(ctx context.Context) {
			s = f.NewSpec(ctx)
			rec = s.RecordPods(ctx)
			sl := s.Slice(ctx, "gpu-8x", 4, 4)
			low = halfNodeGang(s, sl, "low", lowPriority, 4)
			f.Create(ctx, low)
			f.ExpectBound(ctx, low, 4, "the low-priority gang takes half of every node")
			medium = halfNodeGang(s, sl, "medium", mediumPriority, 4)
			f.Create(ctx, medium)
			f.ExpectBound(ctx, medium, 4, "the medium-priority gang takes the other half")
			high = halfNodeGang(s, sl, "high", highPriority, 4)
			f.Create(ctx, high)
		})

		ginkgo.It("the lowest-priority group is the one preempted; the other keeps every member (watched for 5s)", func(ctx context.Context) {
			expectDisrupted(ctx, rec, low.PodNames(), 4, "the low-priority group is evicted whole")
			gomega.Expect(gang.Release(ctx, f.Client, s.Namespace)).To(gomega.Succeed())
			f.ExpectBound(ctx, high, 4, "the high-priority gang is bound in the low-priority group's room")
			expectUndisturbed(ctx, rec, medium.PodNames(), "no member of the medium-priority group is preempted")
		})

		ginkgo.It("each preemptor is bound on the node it was nominated to", ginkgo.Label("item:18"), func(ctx context.Context) {
			// The victims linger, so each member's nomination is the
			// preemption's, made while the nodes were still full.
			nominated := map[string]string{}
			gomega.Eventually(func() []string {
				var missing []string
				for _, p := range high.PodNames() {
					if nominated[p] = firstNomination(rec, p); nominated[p] == "" {
						missing = append(missing, p)
					}
				}
				return missing
			}).WithContext(ctx).WithTimeout(framework.Patience).Should(gomega.BeEmpty(), "every preemptor is nominated to a node while its victims terminate")
			gomega.Expect(gang.Release(ctx, f.Client, s.Namespace)).To(gomega.Succeed())
			f.ExpectBound(ctx, high, 4, "the high-priority gang is bound once its victims are gone")
			expectOnNominated(ctx, high, nominated)
		})
	})
})

// expectOnNominated checks that each member of the gang is bound on the
// node in nominated.
func expectOnNominated(ctx context.Context, g *gang.Gang, nominated map[string]string) {
	ginkgo.GinkgoHelper()
	pods, err := g.Pods(ctx, f.Client)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	got := map[string]string{}
	for _, p := range pods {
		got[p.Name] = p.Spec.NodeName
	}
	gomega.Expect(got).To(gomega.Equal(nominated), "each preemptor is bound on the node it was nominated to (pod: node)")
}
