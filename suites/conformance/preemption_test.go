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

// Priority classes from fixtures/templates/priorityclasses.yaml.
const (
	lowPriority    = "gangconf-low"
	mediumPriority = "gangconf-medium"
	highPriority   = "gangconf-high"
)

// submit creates a gang of members 8-GPU pods (all of them its quorum) at
// a priority.
func submit(ctx context.Context, s *framework.Spec, sl *cluster.Slice, name, priority string, members int, all bool) *gang.Gang {
	ginkgo.GinkgoHelper()
	g := s.GPUGang(name, sl, int32(members), members, 8)
	g.PriorityClassName, g.DisruptionAll = priority, all
	f.Create(ctx, g)
	return g
}

// running submits a gang and waits until all its members are bound.
func running(ctx context.Context, s *framework.Spec, sl *cluster.Slice, name, priority string, members int, all bool) *gang.Gang {
	ginkgo.GinkgoHelper()
	g := submit(ctx, s, sl, name, priority, members, all)
	f.ExpectBound(ctx, g, members, "the "+name+" gang is running")
	return g
}

// plainPods is n pods of gpus GPUs each at a priority, in no PodGroup, pinned
// to the slice; the spec creates them.
func plainPods(s *framework.Spec, sl *cluster.Slice, name, priority string, n int, gpus int64) *gang.Gang {
	p := s.GPUGang(name, sl, 0, n, gpus)
	p.Standalone, p.PriorityClassName = true, priority
	return p
}

// lingering creates n low-priority 8-GPU plain pods that linger while
// terminating (until gang.Release), and waits until they are bound.
func lingering(ctx context.Context, s *framework.Spec, sl *cluster.Slice, n int, why string) *gang.Gang {
	ginkgo.GinkgoHelper()
	low := plainPods(s, sl, "low", lowPriority, n, 8)
	low.Hold = true
	f.Create(ctx, low)
	f.ExpectBound(ctx, low, n, why)
	return low
}

// expectUndisturbed checks that none of the pods is marked for termination
// for the quiet window.
func expectUndisturbed(ctx context.Context, rec *framework.PodRecorder, pods []string, why string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(func() []string { return rec.Disrupted(pods...) }).WithContext(ctx).
		WithTimeout(framework.QuietWindow).Should(gomega.BeEmpty(), why+" (watched for 5s)")
}

// expectDisrupted waits until exactly the wanted number of pods are marked
// for termination.
func expectDisrupted(ctx context.Context, rec *framework.PodRecorder, pods []string, n int, why string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func() []string { return rec.Disrupted(pods...) }).WithContext(ctx).
		WithTimeout(framework.Patience).Should(gomega.HaveLen(n), why)
}

