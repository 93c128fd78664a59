package conformance

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/gangconf/gangconf/suites/framework/gang"
)

// Semantics items 6 and 7.
var _ = ginkgo.Describe("Quorum", ginkgo.Label("profile:core", "area:quorum", "item:7"), func() {
	var g *gang.Gang
	ginkgo.BeforeEach(func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// Room for all three; only two are created at first.
		g = s.GPUGang("quorum", s.Slice(ctx, "gpu-8x", 3, 3), 3, 3, 8)
		gomega.Expect(g.CreateFirst(ctx, f.Client, 2)).To(gomega.Succeed())
	})

	ginkgo.It("with fewer members present than minCount, no member is bound (watched for 5s)", func(ctx context.Context) {
		f.ExpectStaysBound(ctx, g, 0, "two members of a gang of three are not bound")
	})

	ginkgo.It("once the last member arrives, the whole gang is bound", func(ctx context.Context) {
		gomega.Expect(g.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 3, "the gang is bound once its third member exists")
	})

	ginkgo.It("lowering minCount to the members present lets a gang go that bound nothing before (watched for 5s)", func(ctx context.Context) {
		f.ExpectStaysBound(ctx, g, 0, "two members of a gang of three are not bound before minCount is lowered")
		gomega.Expect(g.SetMinCount(ctx, f.Client, 2)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 2, "with minCount 2 the two members present are bound")
	})

	ginkgo.It("raising minCount never unbinds a bound member (watched for 5s)", func(ctx context.Context) {
		gomega.Expect(g.SetMinCount(ctx, f.Client, 2)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 2, "with minCount 2 the two members are bound")
		gomega.Expect(g.SetMinCount(ctx, f.Client, 3)).To(gomega.Succeed())
		f.ExpectStaysBound(ctx, g, 2, "raising minCount to 3 leaves both bound")
	})
})

var _ = ginkgo.Describe("Missing PodGroup", ginkgo.Label("profile:core", "area:quorum", "item:6"), func() {
	var g *gang.Gang
	ginkgo.BeforeEach(func(ctx context.Context) {
		s := f.NewSpec(ctx)
		g = s.GPUGang("later", s.Slice(ctx, "gpu-8x", 2, 2), 2, 2, 8)
		// The pods name a PodGroup that does not exist yet.
		gomega.Expect(g.CreatePods(ctx, f.Client, 0, 2)).To(gomega.Succeed())
	})

	ginkgo.It("members of a PodGroup that does not exist stay Pending (watched for 5s)", func(ctx context.Context) {
		f.ExpectStaysBound(ctx, g, 0, "no member is bound while its PodGroup is missing")
	})

	ginkgo.It("once the missing PodGroup is created, its members are scheduled", func(ctx context.Context) {
		_, err := g.CreatePodGroup(ctx, f.Client)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		f.ExpectBound(ctx, g, 2, "both members are bound once the PodGroup exists")
	})
})
