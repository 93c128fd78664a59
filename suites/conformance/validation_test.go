package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework"
)

// newPodGroup is a valid gang PodGroup of quorum 2 in the spec's namespace.
func newPodGroup(s *framework.Spec) *schedulingv1beta1.PodGroup {
	ginkgo.GinkgoHelper()
	pg, err := s.GPUGang("pg", nil, 2, 0, 0).PodGroup()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return pg
}

// newWorkload is a valid Workload with n gang templates.
func newWorkload(s *framework.Spec, n int) *schedulingv1beta1.Workload {
	ginkgo.GinkgoHelper()
	w, err := fixtures.Workload()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	w.Namespace, w.Name = s.Namespace, "wl"
	tmpl := w.Spec.PodGroupTemplates[0]
	w.Spec.PodGroupTemplates = nil
	for i := 0; i < n; i++ {
		t := *tmpl.DeepCopy()
		t.Name = fmt.Sprintf("t%d", i)
		w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, t)
	}
	return w
}

// Semantics item 3: each rule is a table entry, the object and the field the
// rejection must name. A rejection counts only as a 422 naming that field.
var _ = ginkgo.Describe("Validation", ginkgo.Label("profile:core", "area:validation", "item:3"), func() {
	ginkgo.DescribeTable("rejects a new PodGroup",
		func(ctx context.Context, field string, mutate func(*schedulingv1beta1.PodGroup)) {
			s := f.NewSpec(ctx)
			pg := newPodGroup(s)
			mutate(pg)
			_, err := f.Client.SchedulingV1beta1().PodGroups(s.Namespace).Create(ctx, pg, metav1.CreateOptions{})
			framework.ExpectInvalid(err, field)
		},
		ginkgo.Entry("with both a basic and a gang policy", "spec.schedulingPolicy", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
		}),
		ginkgo.Entry("with no policy", "spec.schedulingPolicy", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{}
		}),
		ginkgo.Entry("with gang minCount 0", "spec.schedulingPolicy.gang.minCount", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy.Gang.MinCount = 0
		}),
		ginkgo.Entry("with a negative gang minCount", "spec.schedulingPolicy.gang.minCount", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy.Gang.MinCount = -1
		}),
		ginkgo.Entry("with both single and all disruption modes", "spec.disruptionMode", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}, All: &schedulingv1beta1.AllDisruptionMode{}}
		}),
	)

	ginkgo.DescribeTable("rejects a PodGroup update",
		func(ctx context.Context, field string, mutate func(*schedulingv1beta1.PodGroup)) {
			s := f.NewSpec(ctx)
			pgs := f.Client.SchedulingV1beta1().PodGroups(s.Namespace)
			pg, err := pgs.Create(ctx, newPodGroup(s), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			mutate(pg)
			_, err = pgs.Update(ctx, pg, metav1.UpdateOptions{})
			framework.ExpectInvalid(err, field)
		},
		ginkgo.Entry("that changes the policy from gang to basic", "spec.schedulingPolicy", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
		}),
		ginkgo.Entry("that changes the disruption mode", "spec.disruptionMode", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
		}),
		ginkgo.Entry("that changes the priority class", "spec.priorityClassName", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.PriorityClassName = "gangconf-high"
		}),
		ginkgo.Entry("that sets a workload reference", "spec.workloadRef", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "wl", TemplateName: "t0"}
		}),
	)

	ginkgo.It("accepts a change of a gang's minCount", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		pgs := f.Client.SchedulingV1beta1().PodGroups(s.Namespace)
		pg, err := pgs.Create(ctx, newPodGroup(s), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		pg.Spec.SchedulingPolicy.Gang.MinCount = 5
		pg, err = pgs.Update(ctx, pg, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Spec.SchedulingPolicy.Gang.MinCount).To(gomega.BeEquivalentTo(5))
	})

	ginkgo.It("defaults the disruption mode to single", func(ctx context.Context) {
		s := f.NewSpec(ctx)
		pg, err := f.Client.SchedulingV1beta1().PodGroups(s.Namespace).Create(ctx, newPodGroup(s), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Spec.DisruptionMode).NotTo(gomega.BeNil())
		gomega.Expect(pg.Spec.DisruptionMode.Single).NotTo(gomega.BeNil(), "disruptionMode defaults to single")
		gomega.Expect(pg.Spec.DisruptionMode.All).To(gomega.BeNil())
	})
})

// Semantics item 3 (continued).
var _ = ginkgo.Describe("Validation", ginkgo.Label("profile:core", "area:validation", "item:3"), func() {
	ginkgo.DescribeTable("rejects a new Workload",
		func(ctx context.Context, field string, templates int, mutate func(*schedulingv1beta1.Workload)) {
			s := f.NewSpec(ctx)
			w := newWorkload(s, templates)
			mutate(w)
			_, err := f.Client.SchedulingV1beta1().Workloads(s.Namespace).Create(ctx, w, metav1.CreateOptions{})
			framework.ExpectInvalid(err, field)
		},
		ginkgo.Entry("with more than 8 templates", "spec.podGroupTemplates", 9, func(*schedulingv1beta1.Workload) {}),
		ginkgo.Entry("whose templates differ in priority", "priority", 2, func(w *schedulingv1beta1.Workload) {
			w.Spec.PodGroupTemplates[0].PriorityClassName = "gangconf-low"
			w.Spec.PodGroupTemplates[1].PriorityClassName = "gangconf-high"
		}),
		ginkgo.Entry("with no templates", "podGroupTemplates", 0, func(*schedulingv1beta1.Workload) {}),
	)

	ginkgo.DescribeTable("rejects a Workload update",
		func(ctx context.Context, mutate func(*schedulingv1beta1.Workload)) {
			s := f.NewSpec(ctx)
			ws := f.Client.SchedulingV1beta1().Workloads(s.Namespace)
			w, err := ws.Create(ctx, newWorkload(s, 2), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			mutate(w)
			_, err = ws.Update(ctx, w, metav1.UpdateOptions{})
			framework.ExpectInvalid(err, "spec.podGroupTemplates")
		},
		ginkgo.Entry("that adds a template", func(w *schedulingv1beta1.Workload) {
			t := *w.Spec.PodGroupTemplates[0].DeepCopy()
			t.Name = "added"
			w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, t)
		}),
		ginkgo.Entry("that removes a template", func(w *schedulingv1beta1.Workload) {
			w.Spec.PodGroupTemplates = w.Spec.PodGroupTemplates[:1]
		}),
	)
})
