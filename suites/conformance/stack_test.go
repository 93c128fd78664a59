package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/admission"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/gang"
	"github.com/gangconf/gangconf/suites/framework/preflight"
)

// The stack profile: an admission controller (Kueue, ADMISSION=kueue)
// admits Jobs against a queue's quota in front of the scheduler under test,
// on the alpha cluster, where the Job controller gives each Job with
// spec.scheduling a Workload and a gang PodGroup. The question is the one a
// platform team asks: is the whole stack still all-or-nothing? The specs
// follow kubernetes-sigs/ai-conformance's KAR-0053 test plan and the ways a
// quota can meet a gang. Every 8-GPU pod is one unit of the queue's quota.
// On kwok's nodes a Job's pods complete as soon as they run (kwok's
// pod-complete stage), and the Job with them, which frees its quota and
// nodes: a gang "runs" here when all its pods were bound (a completed pod
// keeps its node), and a gang holds quota while the specs watch only as
// long as its pods wait for nodes.

// stackDyn is this process's client for Kueue's objects.
var stackDyn dynamic.Interface

func stackClient() dynamic.Interface {
	ginkgo.GinkgoHelper()
	if stackDyn == nil {
		cfg, err := cluster.RESTConfig(f.Kubeconfig)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		stackDyn, err = dynamic.NewForConfig(cfg)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	return stackDyn
}

// stackSpecs sets *s before each spec of the container to a new Spec, and
// skips the spec unless an admission controller runs in front of the
// scheduler and the Job controller makes PodGroups (WorkloadWithJob).
func stackSpecs(s **framework.Spec) {
	ginkgo.BeforeEach(func(ctx context.Context) {
		if f.Admission == "" {
			ginkgo.Skip("no admission controller in front of the scheduler: the stack profile runs with ADMISSION=kueue on CLUSTER=ci-alpha (make conformance-stack)")
		}
		f.RequireGates(preflight.GateWorkloadWithJob)
		*s = f.NewSpec(ctx)
	})
}

// gpusPerPod is what each member of a stack Job asks for: one node.
const gpusPerPod = 8

// stackQueue makes the spec's queue with a quota of pods 8-GPU pods, and
// waits until Kueue reports it Active.
func stackQueue(ctx context.Context, s *framework.Spec, pods int64) admission.Queue {
	ginkgo.GinkgoHelper()
	q := admission.Queue{Name: s.ID, Namespace: s.Namespace, Resource: fixtures.ResourceGPU}
	gomega.Expect(q.Create(ctx, stackClient(), pods*gpusPerPod, map[string]string{framework.LabelRun: f.RunID})).To(gomega.Succeed())
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		if err := q.Delete(ctx, stackClient()); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
	gomega.Eventually(ctx, func(ctx context.Context) (bool, error) {
		return q.Active(ctx, stackClient())
	}).WithTimeout(framework.Patience).Should(gomega.BeTrue(), "Kueue reports the ClusterQueue and the LocalQueue Active")
	return q
}

// stackJob creates an indexed gang Job of n 8-GPU pods on the slice, in the
// queue: gangJob's Job with the queue's label (and, on the crafted broken
// stack, the annotation that lets Kueue admit part of it). Kueue's webhook
// must suspend it and keep its spec.scheduling, a field Kueue's own copy of
// the Job type (Kubernetes v0.35) does not know.
func stackJob(ctx context.Context, s *framework.Spec, sl *cluster.Slice, q admission.Queue, name string, n int32) *batchv1.Job {
	ginkgo.GinkgoHelper()
	job := gangJobSpec(s, sl, name, n, false)
	job.Labels = map[string]string{admission.QueueLabel: q.Name}
	if k, err := admission.Lookup(f.Admission); err == nil && k.MinParallelism != "" {
		job.Annotations = map[string]string{admission.MinParallelismAnnotation: k.MinParallelism}
	}
	job, err := f.Client.BatchV1().Jobs(s.Namespace).Create(ctx, job, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create Job %s", name)
	gomega.Expect(job.Spec.Scheduling).NotTo(gomega.BeNil(), "spec.scheduling survives the admission webhooks")
	gomega.Expect(job.Spec.Suspend).To(gomega.HaveValue(gomega.BeTrue()), "the admission controller's webhook suspends a Job that names its queue")
	return job
}

// jobView is what a user sees of a stack Job.
type jobView struct {
	Suspended           bool
	Pods, Bound, Tried  int
	Running             int
	Groups              []string
	Parallelism, Needed int32
}

// state is the view in a few words, for assertions that compare jobs.
func (v jobView) state() string {
	if v.Suspended && v.Pods == 0 {
		return "suspended, no pod"
	}
	s := fmt.Sprintf("%d of %d pods bound", v.Bound, v.Needed)
	if v.Suspended {
		s += ", suspended"
	}
	if v.Parallelism != v.Needed {
		s += fmt.Sprintf(", parallelism %d", v.Parallelism)
	}
	return s
}

func viewJob(ctx context.Context, job *batchv1.Job) (jobView, error) {
	j, err := f.Client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
	if err != nil {
		return jobView{}, err
	}
	pods, err := jobPods(ctx, job)
	if err != nil {
		return jobView{}, err
	}
	v := jobView{Suspended: j.Spec.Suspend != nil && *j.Spec.Suspend, Pods: len(pods), Needed: *job.Spec.Parallelism}
	if j.Spec.Parallelism != nil {
		v.Parallelism = *j.Spec.Parallelism
	}
	groups := map[string]bool{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Spec.NodeName != "" {
			v.Bound++
		}
		if p.Spec.NodeName != "" || framework.PodUnschedulable(&p) {
			v.Tried++
		}
		if p.Status.Phase == corev1.PodRunning {
			v.Running++
		}
		group := "<none>"
		if p.Spec.SchedulingGroup != nil && p.Spec.SchedulingGroup.PodGroupName != nil {
			group = *p.Spec.SchedulingGroup.PodGroupName
		}
		groups[group] = true
	}
	for g := range groups {
		v.Groups = append(v.Groups, g)
	}
	sort.Strings(v.Groups)
	return v, nil
}

// jobState is viewJob's state, for Eventually and Consistently.
func jobState(job *batchv1.Job) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		v, err := viewJob(ctx, job)
		return v.state(), err
	}
}