// Semantics items 16-19 (KEP-5710, on with GenericWorkload in v1.37).
var _ = ginkgo.Describe("Workload-aware preemption", ginkgo.Label("profile:extended", "area:preemption"), func() {
	var s *framework.Spec
	var rec *framework.PodRecorder
	recordedSpecs(&s, &rec)

	ginkgo.Context("a higher-priority gang that does not fit", ginkgo.Label("item:16"), func() {
		var low, high *gang.Gang
		ginkgo.BeforeEach(func(ctx context.Context) {
			sl := s.Slice(ctx, "gpu-8x", 2, 2)
			low = running(ctx, s, sl, "low", lowPriority, 2, false)
			high = submit(ctx, s, sl, "high", highPriority, 2, false)
		})

		ginkgo.It("evicts lower-priority pods and is bound", func(ctx context.Context) {
			f.ExpectBound(ctx, high, 2, "the high-priority gang takes the nodes")
			expectDisrupted(ctx, rec, low.PodNames(), 2, "both low-priority pods are evicted")
		})

		ginkgo.It("marks its victims DisruptionTarget=True, reason PreemptionByScheduler", ginkgo.Label("item:18"), func(ctx context.Context) {
			for _, p := range low.PodNames() {
				gomega.Eventually(func() bool {
					return rec.Ever(p, framework.HasCondition(corev1.DisruptionTarget, "PreemptionByScheduler"))
				}).WithContext(ctx).WithTimeout(framework.Patience).Should(gomega.BeTrue(), "victim %s carries DisruptionTarget", p)
			}
		})

		ginkgo.It("gives each victim a Preempted event", ginkgo.Label("item:18"), func(ctx context.Context) {
			for _, p := range low.PodNames() {
				f.ExpectEvent(ctx, s.Namespace, p, "Preempted", "")
			}
		})

		ginkgo.It("gives its members a nominatedNodeName before they are bound, and binds each on the node it was nominated to", ginkgo.Label("item:18"), func(ctx context.Context) {
			f.ExpectBound(ctx, high, 2, "the high-priority gang is bound")
			nominated := map[string]string{}
			for _, p := range high.PodNames() {
				// The watch may deliver what the API server already said a
				// moment later.
				gomega.Eventually(func() string { return firstNomination(rec, p) }).WithContext(ctx).WithTimeout(framework.Patience).
					ShouldNot(gomega.BeEmpty(), "preemptor %s was nominated to a node while its victims went", p)
				nominated[p] = firstNomination(rec, p)
			}
			expectOnNominated(ctx, high, nominated)
		})
	})

	ginkgo.It("nothing is preempted when the gang fits without it (watched for 5s)", ginkgo.Label("item:16"), func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		low := running(ctx, s, sl, "low", lowPriority, 1, false)
		high := submit(ctx, s, sl, "high", highPriority, 2, false)
		f.ExpectBound(ctx, high, 2, "the high-priority gang uses the two free nodes")
		expectUndisturbed(ctx, rec, low.PodNames(), "the low-priority pod is left alone")
	})

	ginkgo.It("nothing is preempted for a gang that would not fit even then (watched for 5s)", ginkgo.Label("item:16"), func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		low := running(ctx, s, sl, "low", lowPriority, 2, false)
		// Three 8-GPU members never fit on two nodes, whatever is evicted.
		high := submit(ctx, s, sl, "high", highPriority, 3, false)
		f.ExpectTried(ctx, high)
		expectUndisturbed(ctx, rec, low.PodNames(), "no pod is evicted for a gang that is rejected anyway")
		f.ExpectStaysBound(ctx, high, 0, "the gang that cannot fit binds nothing")
	})

	ginkgo.It("only pods of lower priority are preempted", ginkgo.Label("item:16"), func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		top := running(ctx, s, sl, "top", highPriority, 1, false)
		low := running(ctx, s, sl, "low", lowPriority, 1, false)
		medium := submit(ctx, s, sl, "medium", mediumPriority, 2, false)
		f.ExpectBound(ctx, medium, 2, "the medium-priority gang takes the free node and the low-priority pod's")
		expectDisrupted(ctx, rec, low.PodNames(), 1, "the low-priority pod is evicted")
		gomega.Expect(rec.Disrupted(top.PodNames()...)).To(gomega.BeEmpty(), "the higher-priority pod is never a victim")
	})
})

