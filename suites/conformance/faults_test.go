package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/gang"
)

// Semantics item 25, and the API server restart of the extended profile.
// Faults hit the whole cluster, so these specs are Serial: they run on the
// first process (which owns the scheduler and the cluster) once every
// parallel spec is done.
var _ = ginkgo.Describe("Faults", ginkgo.Serial, ginkgo.Label("profile:extended", "area:faults", "item:25"), func() {
	var s *framework.Spec
	var rec *framework.PodRecorder
	recordedSpecs(&s, &rec)

	ginkgo.It("a scheduler crash while a gang waits for quorum binds nothing early; the gang is bound once complete (watched for 5s before and after)", func(ctx context.Context) {
		quorumAcrossFault(ctx, s, func(ctx context.Context) {
			crashScheduler(ctx)
			restartScheduler(ctx)
		})
	})

	ginkgo.It("a scheduler crash while a gang of 256 is being placed leaves one gang whole and the other unbound (watched for 5s)", func(ctx context.Context) {
		const members = 256
		sl := s.Slice(ctx, "gpu-8x", members, 32)
		// Either gang needs every node: any bound member of one shuts the
		// other out, so a restart must finish the gang it started.
		a, b := s.GPUGang("a", sl, members, members, 8), s.GPUGang("b", sl, members, members, 8)
		gomega.Expect(gang.CreateInterleaved(ctx, f.Client, a, b)).To(gomega.Succeed())
		all := append(a.PodNames(), b.PodNames()...)
		gomega.Eventually(func() []string { return rec.Bound(all...) }).WithContext(ctx).WithPolling(10*time.Millisecond).
			WithTimeout(framework.Patience).ShouldNot(gomega.BeEmpty(), "binding starts")
		crashScheduler(ctx)
		atCrash := len(rec.Bound(all...))
		ginkgo.AddReportEntry("bound at the crash", fmt.Sprintf("%d of %d", atCrash, 2*members))
		restartScheduler(ctx)
		expectOneWinner(ctx, []*gang.Gang{a, b}, fmt.Sprintf(" (%d members were bound when the scheduler died)", atCrash))
		expectNoPartialGang(ctx, s)
	})

	ginkgo.It("a scheduler crash while victims terminate preempts nothing more; the gang is bound once they are gone (watched for 5s)", func(ctx context.Context) {
		high, victims := preemptHeldVictims(ctx, s, rec)
		crashScheduler(ctx)
		restartScheduler(ctx)
		expectOnlyVictims(ctx, rec, victims, high, "after the restart, while the victims still terminate")
		gomega.Expect(gang.Release(ctx, f.Client, s.Namespace)).To(gomega.Succeed())
		f.ExpectBound(ctx, high, 2, "the gang is bound once its victims are gone")
		gomega.Expect(rec.Disrupted(victims...)).To(gomega.HaveLen(2), "and no further pod was preempted")
		expectNoPartialGang(ctx, s)
	})

	ginkgo.It("an API server restart under a gang waiting for quorum binds nothing early; the gang is bound once complete (watched for 5s)", func(ctx context.Context) {
		if ok, why := env.CanRestartControlPlane(); !ok {
			ginkgo.Skip(why)
		}
		quorumAcrossFault(ctx, s, func(ctx context.Context) {
			took, err := env.RestartControlPlane(ctx)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.GinkgoWriter.Printf("control plane stopped and started again in %s\n", took.Round(time.Millisecond))
		})
	})
})

// crashScheduler kills the scheduler under test; the spec's cleanup
// starts it again if the spec did not.
func crashScheduler(ctx context.Context) {
	ginkgo.GinkgoHelper()
	if ok, why := env.CanRestartScheduler(); !ok {
		ginkgo.Skip(why)
	}
	// The invariant monitor does not count the outage as quiet time.
	invariants.Suspend()
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		defer invariants.Resume(time.Now())
		return env.EnsureScheduler(ctx)
	})
	// Its own message says what failed (SCHEDULER_RESTART_CMD's exit status
	// and last line), where gomega would dump the error value around it.
	failOn(env.CrashScheduler(ctx))
	ginkgo.GinkgoWriter.Println("scheduler killed")
}

// restartScheduler starts the scheduler again. The invariant monitor's
// quiet window then starts one QuietWindow after the scheduler is ready:
// a restarted scheduler first works through every pending pod, and in
// one CI run its first bind came 5.3 s after it was ready, as it tried
// the other gang of 256 before it completed the gang it had begun.
func restartScheduler(ctx context.Context) {
	ginkgo.GinkgoHelper()
	start := time.Now()
	if err := env.EnsureScheduler(ctx); err != nil {
		ginkgo.Fail("the scheduler did not start again: " + err.Error())
	}
	invariants.Resume(time.Now().Add(framework.QuietWindow))
	ginkgo.GinkgoWriter.Printf("scheduler ready again %s after its start\n", time.Since(start).Round(time.Millisecond))
}

// quorumAcrossFault has three of a gang of four wait for quorum, applies
// the fault, and checks that nothing was bound early on either side of it
// and that the gang is bound whole once its fourth member exists.
func quorumAcrossFault(ctx context.Context, s *framework.Spec, fault func(context.Context)) {
	ginkgo.GinkgoHelper()
	g := s.GPUGang("quorum", s.Slice(ctx, "gpu-8x", 4, 4), 4, 4, 8)
	gomega.Expect(g.CreateFirst(ctx, f.Client, 3)).To(gomega.Succeed())
	f.ExpectStaysBound(ctx, g, 0, "three members of a gang of four wait")
	fault(ctx)
	f.ExpectStaysBound(ctx, g, 0, "after the fault, the three members still wait")
	gomega.Expect(g.CreatePods(ctx, f.Client, 3, 4)).To(gomega.Succeed())
	f.ExpectBound(ctx, g, 4, "the gang is bound once its fourth member exists")
	expectNoPartialGang(ctx, s)
}

// expectNoPartialGang asks the run's invariant monitor, once the cluster is
// quiet, whether any gang of the spec's namespace is partially bound.
func expectNoPartialGang(ctx context.Context, s *framework.Spec) {
	ginkgo.GinkgoHelper()
	gomega.Expect(invariants).NotTo(gomega.BeNil(), "the invariant monitor runs on the first process")
	var found []string
	for _, v := range invariants.WaitQuiet(ctx) {
		if v.Gang.Namespace == s.Namespace {
			found = append(found, v.String())
		}
	}
	gomega.Expect(found).To(gomega.BeEmpty(), "the invariant monitor finds gangs partially bound after the fault")
}