// kueueWorkload is Kueue's Workload of the Job (Kueue names it
// job-<name>-<hash>).
func kueueWorkload(ctx context.Context, job *batchv1.Job) (admission.WorkloadState, error) {
	l, err := admission.KueueWorkloads(ctx, stackClient(), job.Namespace)
	if err != nil {
		return admission.WorkloadState{}, err
	}
	for _, w := range l {
		if strings.HasPrefix(w.Name, "job-"+job.Name+"-") {
			return w, nil
		}
	}
	return admission.WorkloadState{}, fmt.Errorf("no Kueue Workload of Job %s yet", job.Name)
}

// expectRefused waits until Kueue has tried the Job's Workload and could not
// reserve quota for it; only then does a "nothing happens" window mean
// anything.
func expectRefused(ctx context.Context, job *batchv1.Job, why string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (admission.WorkloadState, error) {
		return kueueWorkload(ctx, job)
	}).WithTimeout(framework.Patience).Should(gomega.And(gomega.HaveField("Refused", true), gomega.HaveField("Admitted", false)), why)
}

// expectHeld checks that the Job stays suspended with no pod for
// QuietWindow.
func expectHeld(ctx context.Context, job *batchv1.Job, why string) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, jobState(job)).WithTimeout(framework.QuietWindow).Should(gomega.Equal("suspended, no pod"),
		fmt.Sprintf("%s (watched for %s)", why, framework.QuietWindow))
}