// Semantics items 16-19 (continued).
var _ = ginkgo.Describe("Workload-aware preemption", ginkgo.Label("profile:extended", "area:preemption"), func() {
	var s *framework.Spec
	var rec *framework.PodRecorder
	recordedSpecs(&s, &rec)

	ginkgo.Context("a victim group", ginkgo.Label("item:17"), func() {
		// Two nodes, both held by the low gang; the high gang of one member
		// needs one node, so one victim pod would do. (With a free node too,
		// v1.37.2 may place the preemptor on every vacated node and reprieve
		// nothing: which victims suffice depends on that placement.)
		victimAndPreemptor := func(ctx context.Context, all bool) *gang.Gang {
			sl := s.Slice(ctx, "gpu-8x", 2, 2)
			low := running(ctx, s, sl, "low", lowPriority, 2, all)
			high := submit(ctx, s, sl, "high", highPriority, 1, false)
			f.ExpectBound(ctx, high, 1, "the high-priority gang is bound")
			return low
		}

		ginkgo.It("with disruptionMode all is evicted whole, across nodes, though one pod would do", func(ctx context.Context) {
			low := victimAndPreemptor(ctx, true)
			expectDisrupted(ctx, rec, low.PodNames(), 2, "both members of the all-mode group are evicted")
		})

		ginkgo.It("with disruptionMode single loses only the pods needed (watched for 5s)", func(ctx context.Context) {
			low := victimAndPreemptor(ctx, false)
			expectDisrupted(ctx, rec, low.PodNames(), 1, "one member of the single-mode group is evicted")
			gomega.Consistently(func() []string { return rec.Disrupted(low.PodNames()...) }).WithContext(ctx).
				WithTimeout(framework.QuietWindow).Should(gomega.HaveLen(1), "and only one (watched for 5s)")
		})
	})

	ginkgo.Context("two victims on one node, where one must go", ginkgo.Label("item:20"), func() {
		// One 8-GPU node holds two 4-GPU pods: a low-priority one and a
		// medium-priority one. A high-priority gang of one 4-GPU member
		// needs exactly one of them gone.
		sharedNode := func(ctx context.Context, protectLow bool) (low, medium *gang.Gang) {
			sl := s.Slice(ctx, "gpu-8x", 1, 1)
			low, medium = plainPods(s, sl, "low", lowPriority, 1, 4), plainPods(s, sl, "medium", mediumPriority, 1, 4)
			for _, g := range []*gang.Gang{low, medium} {
				f.Create(ctx, g)
				f.ExpectBound(ctx, g, 1, "the "+g.Name+" pod is running")
			}
			if protectLow {
				s.ProtectAll(ctx, low)
			}
			high := s.GPUGang("high", sl, 1, 1, 4)
			high.PriorityClassName = highPriority
			f.Create(ctx, high)
			return low, medium
		}

		ginkgo.It("the victim a PodDisruptionBudget protects is spared, though its priority is lower (watched for 5s)", func(ctx context.Context) {
			low, medium := sharedNode(ctx, true)
			expectDisrupted(ctx, rec, medium.PodNames(), 1, "the unprotected medium-priority pod is evicted")
			expectUndisturbed(ctx, rec, low.PodNames(), "the pod whose budget allows no disruption is spared")
		})

		ginkgo.It("without a budget, the higher-priority victim is spared (watched for 5s)", func(ctx context.Context) {
			low, medium := sharedNode(ctx, false)
			expectDisrupted(ctx, rec, low.PodNames(), 1, "the low-priority pod is evicted")
			expectUndisturbed(ctx, rec, medium.PodNames(), "the medium-priority pod is spared")
		})
	})

	ginkgo.It("a single high-priority pod that preempts a member of an all-mode group evicts the whole group", ginkgo.Label("item:19"), func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		low := running(ctx, s, sl, "low", lowPriority, 2, true)
		single := plainPods(s, sl, "single", highPriority, 1, 8)
		f.Create(ctx, single)
		f.ExpectBound(ctx, single, 1, "the single high-priority pod is bound")
		expectDisrupted(ctx, rec, low.PodNames(), 2, "both members of the all-mode group are evicted, not just one")
	})
})

