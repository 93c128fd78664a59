package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/preflight"
)

// inOneRack makes a gang's PodGroup ask for all its members in one rack.
func inOneRack(g *gang.Gang) *gang.Gang {
	g.EditGroup = func(pg *schedulingv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
			Topology: []schedulingv1beta1.TopologyConstraint{{Key: fixtures.LabelRack}}}
	}
	return g
}

// crowd makes nodes less attractive to a scheduler that scores by free
// CPU and memory, as kube-scheduler's default scorers do, without taking
// any of their GPUs: 200 of their 224 CPUs go to a filler pod each.
func crowd(ctx context.Context, s *framework.Spec, sl *cluster.Slice, nodes ...int) {
	ginkgo.GinkgoHelper()
	for _, i := range nodes {
		s.Occupy(ctx, sl, sl.Nodes.Node(i).Name, "crowd-"+sl.Nodes.Node(i).Name, framework.CPUs(200))
	}
}

// oneRackFits makes a slice where two 8-GPU pods fit in one rack only,
// away from the emptiest node: rack-0 holds node 0, empty, and node 1, its
// GPUs taken; rack-1 nodes 2 and 3, free GPUs but crowded CPUs. A scheduler
// that ignores a rack constraint puts one pod on node 0.
func oneRackFits(ctx context.Context, s *framework.Spec) *cluster.Slice {
	ginkgo.GinkgoHelper()
	sl := s.Slice(ctx, "gpu-8x", 4, 2)
	s.Occupy(ctx, sl, sl.Nodes.Node(1).Name, "gpus-taken", gang.GPUs(8))
	crowd(ctx, s, sl, 2, 3)
	return sl
}

// Semantics item 21 (TopologyAwareWorkloadScheduling). Slices have racks of
// their own (the rack label's values repeat across slices, but a gang's
// pods select its slice's nodes only).
var _ = ginkgo.Describe("Topology-aware placement", ginkgo.Label("profile:alpha", "area:topology", "item:21"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GateTopology)

	ginkgo.It("places the whole gang in one rack, though the emptiest node is in another", func(ctx context.Context) {
		sl := oneRackFits(ctx, s)
		g := inOneRack(s.GPUGang("rack", sl, 2, 2, 8))
		f.Create(ctx, g)
		pl := f.ExpectOneDomain(ctx, g, fixtures.LabelRack)
		gomega.Expect(pl.Nodes).To(gomega.Equal([]string{sl.Nodes.Node(2).Name, sl.Nodes.Node(3).Name}), "both members are in rack-1")
	})

	ginkgo.It("never uses a node without the topology label, even the emptiest", func(ctx context.Context) {
		// One rack of three nodes; node 0 has no rack label and is the
		// only uncrowded one.
		sl := s.CustomSlice(ctx, "gpu-8x", 3, 3, func(i int, n *corev1.Node) {
			if i == 0 {
				delete(n.Labels, fixtures.LabelRack)
			}
		})
		crowd(ctx, s, sl, 1, 2)
		g := inOneRack(s.GPUGang("labelled", sl, 2, 2, 8))
		f.Create(ctx, g)
		pl := f.ExpectOneDomain(ctx, g, fixtures.LabelRack)
		gomega.Expect(pl.Nodes).NotTo(gomega.ContainElement(sl.Nodes.Node(0).Name), "the node without a rack label is not used")
	})

	ginkgo.It("never uses nodes without the topology label, even when together they would hold the gang: it stays Pending (watched for 5s after every member was tried)", func(ctx context.Context) {
		// Nodes 0 and 1 have no rack label and are empty; rack-1 (nodes 2
		// and 3) has its GPUs taken. Only the unlabelled pair has room.
		sl := s.CustomSlice(ctx, "gpu-8x", 4, 2, func(i int, n *corev1.Node) {
			if i < 2 {
				delete(n.Labels, fixtures.LabelRack)
			}
		})
		for _, i := range []int{2, 3} {
			s.Occupy(ctx, sl, sl.Nodes.Node(i).Name, "gpus-taken-"+sl.Nodes.Node(i).Name, gang.GPUs(8))
		}
		g := inOneRack(s.GPUGang("unlabelled", sl, 2, 2, 8))
		f.Create(ctx, g)
		f.ExpectTried(ctx, g)
		f.ExpectStaysBound(ctx, g, 0, "the gang is not placed on nodes that belong to no rack")
	})

	ginkgo.It("places a gang in the rack that holds all its members, not one that holds only its quorum", func(ctx context.Context) {
		// rack-0 (nodes 0-2, node 2's GPUs taken) has room for two 8-GPU
		// members, the minCount; rack-1 (nodes 3-5) for all three. rack-1
		// comes second and its CPUs are crowded, so neither the first rack
		// nor a scorer of free CPU alone picks it.
		sl := s.Slice(ctx, "gpu-8x", 6, 3)
		s.Occupy(ctx, sl, sl.Nodes.Node(2).Name, "gpus-taken", gang.GPUs(8))
		crowd(ctx, s, sl, 3, 4, 5)
		g := inOneRack(s.GPUGang("most", sl, 2, 3, 8))
		f.Create(ctx, g)
		pl := f.ExpectOneDomain(ctx, g, fixtures.LabelRack)
		gomega.Expect(pl.Nodes).To(gomega.ConsistOf(sl.Nodes.Node(3).Name, sl.Nodes.Node(4).Name, sl.Nodes.Node(5).Name),
			"all three members are in rack-1")
	})

	ginkgo.It("a member that arrives after its gang was placed goes only to the gang's rack: with that rack full it stays Pending, though another rack is empty (watched for 5s)", func(ctx context.Context) {
		// Two racks of one node each.
		sl := s.Slice(ctx, "gpu-8x", 2, 1)
		g := inOneRack(s.GPUGang("pinned", sl, 1, 1, 8))
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 1, "the first member is bound")
		gomega.Expect(g.CreatePods(ctx, f.Client, 1, 2)).To(gomega.Succeed())
		g.Members = 2
		f.ExpectTried(ctx, g)
		f.ExpectStaysBound(ctx, g, 1, "the late member waits for room in its gang's rack")
	})

	ginkgo.Context("a gang that fits the slice but no single rack", func() {
		var g *gang.Gang
		ginkgo.BeforeEach(func(ctx context.Context) {
			// Two racks of two 8-GPU nodes; three 8-GPU members.
			g = inOneRack(s.GPUGang("no-rack", s.Slice(ctx, "gpu-8x", 4, 2), 3, 3, 8))
			f.Create(ctx, g)
		})

		ginkgo.It("binds no member (watched for 5s after every member was tried)", func(ctx context.Context) {
			f.ExpectTried(ctx, g)
			f.ExpectStaysBound(ctx, g, 0, "no member is bound though the slice has room for all three")
		})

		ginkgo.It("reports PodGroupInitiallyScheduled=False, reason Unschedulable", func(ctx context.Context) {
			expectUnschedulable(ctx, g, "the PodGroup says it could not be scheduled")
		})
	})
})