// expectRunsWhole waits until all n pods of the Job are bound,
// and checks that they name one PodGroup, a gang of minCount n: the Job's
// spec.scheduling went through the stack.
func expectRunsWhole(ctx context.Context, job *batchv1.Job, why string) {
	ginkgo.GinkgoHelper()
	n := int(*job.Spec.Parallelism)
	gomega.Eventually(ctx, jobState(job)).WithTimeout(2*framework.Patience).Should(gomega.Equal(fmt.Sprintf("%d of %d pods bound", n, n)), why)
	v, err := viewJob(ctx, job)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(v.Groups).To(gomega.HaveLen(1), "every pod of Job %s names one PodGroup", job.Name)
	gomega.Expect(v.Groups[0]).NotTo(gomega.Equal("<none>"), "the pods of Job %s name a PodGroup", job.Name)
	pg, err := f.Client.SchedulingV1beta1().PodGroups(job.Namespace).Get(ctx, v.Groups[0], metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(pg.Spec.SchedulingPolicy.Gang).To(gomega.HaveValue(gomega.HaveField("MinCount", int32(n))),
		"Job %s's PodGroup is a gang of minCount %d", job.Name, n)
}

// expectAdmittedNoneBound waits until Kueue has admitted the Job and the
// scheduler has tried every one of its pods, then checks that none is bound
// for QuietWindow.
func expectAdmittedNoneBound(ctx context.Context, job *batchv1.Job, why string) {
	ginkgo.GinkgoHelper()
	n := int(*job.Spec.Parallelism)
	gomega.Eventually(ctx, func(ctx context.Context) (admission.WorkloadState, error) {
		return kueueWorkload(ctx, job)
	}).WithTimeout(framework.Patience).Should(gomega.HaveField("Admitted", true), "the admission controller admits Job %s: its quota suffices", job.Name)
	gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
		v, err := viewJob(ctx, job)
		return fmt.Sprintf("suspended %t, %d pods, %d tried", v.Suspended, v.Pods, v.Tried), err
	}).WithTimeout(framework.Patience).Should(gomega.Equal(fmt.Sprintf("suspended false, %d pods, %d tried", n, n)),
		"Job %s runs and the scheduler has tried all its pods", job.Name)
	gomega.Consistently(ctx, jobState(job)).WithTimeout(framework.QuietWindow).Should(gomega.Equal(fmt.Sprintf("0 of %d pods bound", n)),
		fmt.Sprintf("%s (watched for %s after every pod was tried)", why, framework.QuietWindow))
}

var _ = ginkgo.Describe("Admission in front of the scheduler", ginkgo.Label("profile:stack", "area:stack", "item:8"), func() {
	var s *framework.Spec
	stackSpecs(&s)

	ginkgo.It("KAR-0053: a Job gang that fits quota and capacity runs all its pods; one whose quota is then short runs none (watched for 5s)", func(ctx context.Context) {
		// Three nodes; a quota of two pods: room for either gang, quota for
		// the first alone.
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		q := stackQueue(ctx, s, 2)
		first := stackJob(ctx, s, sl, q, "fits", 2)
		expectRunsWhole(ctx, first, "a gang of 2 within quota and capacity runs all its pods")
		second := stackJob(ctx, s, sl, q, "over-quota", 3)
		expectRefused(ctx, second, "the admission controller cannot reserve quota for a gang of 3 in a quota of 2 pods")
		expectHeld(ctx, second, "a gang whose quota is short stays suspended and runs no pod, though the nodes have room")
	})

	ginkgo.It("KAR-0053: a Job gang that fits quota and capacity runs all its pods; one whose capacity is then short runs none (watched for 5s after every pod was tried)", func(ctx context.Context) {
		// Two nodes; quota for five pods: quota for both gangs, room for
		// the first alone.
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		q := stackQueue(ctx, s, 5)
		first := stackJob(ctx, s, sl, q, "fits", 2)
		expectRunsWhole(ctx, first, "a gang of 2 within quota and capacity runs all its pods")
		second := stackJob(ctx, s, sl, q, "over-capacity", 3)
		expectAdmittedNoneBound(ctx, second, "a gang of 3 admitted with room for 2 pods binds none")
	})
})

