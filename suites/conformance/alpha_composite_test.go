package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/preflight"
)

// compositeTemplate names the composite Workload's CompositePodGroupTemplate.
const compositeTemplate = "job"

// composite creates a Workload with one CompositePodGroupTemplate, the
// CompositePodGroup with minGroupCount, and one child PodGroup per entry of
// members (none of their pods): a gang of that many 8-GPU pods, all of them
// its quorum, from a PodGroupTemplate of its own. Children are created in
// order. It returns them, pinned to the slice, for the spec to create pods for.
func composite(ctx context.Context, s *framework.Spec, sl *cluster.Slice, name string, minGroupCount int32, members ...int) []*gang.Gang {
	ginkgo.GinkgoHelper()
	var children []*gang.Gang
	var templates []schedulingv1beta1.PodGroupTemplate
	for i, m := range members {
		c := s.GPUGang(fmt.Sprintf("%s-%c", name, 'a'+i), sl, int32(m), m, 8)
		template := fmt.Sprintf("worker-%c", 'a'+i)
		c.EditGroup = func(pg *schedulingv1beta1.PodGroup) {
			parent := name
			pg.Spec.ParentCompositePodGroupName = &parent
			pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: name, TemplateName: template}
		}
		templates = append(templates, schedulingv1beta1.PodGroupTemplate{
			Name:             template,
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: int32(m)}},
		})
		children = append(children, c)
	}
	wl := &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:              compositeTemplate,
			SchedulingPolicy:  schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}},
			PodGroupTemplates: templates,
		}}},
	}
	_, err := f.Client.SchedulingV1beta1().Workloads(s.Namespace).Create(ctx, wl, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create the composite Workload")
	cpg := &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: name, TemplateName: compositeTemplate},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}},
		},
	}
	_, err = f.Client.SchedulingV1alpha3().CompositePodGroups(s.Namespace).Create(ctx, cpg, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create the CompositePodGroup")
	for _, c := range children {
		_, err := c.CreatePodGroup(ctx, f.Client)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create child PodGroup %s", c.Name)
	}
	return children
}

// Semantics item 22 (CompositePodGroup, scheduling.k8s.io/v1alpha3).
var _ = ginkgo.Describe("Composite groups", ginkgo.Label("profile:alpha", "area:composite", "item:22"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GateComposite)

	ginkgo.It("bind no child while fewer than minGroupCount children have their quorum, nor report the waiting child unschedulable, and bind them once enough do (watched for 5s)", func(ctx context.Context) {
		// Room for both children; minGroupCount 2; only a's members at first.
		children := composite(ctx, s, s.Slice(ctx, "gpu-8x", 4, 4), "quorum", 2, 2, 2)
		a, b := children[0], children[1]
		gomega.Expect(a.CreatePods(ctx, f.Client, 0, 2)).To(gomega.Succeed())
		expectWaitingQuietly(ctx, a, "child a's members, whose own quorum is met, waiting for a second child,")
		gomega.Expect(b.CreatePods(ctx, f.Client, 0, 2)).To(gomega.Succeed())
		f.ExpectBound(ctx, a, 2, "child a is bound once child b has its quorum too")
		f.ExpectBound(ctx, b, 2, "child b is bound")
	})

	ginkgo.It("bind no child when fewer than minGroupCount children fit, though one would (watched for 5s after every member was tried)", func(ctx context.Context) {
		// Three 8-GPU nodes hold one child of two 8-GPU members, never two.
		children := composite(ctx, s, s.Slice(ctx, "gpu-8x", 3, 3), "too-big", 2, 2, 2)
		for _, c := range children {
			gomega.Expect(c.CreatePods(ctx, f.Client, 0, 2)).To(gomega.Succeed())
		}
		for _, c := range children {
			f.ExpectTried(ctx, c)
		}
		gomega.Consistently(ctx, boundCounts).WithArguments(children).
			WithTimeout(framework.QuietWindow).Should(gomega.Equal([]int{0, 0}), "no child is bound (watched for 5s)")
	})

	ginkgo.It("bind no child while only one fits, then, once room for two is free, bind the two that fit whole; the third binds nothing (watched for 5s each)", func(ctx context.Context) {
		// Four 8-GPU nodes, two of them held by single pods at first: room
		// for one of the three children of two 8-GPU members each, where
		// minGroupCount is 2. Members arrive interleaved, as a pod-by-pod
		// scheduler would split them.
		sl := s.Slice(ctx, "gpu-8x", 4, 4)
		fillers := s.GPUGang("filler", sl, 0, 2, 8)
		fillers.Standalone = true
		f.Create(ctx, fillers)
		f.ExpectBound(ctx, fillers, 2, "two single pods hold two of the four nodes")
		children := composite(ctx, s, sl, "two-of-three", 2, 2, 2, 2)
		for i := 0; i < 2; i++ {
			for _, c := range children {
				gomega.Expect(c.CreatePods(ctx, f.Client, i, i+1)).To(gomega.Succeed())
			}
		}
		for _, c := range children {
			f.ExpectTried(ctx, c)
		}
		gomega.Consistently(ctx, boundCounts).WithArguments(children).
			WithTimeout(framework.QuietWindow).Should(gomega.Equal([]int{0, 0, 0}), "with room for one child only, no child is bound (watched for 5s)")
		gomega.Expect(fillers.Finish(ctx, f.Client)).To(gomega.Succeed())
		expectSettles(ctx, children, gomega.ConsistOf(2, 2, 0), "once the single pods finish, two children are bound whole, the third not at all")
	})

	ginkgo.It("bind the children that fit whole after an earlier child that fails partway, which leaves no node taken (watched for 5s)", func(ctx context.Context) {
		// Four 8-GPU nodes; minGroupCount 2. Child a, tried first (children
		// go in creation order), places four of its five members and fails;
		// b and c need all four nodes, so they fit only if a's four
		// placements are undone before them.
		children := composite(ctx, s, s.Slice(ctx, "gpu-8x", 4, 4), "partway", 2, 5, 2, 2)
		for _, c := range children {
			gomega.Expect(c.CreatePods(ctx, f.Client, 0, c.Members)).To(gomega.Succeed())
		}
		expectSettles(ctx, children, gomega.Equal([]int{0, 2, 2}), "children b and c are bound whole, a not at all")
	})
})
