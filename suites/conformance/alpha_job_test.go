package conformance

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/preflight"
)

// gangJob creates an indexed Job of n 8-GPU pods on the slice, with
// spec.scheduling asking for a gang (minCount left to the controller, which
// takes the parallelism), in one rack when rack is set.
func gangJob(ctx context.Context, s *framework.Spec, sl *cluster.Slice, name string, n int32, rack bool) *batchv1.Job {
	ginkgo.GinkgoHelper()
	job, err := f.Client.BatchV1().Jobs(s.Namespace).Create(ctx, gangJobSpec(s, sl, name, n, rack), metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create Job %s", name)
	gomega.Expect(job.Spec.Scheduling).NotTo(gomega.BeNil(), "the API server keeps spec.scheduling")
	return job
}

// gangJobSpec is the Job gangJob creates.
func gangJobSpec(s *framework.Spec, sl *cluster.Slice, name string, n int32, rack bool) *batchv1.Job {
	ginkgo.GinkgoHelper()
	// The member pod template, pinned to the slice, is the Job's template.
	pod, err := (&gang.Gang{Namespace: s.Namespace, Name: name, Standalone: true, SchedulerName: f.SchedulerName,
		Requests: gang.GPUs(8), Pin: sl.Pin}).Pod(0)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	indexed := batchv1.IndexedCompletion
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name},
		Spec: batchv1.JobSpec{
			Parallelism: &n, Completions: &n, CompletionMode: &indexed,
			Scheduling: &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
				Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels}, Spec: pod.Spec},
		},
	}
	if rack {
		job.Spec.Scheduling.SchedulingConstraints = &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{
			Topology: []schedulingv1alpha3.TopologyConstraint{{Key: fixtures.LabelRack}}}
	}
	return job
}

// jobPods lists the Job's pods.
func jobPods(ctx context.Context, job *batchv1.Job) ([]corev1.Pod, error) {
	l, err := f.Client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// podGroups lists the namespace's PodGroups.
func podGroups(ns string) func(context.Context) ([]schedulingv1beta1.PodGroup, error) {
	return func(ctx context.Context) ([]schedulingv1beta1.PodGroup, error) {
		l, err := f.Client.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	}
}

// expectOne waits until list finds exactly one object, and returns it.
func expectOne[T any](ctx context.Context, list func(context.Context) ([]T, error), why string) T {
	ginkgo.GinkgoHelper()
	var found []T
	gomega.Eventually(ctx, func(ctx context.Context) ([]T, error) {
		var err error
		found, err = list(ctx)
		return found, err
	}).WithTimeout(framework.Patience).Should(gomega.HaveLen(1), why)
	return found[0]
}

// Semantics item 24 (WorkloadWithJob, in kube-controller-manager's Job
// controller).
var _ = ginkgo.Describe("Jobs with spec.scheduling", ginkgo.Label("profile:alpha", "area:job", "item:24"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GateWorkloadWithJob)

	ginkgo.It("a gang Job gets a Workload and a PodGroup, and its pods name that PodGroup and are bound", func(ctx context.Context) {
		job := gangJob(ctx, s, s.Slice(ctx, "gpu-8x", 2, 2), "trainer", 2, false)

		wl := expectOne(ctx, func(ctx context.Context) ([]schedulingv1beta1.Workload, error) {
			l, err := f.Client.SchedulingV1beta1().Workloads(s.Namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			return l.Items, nil
		}, "the Job controller creates one Workload")
		gomega.Expect(wl.Spec.ControllerRef).To(gomega.HaveValue(gomega.And(
			gomega.HaveField("APIGroup", batchv1.GroupName), gomega.HaveField("Kind", "Job"), gomega.HaveField("Name", job.Name))),
			"the Workload's controllerRef names the Job")
		gomega.Expect(metav1.IsControlledBy(&wl, job)).To(gomega.BeTrue(), "the Job owns the Workload")
		gomega.Expect(wl.Spec.PodGroupTemplates).To(gomega.HaveLen(1), "one PodGroup template")
		tmpl := wl.Spec.PodGroupTemplates[0]
		gomega.Expect(tmpl.SchedulingPolicy.Gang).To(gomega.HaveValue(gomega.HaveField("MinCount", int32(2))), "a gang whose minCount is the Job's parallelism")

		pg := expectOne(ctx, podGroups(s.Namespace), "the Job controller creates one PodGroup")
		gomega.Expect(pg.Spec.WorkloadRef).To(gomega.HaveValue(gomega.Equal(schedulingv1beta1.WorkloadReference{WorkloadName: wl.Name, TemplateName: tmpl.Name})),
			"the PodGroup refers to the Workload's template")
		gomega.Expect(pg.Spec.SchedulingPolicy.Gang).To(gomega.HaveValue(gomega.HaveField("MinCount", int32(2))))
		gomega.Expect(metav1.IsControlledBy(&pg, job)).To(gomega.BeTrue(), "the Job owns the PodGroup")

		gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
			pods, err := jobPods(ctx, job)
			var where []string
			for _, p := range pods {
				group := "<none>"
				if p.Spec.SchedulingGroup != nil && p.Spec.SchedulingGroup.PodGroupName != nil {
					group = *p.Spec.SchedulingGroup.PodGroupName
				}
				where = append(where, fmt.Sprintf("%s bound=%t", group, p.Spec.NodeName != ""))
			}
			return where, err
		}).WithTimeout(framework.Patience).Should(gomega.ConsistOf(pg.Name+" bound=true", pg.Name+" bound=true"),
			"both pods name the PodGroup and are bound")
	})
})