var _ = ginkgo.Describe("Admission in front of the scheduler", ginkgo.Label("profile:stack", "area:stack", "item:8", "item:15"), func() {
	var s *framework.Spec
	stackSpecs(&s)

	ginkgo.It("a gang whose quota is smaller than the gang stays suspended with no pod bound (watched for 5s); once the quota grows, the whole gang binds", func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 3, 3)
		q := stackQueue(ctx, s, 2)
		job := stackJob(ctx, s, sl, q, "big", 3)
		expectRefused(ctx, job, "the admission controller cannot reserve quota for a gang of 3 in a quota of 2 pods")
		expectHeld(ctx, job, "a gang larger than its quota stays suspended and runs no pod")
		gomega.Expect(f.Client.SchedulingV1beta1().PodGroups(s.Namespace).List(ctx, metav1.ListOptions{})).To(
			gomega.HaveField("Items", gomega.HaveEach(gomega.HaveField("Spec.SchedulingPolicy.Gang", gomega.HaveValue(gomega.HaveField("MinCount", int32(3)))))),
			"any PodGroup of the Job is the whole gang")
		gomega.Expect(q.SetQuota(ctx, stackClient(), 3*gpusPerPod)).To(gomega.Succeed())
		expectRunsWhole(ctx, job, "once the quota holds the gang, all 3 pods are bound")
	})

	ginkgo.It("a gang admitted within quota but short of capacity binds no pod (watched for 5s after every pod was tried); once capacity frees, the whole gang binds", func(ctx context.Context) {
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		// A pod outside the queue fills one of the two nodes.
		s.Occupy(ctx, sl, sl.Nodes.Node(0).Name, "occupant", gang.GPUs(gpusPerPod))
		q := stackQueue(ctx, s, 2)
		job := stackJob(ctx, s, sl, q, "waits", 2)
		expectAdmittedNoneBound(ctx, job, "an admitted gang of 2 with room for 1 pod binds none")
		zero := int64(0)
		gomega.Expect(f.Client.CoreV1().Pods(s.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
			metav1.ListOptions{LabelSelector: s.Gang("occupant", sl).Selector()})).To(gomega.Succeed())
		expectRunsWhole(ctx, job, "once the occupant is gone, both pods are bound")
	})
})

var _ = ginkgo.Describe("Admission in front of the scheduler", ginkgo.Label("profile:stack", "area:stack", "item:11"), func() {
	var s *framework.Spec
	stackSpecs(&s)

	ginkgo.It("two gangs competing for one queue's quota: one is admitted and waits whole for a node, the other waits whole, suspended with no pod (watched for 5s); once a node frees, both run whole, one after the other", func(ctx context.Context) {
		// Two nodes, one of them taken; the quota of three pods holds one
		// gang of two. The admitted gang waits for the node, holding the
		// quota, so the other has to wait for the quota.
		sl := s.Slice(ctx, "gpu-8x", 2, 2)
		s.Occupy(ctx, sl, sl.Nodes.Node(0).Name, "occupant", gang.GPUs(gpusPerPod))
		q := stackQueue(ctx, s, 3)
		a := stackJob(ctx, s, sl, q, "gang-a", 2)
		b := stackJob(ctx, s, sl, q, "gang-b", 2)
		both := func(ctx context.Context) ([]string, error) {
			sa, err := jobState(a)(ctx)
			if err != nil {
				return nil, err
			}
			sb, err := jobState(b)(ctx)
			return []string{sa, sb}, err
		}
		gomega.Eventually(ctx, both).WithTimeout(framework.Patience).Should(gomega.ConsistOf("0 of 2 pods bound", "suspended, no pod"),
			"one gang is admitted and waits for a node, the other waits for quota")
		loser := b
		if st, _ := jobState(a)(ctx); st == "suspended, no pod" {
			loser = a
		}
		expectRefused(ctx, loser, "the admission controller cannot reserve quota for the second gang")
		gomega.Consistently(ctx, both).WithTimeout(framework.QuietWindow).Should(gomega.ConsistOf("0 of 2 pods bound", "suspended, no pod"),
			fmt.Sprintf("neither gang is partly bound or partly admitted (watched for %s)", framework.QuietWindow))
		zero := int64(0)
		gomega.Expect(f.Client.CoreV1().Pods(s.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
			metav1.ListOptions{LabelSelector: s.Gang("occupant", sl).Selector()})).To(gomega.Succeed())
		expectRunsWhole(ctx, a, "once a node frees, gang-a runs whole")
		expectRunsWhole(ctx, b, "gang-b runs whole too: nothing deadlocks")
	})
})
