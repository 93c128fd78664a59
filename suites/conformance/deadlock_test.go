package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// boundCounts lists how many members of each gang are bound.
func boundCounts(ctx context.Context, gangs []*gang.Gang) ([]int, error) {
	out := make([]int, len(gangs))
	for i, g := range gangs {
		n, err := g.Bound(ctx, f.Client)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// oneWinner matches bound counts where one of the gangs has every member
// bound and every other gang none.
func oneWinner(gangs []*gang.Gang) func([]int) bool {
	return func(counts []int) bool {
		full, empty := 0, 0
		for i, c := range counts {
			switch c {
			case gangs[i].Members:
				full++
			case 0:
				empty++
			}
		}
		return full == 1 && full+empty == len(counts)
	}
}

// expectOneWinner waits until one gang is fully bound and the others have
// nothing bound, and checks that this holds for the quiet window.
func expectOneWinner(ctx context.Context, gangs []*gang.Gang, why string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, boundCounts).WithArguments(gangs).WithTimeout(framework.Patience).
		Should(gomega.Satisfy(oneWinner(gangs)), "one gang is fully bound and every other gang has no member bound"+why)
	gomega.Consistently(ctx, boundCounts).WithArguments(gangs).WithTimeout(framework.QuietWindow).
		Should(gomega.Satisfy(oneWinner(gangs)), "and it stays so (watched for %s)", framework.QuietWindow)
}

// Semantics item 11.
var _ = ginkgo.Describe("No deadlock", ginkgo.Label("profile:core", "area:deadlock", "item:11"), func() {
	// n gangs of three 8-GPU members on four 8-GPU nodes, pods created
	// interleaved: room for one gang at a time. A pod-by-pod scheduler fills
	// all four nodes, so whatever its order, some gang ends up partial.
	competing := func(ctx context.Context, n int) []*gang.Gang {
		s := f.NewSpec(ctx)
		sl := s.Slice(ctx, "gpu-8x", 4, 4)
		var gangs []*gang.Gang
		for i := 0; i < n; i++ {
			gangs = append(gangs, s.GPUGang(fmt.Sprintf("g%d", i), sl, 3, 3, 8))
		}
		gomega.Expect(gang.CreateInterleaved(ctx, f.Client, gangs...)).To(gomega.Succeed())
		return gangs
	}
	ginkgo.It("two gangs that together exceed capacity: one is fully bound, the other fully Pending (watched for 5s)", func(ctx context.Context) {
		expectOneWinner(ctx, competing(ctx, 2), "")
	})

	ginkgo.It("four gangs that together exceed capacity: one is fully bound, the others fully Pending (watched for 5s)", func(ctx context.Context) {
		expectOneWinner(ctx, competing(ctx, 4), "")
	})

	ginkgo.It("when the bound gang finishes, a waiting gang is scheduled", func(ctx context.Context) {
		gangs := competing(ctx, 2)
		expectOneWinner(ctx, gangs, "")
		counts, err := boundCounts(ctx, gangs)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		winner, waiting := gangs[0], gangs[1]
		if counts[1] == 3 {
			winner, waiting = gangs[1], gangs[0]
		}
		gomega.Expect(winner.Finish(ctx, f.Client)).To(gomega.Succeed())
		f.ExpectBound(ctx, waiting, 3, "the waiting gang takes the capacity its rival freed")
	})

	ginkgo.It("a gang and a stream of single pods arriving together both make progress", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// Eight nodes: four for the gang of four, four for four single pods
		// that belong to no PodGroup, created between the gang's members.
		sl := s.Slice(ctx, "gpu-8x", 8, 8)
		g := s.GPUGang("gang", sl, 4, 4, 8)
		singles := s.GPUGang("singles", sl, 0, 4, 8)
		singles.Standalone = true
		gomega.Expect(gang.CreateInterleaved(ctx, f.Client, g, singles)).To(gomega.Succeed())
		f.ExpectBound(ctx, g, 4, "the gang is bound")
		f.ExpectBound(ctx, singles, 4, "every single pod is bound")
	})
})
