package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

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

// expectSettles waits until the gangs' bound counts match and checks that
// they stay so for the quiet window.
func expectSettles(ctx context.Context, gangs []*gang.Gang, m types.GomegaMatcher, why string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, boundCounts).WithArguments(gangs).WithTimeout(framework.Patience).Should(m, why)
	gomega.Consistently(ctx, boundCounts).WithArguments(gangs).WithTimeout(framework.QuietWindow).
		Should(m, "%s, and it stays so (watched for %s)", why, framework.QuietWindow)
}

// expectOneWinner waits until one gang is fully bound and the others have
// nothing bound, and checks that this holds for the quiet window.
func expectOneWinner(ctx context.Context, gangs []*gang.Gang, why string) {
	ginkgo.GinkgoHelper()
	expectSettles(ctx, gangs, gomega.Satisfy(oneWinner(gangs)), "one gang is fully bound and every other gang has no member bound"+why)
}

// roomWindow is how long a waiting gang may take to be bound once the
// capacity it needs is free and nothing else claims it. The reference
// retries an unschedulable gang when a pod finishes, after a backoff of at
// most 10s.
const roomWindow = 15 * time.Second

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
})

// Semantics item 11.
var _ = ginkgo.Describe("No deadlock", ginkgo.Label("profile:core", "area:deadlock", "item:11"), func() {
	ginkgo.It("a gang and single pods that arrive together and need twice the nodes: one side waits whole while the other runs (watched for 5s), then the waiting side is bound", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		// Four nodes; a gang of four 8-GPU members and four 8-GPU single
		// pods of the same priority that belong to no PodGroup, created
		// between the gang's members: room for one side at a time. A
		// pod-by-pod scheduler binds half of each.
		sl := s.Slice(ctx, "gpu-8x", 4, 4)
		g := s.GPUGang("gang", sl, 4, 4, 8)
		singles := s.GPUGang("singles", sl, 0, 4, 8)
		singles.Standalone = true
		gomega.Expect(gang.CreateInterleaved(ctx, f.Client, g, singles)).To(gomega.Succeed())
		sides := []*gang.Gang{g, singles}
		// Every node is taken, and by one side only.
		oneSide := gomega.BeElementOf([]int{4, 0}, []int{0, 4})
		expectSettles(ctx, sides, oneSide, "either the whole gang or all four single pods are bound, the other side not at all (bound: gang, singles)")
		counts, err := boundCounts(ctx, sides)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		running, waiting := g, singles
		if counts[1] == 4 {
			running, waiting = singles, g
		}
		gomega.Expect(running.Finish(ctx, f.Client)).To(gomega.Succeed())
		f.ExpectBound(ctx, waiting, 4, "once the running side finishes, the waiting side takes the nodes")
	})

	ginkgo.It("a gang of four against a stream of single pods on four nodes: the singles keep being bound, the gang binds nothing while it lacks room (watched for 5s), and it is bound within 15s once the stream leaves it room", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		rec := s.RecordPods(ctx)
		sl := s.Slice(ctx, "gpu-8x", 4, 4)
		// Single 8-GPU pods of the gang's priority, each its own object so
		// that it can finish on its own.
		next := 0
		single := func() *gang.Gang {
			ginkgo.GinkgoHelper()
			p := s.GPUGang(fmt.Sprintf("single-%d", next), sl, 0, 1, 8)
			p.Standalone = true
			next++
			f.Create(ctx, p)
			f.ExpectBound(ctx, p, 1, "single pod "+p.Name+" is bound: a node is free for it")
			return p
		}
		running := []*gang.Gang{single(), single()}
		g := s.GPUGang("gang", sl, 4, 4, 8)
		f.Create(ctx, g)
		f.ExpectTried(ctx, g)
		gomega.Expect(rec.Bound(g.PodNames()...)).To(gomega.BeEmpty(), "no member of the gang is bound while two of the four nodes are busy")
		// The stream: one more single pod arrives, is bound, and the
		// oldest running one finishes; two or three of the four nodes are
		// busy all along, so the gang never has room. It goes on for six
		// pods, and for the quiet window at least.
		start := time.Now()
		for i := 0; i < 6 || time.Since(start) < framework.QuietWindow; i++ {
			running = append(running, single())
			gomega.Expect(running[0].Finish(ctx, f.Client)).To(gomega.Succeed())
			running = running[1:]
		}
		gomega.Expect(rec.Bound(g.PodNames()...)).To(gomega.BeEmpty(), "no member of the gang was bound while single pods held part of its room (watched for %s)", time.Since(start).Round(time.Second))
		// The stream stops; once the last single pod finishes, the room
		// is there.
		for _, p := range running {
			gomega.Expect(p.Finish(ctx, f.Client)).To(gomega.Succeed())
		}
		room := time.Now()
		gomega.Eventually(ctx, g.Bound).WithArguments(f.Client).WithTimeout(roomWindow).
			Should(gomega.Equal(4), "the gang is bound within %s of its room being free", roomWindow)
		ginkgo.AddReportEntry("gang bound after its room was free", time.Since(room).Round(100*time.Millisecond).String())
	})
})
