package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework"
)

// Semantics item 1.
var _ = ginkgo.Describe("PodGroup API", ginkgo.Label("profile:core", "area:api"), func() {
	ginkgo.It("serves Workload and PodGroup in scheduling.k8s.io/v1beta1", ginkgo.Label("item:1"), func(ctx context.Context) {
		list, err := f.Client.Discovery().ServerResourcesForGroupVersion(schedulingv1beta1.SchemeGroupVersion.String())
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the API server does not serve %s", schedulingv1beta1.SchemeGroupVersion)
		var names []string
		for _, r := range list.APIResources {
			names = append(names, r.Name)
		}
		gomega.Expect(names).To(gomega.ContainElements("workloads", "podgroups", "podgroups/status"))
	})

	ginkgo.It("a PodGroup can be created, read, listed, patched, updated and deleted", ginkgo.Label("item:1"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		pgs := f.Client.SchedulingV1beta1().PodGroups(s.Namespace)
		pg, err := pgs.Create(ctx, newPodGroup(s), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create")
		got, err := pgs.Get(ctx, pg.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "get")
		gomega.Expect(got.Spec.SchedulingPolicy.Gang.MinCount).To(gomega.BeEquivalentTo(2))
		list, err := pgs.List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "list")
		gomega.Expect(list.Items).To(gomega.HaveLen(1))
		_, err = pgs.Patch(ctx, pg.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "patch")
		got, err = pgs.Get(ctx, pg.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got.Spec.SchedulingPolicy.Gang.MinCount = 3
		got, err = pgs.Update(ctx, got, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "update")
		gomega.Expect(got.Labels).To(gomega.HaveKeyWithValue("patched", "yes"))
		gomega.Expect(got.Spec.SchedulingPolicy.Gang.MinCount).To(gomega.BeEquivalentTo(3))
		gomega.Expect(pgs.Delete(ctx, pg.Name, metav1.DeleteOptions{})).To(gomega.Succeed(), "delete")
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := pgs.Get(ctx, pg.Name, metav1.GetOptions{})
			return err
		}).WithTimeout(framework.Patience).Should(gomega.Satisfy(apierrors.IsNotFound), "a PodGroup with no members is gone after delete")
	})

	ginkgo.It("PodGroup status is written through the /status subresource, and not through the PodGroup itself", ginkgo.Label("item:1"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		pgs := f.Client.SchedulingV1beta1().PodGroups(s.Namespace)
		pg, err := pgs.Create(ctx, newPodGroup(s), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cond := func(t string) metav1.Condition {
			return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "Test", LastTransitionTime: metav1.Now()}
		}
		pg.Status.Conditions = []metav1.Condition{cond("ThroughMainResource")}
		pg, err = pgs.Update(ctx, pg, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(meta.FindStatusCondition(pg.Status.Conditions, "ThroughMainResource")).To(gomega.BeNil(), "an update of the PodGroup leaves its status alone")
		pg.Status.Conditions = []metav1.Condition{cond("ThroughStatus")}
		pg, err = pgs.UpdateStatus(ctx, pg, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(meta.FindStatusCondition(pg.Status.Conditions, "ThroughStatus")).NotTo(gomega.BeNil(), "the /status subresource writes status")
	})

	ginkgo.It("a Workload can be created, read, listed, updated and deleted", ginkgo.Label("item:1"), func(ctx context.Context) {
		s := f.NewSpec(ctx)
		ws := f.Client.SchedulingV1beta1().Workloads(s.Namespace)
		w, err := fixtures.Workload()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		w.Name = "train"
		_, err = ws.Create(ctx, w, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create")
		list, err := ws.List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "list")
		gomega.Expect(list.Items).To(gomega.HaveLen(1))
		got, err := ws.Get(ctx, "train", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "get")
		got.Labels = map[string]string{"updated": "yes"}
		_, err = ws.Update(ctx, got, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "update")
		gomega.Expect(ws.Delete(ctx, "train", metav1.DeleteOptions{})).To(gomega.Succeed(), "delete")
	})
})

// Semantics item 2.
var _ = ginkgo.Describe("PodGroup API", ginkgo.Label("profile:core", "area:api"), func() {
	ginkgo.Context("a pod's spec.schedulingGroup", ginkgo.Label("item:2"), func() {
		var s *framework.Spec
		var pod *corev1.Pod
		ginkgo.BeforeEach(func(ctx context.Context) {
			s = f.NewSpec(ctx)
			// No PodGroup "nowhere" exists, and none is created.
			p, err := s.GPUGang("nowhere", nil, 1, 1, 1).Pod(0)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			pod, err = f.Client.CoreV1().Pods(s.Namespace).Create(ctx, p, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a pod may name a PodGroup that does not exist yet")
		})

		ginkgo.It("is kept, even when it names a PodGroup that does not exist yet", func(ctx context.Context) {
			got, err := f.Client.CoreV1().Pods(s.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(got.Spec.SchedulingGroup).NotTo(gomega.BeNil(), "the API server dropped spec.schedulingGroup")
			gomega.Expect(got.Spec.SchedulingGroup.PodGroupName).To(gomega.HaveValue(gomega.Equal("nowhere")))
		})

		ginkgo.It("cannot be changed", func(ctx context.Context) {
			patch := []byte(`{"spec":{"schedulingGroup":{"podGroupName":"elsewhere"}}}`)
			_, err := f.Client.CoreV1().Pods(s.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			gomega.Expect(err).To(gomega.HaveOccurred(), "the pod's PodGroup was changed")
			gomega.Expect(apierrors.IsInvalid(err) || apierrors.IsForbidden(err)).To(gomega.BeTrue(), "want a rejection, got %v", err)
			got, err := f.Client.CoreV1().Pods(s.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(got.Spec.SchedulingGroup).NotTo(gomega.BeNil())
			gomega.Expect(got.Spec.SchedulingGroup.PodGroupName).To(gomega.HaveValue(gomega.Equal("nowhere")))
		})
	})
})

// Semantics item 4.
var _ = ginkgo.Describe("PodGroup priority", ginkgo.Label("profile:core", "area:api", "item:4"), func() {
	create := func(ctx context.Context, class string, priority *int32) (*schedulingv1beta1.PodGroup, error) {
		s := f.NewSpec(ctx)
		g := s.GPUGang("prio", nil, 1, 0, 0)
		g.PriorityClassName = class
		pg, err := g.PodGroup()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		pg.Spec.Priority = priority
		return f.Client.SchedulingV1beta1().PodGroups(s.Namespace).Create(ctx, pg, metav1.CreateOptions{})
	}

	ginkgo.It("comes from its priorityClassName", func(ctx context.Context) {
		pg, err := create(ctx, "gangconf-medium", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Spec.Priority).To(gomega.HaveValue(gomega.BeEquivalentTo(1000)), "gangconf-medium has value 1000")
	})

	ginkgo.It("is the global default class's, or 0, when no class is named", func(ctx context.Context) {
		want := int32(0)
		classes, err := f.Client.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, pc := range classes.Items {
			if pc.GlobalDefault {
				want = pc.Value
			}
		}
		pg, err := create(ctx, "", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(pg.Spec.Priority).To(gomega.HaveValue(gomega.Equal(want)))
	})

	ginkgo.It("a spec.priority that disagrees with the class is rejected", func(ctx context.Context) {
		wrong := int32(5)
		_, err := create(ctx, "gangconf-medium", &wrong)
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "want 403 Forbidden from priority admission, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(fmt.Sprint(wrong)))
	})

	ginkgo.It("a PodGroup naming an unknown priority class is rejected", func(ctx context.Context) {
		_, err := create(ctx, "gangconf-no-such-class", nil)
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "want 403 Forbidden from priority admission, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("gangconf-no-such-class"))
	})
})
