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

// gpusEach gives member i gpus[i] GPUs: a gang whose members differ in shape.
func gpusEach(gpus ...int64) func(int) corev1.ResourceList {
	return func(i int) corev1.ResourceList { return gang.GPUs(gpus[i]) }
}

// onNode pins the gang's pods to one node of the slice, by hostname.
func onNode(g *gang.Gang, sl *cluster.Slice, i int) {
	name := sl.Nodes.Node(i).Name
	editPods(g, func(p *corev1.Pod) { p.Spec.NodeSelector[corev1.LabelHostname] = name })
}

// standalone is n plain pods (no PodGroup) of gpus GPUs each on node i of
// the slice, created and bound before the spec goes on: capacity taken
// away from a gang.
func standalone(ctx context.Context, s *framework.Spec, name string, sl *cluster.Slice, node, n int, gpus int64) *gang.Gang {
	ginkgo.GinkgoHelper()
	p := s.GPUGang(name, sl, 0, n, gpus)
	p.Standalone = true
	onNode(p, sl, node)
	f.Create(ctx, p)
	f.ExpectBound(ctx, p, n, "the pods that take capacity away are bound first")
	return p
}

// Semantics item 8, for gangs whose members differ in shape.
var _ = ginkgo.Describe("Heterogeneous gangs", ginkgo.Label("profile:core", "area:all-or-nothing", "item:8"), func() {
	ginkgo.It("a 1-GPU driver and three 8-GPU workers on three free 8-GPU nodes bind no member (watched for 5s after every member was tried)", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// 25 GPUs on 24: the workers fill every node and the driver fits
		// nowhere, or the driver takes a GPU a worker needs.
		g := s.GPUGang("driver-workers", s.Slice(ctx, "gpu-8x", 3, 3), 4, 4, 0)
		g.MemberRequests = gpusEach(1, 8, 8, 8)
		f.Create(ctx, g)
		f.ExpectTried(ctx, g)
		f.ExpectStaysBound(ctx, g, 0, "no member of a gang whose workers and driver cannot all fit is bound")
	})

	ginkgo.It("members of 6, 6 and 4 GPUs on two 8-GPU nodes, enough GPUs in all but not per node, bind no member (watched for 5s after every member was tried)", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// The two 6-GPU members need a node each, which leaves 2 GPUs on
		// each node and nowhere for the 4-GPU member.
		g := s.GPUGang("unpackable", s.Slice(ctx, "gpu-8x", 2, 2), 3, 3, 0)
		g.MemberRequests = gpusEach(6, 6, 4)
		f.Create(ctx, g)
		f.ExpectTried(ctx, g)
		f.ExpectStaysBound(ctx, g, 0, "no member of a gang that fits by total but not by node is bound")
	})
})

// Semantics item 12, for a gang whose members differ in shape. The
// reference (v1.37.2) places a gang's members greedily, one after another
// in the order they arrived, without trying another order: item 12
// promises a placement for homogeneous gangs only. Here the workers arrive
// first, so the placement exists in the order the members come.
var _ = ginkgo.Describe("Heterogeneous placement", ginkgo.Label("profile:core", "area:placement", "item:12"), func() {
	ginkgo.It("8-GPU workers that arrive before their 1-GPU driver, and that fit only on the free nodes while the driver fits only on the partly used one, are placed", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		// Node 2 keeps 4 free GPUs: too few for a worker, room for the driver.
		standalone(ctx, s, "filler", sl, 2, 1, 4)
		g := s.GPUGang("workers-driver", sl, 3, 3, 0)
		g.MemberRequests = gpusEach(8, 8, 1)
		f.Create(ctx, g)
		f.ExpectBound(ctx, g, 3, "both workers and the driver are bound")
		pods, err := g.Pods(ctx, f.Client)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		nodes := map[string]string{}
		for _, p := range pods {
			nodes[p.Name] = p.Spec.NodeName
		}
		gomega.Expect(nodes).To(gomega.HaveKeyWithValue(g.PodNames()[2], sl.Nodes.Node(2).Name), "the driver is on the partly used node")
	})
})
