package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// Semantics items 8, 9, 10 and 12.
var _ = ginkgo.Describe("All-or-nothing", ginkgo.Label("profile:core", "area:all-or-nothing"), func() {
	ginkgo.It("a gang that fits binds all its pods", ginkgo.Label("item:9"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("fits", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 4)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 3, "every member of a gang that fits is bound")
	})

	ginkgo.Context("a gang that cannot fully fit", ginkgo.Label("item:8"), func() {
		var g *gang.Gang
		ginkgo.BeforeEach(func(ctx context.Context) {
			s := f.NewSpec(ctx)
			// Two 8-GPU nodes hold two of the three 8-GPU members: never all three.
			g = s.GPUGang("too-big", s.Slice(ctx, "gpu-8x", 2, 2), 3, 3, 8)
			f.Create(ctx, g)
		})

		ginkgo.It("binds no pod (watched for 5s after every member was tried)", func(ctx context.Context) {
			f.ExpectTried(ctx, g)
			f.ExpectStaysBound(ctx, g, 0, "no member of a gang that cannot fully fit is bound")
		})

		ginkgo.It("marks every member PodScheduled=False", func(ctx context.Context) {
			gomega.Eventually(ctx, func(ctx context.Context) (int, error) {
				pods, err := g.Pods(ctx, f.Client)
				n := 0
				for _, p := range pods {
					if framework.PodUnschedulable(&p) && p.Spec.NodeName == "" {
						n++
					}
				}
				return n, err
			}).WithTimeout(framework.Patience).Should(gomega.Equal(3), "all three members report PodScheduled=False and none is bound")
		})

		ginkgo.It("reports PodGroupInitiallyScheduled=False, reason Unschedulable, naming minCount", func(ctx context.Context) {
			c := expectUnschedulable(ctx, g, "the PodGroup says it could not be scheduled")
			gomega.Expect(c.Message).To(gomega.ContainSubstring("3"), "the message names the quorum of 3")
		})
	})

	ginkgo.It("members beyond what fits stay Pending while the quorum is bound (watched for 5s)", ginkgo.Label("item:9"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// minCount 2 of 3 members; two nodes fit two.
		g := s.GPUGang("surplus", s.Slice(ctx, "gpu-8x", 2, 2), 2, 3, 8)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 2, "the quorum of 2 is bound")
		f.ExpectStaysBound(ctx, g, 2, "the third member, which does not fit, stays Pending")
	})

	ginkgo.It("a member that arrives after its gang was scheduled is scheduled too", ginkgo.Label("item:9"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("late", s.Slice(ctx, "gpu-8x", 3, 3), 2, 2, 8)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 2, "the gang of 2 is bound")
		gomega.Expect(g.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		g.Members = 3
		f.ExpectBound(ctx, g, 3, "the late third member is bound")
	})

	ginkgo.It("a homogeneous gang that fits only by using every free node is placed", ginkgo.Label("item:12"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 4, 4)
		// Five GPUs of every node are taken first: two 5-GPU pods never
		// share a node, so the four fillers sit one per node.
		filler := s.GPUGang("filler", sl, 0, 4, 5)
		filler.Standalone = true
		f.Create(ctx, filler)
		f.ExpectBound(ctx, filler, 4, "the four 5-GPU fillers are bound")
		// Four 3-GPU members fit only with one on each of the four nodes.
		g := s.GPUGang("exact", sl, 4, 4, 3)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 4, "the gang that needs every free GPU is placed")
	})
})

// Semantics item 10.
var _ = ginkgo.Describe("Basic policy", ginkgo.Label("profile:core", "area:all-or-nothing", "item:10"), func() {
	ginkgo.It("every member that fits is scheduled, with no quorum (watched for 5s)", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("basic", s.Slice(ctx, "gpu-8x", 2, 2), 0, 3, 8)
		g.Basic = true
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 2, "the two members that fit are bound, without waiting for the third")
		f.ExpectStaysBound(ctx, g, 2, "the third stays Pending")
	})
})