// Semantics items 16-19 (continued).
var _ = ginkgo.Describe("Workload-aware preemption", ginkgo.Label("profile:extended", "area:preemption"), func() {
	var s *framework.Spec
	var rec *framework.PodRecorder
	recordedSpecs(&s, &rec)

	ginkgo.It("while its victims terminate, nothing else is preempted and the gang waits (watched for 5s)", ginkgo.Label("item:18"), func(ctx context.Context) {
		high, victims := preemptHeldVictims(ctx, s, rec)
		expectOnlyVictims(ctx, rec, victims, high, "while the victims terminate")
		gomega.Expect(gang.Release(ctx, f.Client, s.Namespace)).To(gomega.Succeed())
		f.ExpectBound(ctx, high, 2, "the gang is bound once its victims are gone")
		gomega.Expect(rec.Disrupted(victims...)).To(gomega.HaveLen(2), "and no further pod was preempted")
	})

	ginkgo.It("while its victims terminate, a member added to the gang does not start another preemption (watched for 5s after it was tried)", ginkgo.Label("item:18"), func(ctx context.Context) {
		high, victims := preemptHeldVictims(ctx, s, rec)
		// A third member beyond minCount: the group is tried again, and a
		// scheduler that forgets the preemption under way evicts the third
		// low-priority pod to make room for it.
		high.Members = 3
		gomega.Expect(high.CreatePods(ctx, f.Client, 2, 3)).To(gomega.Succeed())
		f.ExpectTried(ctx, high)
		expectOnlyVictims(ctx, rec, victims, high, "while the victims terminate and a member is added")
	})

	ginkgo.It("a gang of which one member fits and one needs a victim nominates both, and while the victim terminates a lower-priority pod does not take the free node (watched for 5s after it was tried)", ginkgo.Label("item:18"), func(ctx context.Context) {
		// Two 8-GPU nodes, one held by a low-priority pod that lingers
		// while terminating: one member of the gang fits at once, the other
		// only once the pod goes.
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		low := lingering(ctx, s, sl, 1, "a low-priority pod holds one node")
		high := submit(ctx, s, sl, "high", highPriority, 2, false)
		expectDisrupted(ctx, rec, low.PodNames(), 1, "the low-priority pod is preempted for the gang")
		for _, p := range high.PodNames() {
			gomega.Eventually(func() string { return firstNomination(rec, p) }).WithContext(ctx).WithTimeout(framework.Patience).
				ShouldNot(gomega.BeEmpty(), "member %s is nominated to a node while the victim goes", p)
		}
		late := plainPods(s, sl, "late", lowPriority, 1, 8)
		f.Create(ctx, late)
		f.ExpectTried(ctx, late)
		f.ExpectStaysBound(ctx, late, 0, "the free node is kept for the gang's member nominated there")
		gomega.Expect(gang.Release(ctx, f.Client, s.Namespace)).To(gomega.Succeed())
		f.ExpectBound(ctx, high, 2, "the gang is bound once its victim is gone")
	})
})

// preemptHeldVictims fills three nodes with low-priority pods that linger
// while terminating, and submits a high-priority gang of two that needs two
// of them gone. It returns once two victims are marked, with the names of
// every pod that could be a victim.
func preemptHeldVictims(ctx context.Context, s *framework.Spec, rec *framework.PodRecorder) (high *gang.Gang, candidates []string) {
	ginkgo.GinkgoHelper()
	sl := s.Slice(ctx, "gpu-8x", 3, 3)
	// Plain pods: each is a victim of its own, so two, no more, suffice.
	low := lingering(ctx, s, sl, 3, "three low-priority pods fill the nodes")
	high = submit(ctx, s, sl, "high", highPriority, 2, false)
	expectDisrupted(ctx, rec, low.PodNames(), 2, "two low-priority pods are preempted for the gang")
	return high, low.PodNames()
}

// expectOnlyVictims checks, for the quiet window, that the two victims stay
// the only pods marked for termination and that the gang binds nothing.
func expectOnlyVictims(ctx context.Context, rec *framework.PodRecorder, candidates []string, high *gang.Gang, when string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(func() []string { return rec.Disrupted(candidates...) }).WithContext(ctx).
		WithTimeout(framework.QuietWindow).Should(gomega.HaveLen(2), "%s, no third pod is preempted (watched for %s)", when, framework.QuietWindow)
	gomega.Expect(rec.Bound(high.PodNames()...)).To(gomega.BeEmpty(), "%s, the gang is not bound onto nodes its victims still hold", when)
}