// Semantics item 24 (continued).
var _ = ginkgo.Describe("Jobs with spec.scheduling", ginkgo.Label("profile:alpha", "area:job", "item:24"), func() {
	var s *framework.Spec
	gatedSpecs(&s, preflight.GateWorkloadWithJob)

	ginkgo.It("a gang Job whose pods cannot all fit binds none of them (watched for 5s after every pod was tried)", func(ctx context.Context) {
		// Two 8-GPU nodes, three 8-GPU pods.
		job := gangJob(ctx, s, s.Slice(ctx, "gpu-8x", 2, 2), "too-big", 3, false)
		states := func(ctx context.Context) ([]string, error) {
			pods, err := jobPods(ctx, job)
			var out []string
			for _, p := range pods {
				switch {
				case p.Spec.NodeName != "":
					out = append(out, "bound")
				case framework.PodUnschedulable(&p):
					out = append(out, "unschedulable")
				default:
					out = append(out, "untried")
				}
			}
			return out, err
		}
		gomega.Eventually(ctx, states).WithTimeout(framework.Patience).Should(gomega.SatisfyAll(gomega.HaveLen(3), gomega.Not(gomega.ContainElement("untried"))),
			"the scheduler has tried all three pods")
		gomega.Consistently(ctx, states).WithTimeout(framework.QuietWindow).ShouldNot(gomega.ContainElement("bound"), "no pod is bound (watched for 5s)")
	})

	ginkgo.It("a Job's topology constraint reaches its PodGroup, and its gang is placed in one rack, though the emptiest node is in another", func(ctx context.Context) {
		f.RequireGates(preflight.GateTopology)
		sl := oneRackFits(ctx, s)
		job := gangJob(ctx, s, sl, "racked", 2, true)
		gomega.Eventually(ctx, podGroups(s.Namespace)).WithTimeout(framework.Patience).Should(gomega.ConsistOf(gomega.HaveField("Spec.SchedulingConstraints",
			gomega.HaveValue(gomega.HaveField("Topology", gomega.ConsistOf(gomega.HaveField("Key", fixtures.LabelRack)))))),
			"the Job's PodGroup carries its rack constraint")
		gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
			pods, err := jobPods(ctx, job)
			var nodes []string
			for _, p := range pods {
				nodes = append(nodes, p.Spec.NodeName)
			}
			return nodes, err
		}).WithTimeout(framework.Patience).Should(gomega.ConsistOf(sl.Nodes.Node(2).Name, sl.Nodes.Node(3).Name), "both pods are bound in rack-1")
	})
})
