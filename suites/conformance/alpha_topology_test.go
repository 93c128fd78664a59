package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"

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
// their own: rack label values no other slice has (cluster.NodeSpec's
// OwnTopology), and a gang's pods select their slice's nodes only.
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

	ginkgo.It("places a gang in the rack that holds all its members, not one that holds only its quorum", func(ctx context.Context) {
		// Eight one-node racks, three times over: seven nodes with room for
		// one 4-GPU member, the quorum; one for both. A scheduler that picks
		// among the feasible racks without preferring the one that holds
		// more members finds the full rack one time in eight, each time.
		// No node is crowded: kube-scheduler also scores placements by
		// allocated CPU and memory (most allocated first), which on its own
		// would favour a crowded rack whatever it holds.
		const racks, full = 8, 5
		gangs := map[*gang.Gang]*cluster.Slice{}
		for i := 0; i < 3; i++ {
			sl := s.CustomSlice(ctx, "gpu-8x", racks, 1, func(n int, node *corev1.Node) {
				if n != full {
					node.Status.Capacity[fixtures.ResourceGPU] = resource.MustParse("4")
					node.Status.Allocatable[fixtures.ResourceGPU] = resource.MustParse("4")
				}
			})
			g := inOneRack(s.GPUGang(fmt.Sprintf("most-%d", i), sl, 1, 2, 4))
			// The group's first cycle must hold both members, or the quorum
			// alone fits any rack. Members that reach a scheduler's queue
			// apart, or before their PodGroup, may be tried apart (v1.37.2
			// moves them into its active queue one at a time, and a cycle
			// can start in between); a gated member keeps its whole group
			// out of the queue. So: both members gated, the fence (the
			// scheduler has both and their PodGroup), then no gate.
			g.Gate = gateName
			f.Create(ctx, g)
			s.Fence(ctx, sl, sl.Nodes.Node(0).Name, fmt.Sprintf("fence-%d", i))
			gomega.Expect(g.Ungate(ctx, f.Client)).To(gomega.Succeed())
			gangs[g] = sl
		}
		for g, sl := range gangs {
			pl := f.ExpectOneDomain(ctx, g, fixtures.LabelRack)
			gomega.Expect(pl.Nodes).To(gomega.HaveEach(sl.Nodes.Node(full).Name), "both members of %s are in the full rack", g.Name)
		}
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
})

// Semantics item 21 (continued).
var _ = ginkgo.Describe("Topology-aware placement", ginkgo.Label("profile:alpha", "area:topology", "item:21"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GateTopology)

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
