package preflight

import (
	"context"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
)

// The alpha gates of the alpha profile (semantics items 21-24).
const (
	GateTopology         = "TopologyAwareWorkloadScheduling"
	GateComposite        = "CompositePodGroup"
	GatePreemptionPolicy = "PodGroupPreemptionPolicy"
	GateWorkloadWithJob  = "WorkloadWithJob"
)

// AlphaGates lists them in the order the preflight reports them.
var AlphaGates = []string{GateTopology, GateComposite, GatePreemptionPolicy, GateWorkloadWithJob}

// ProbeAlpha finds out from the API server which alpha gates it has on: for
// each gate, "" when its API is there, else why the alpha specs that need
// it are skipped. Each probe is a dry-run create whose gated field the API
// server drops while the gate is off, or a discovery look-up. The scheduler
// under test and the controller manager cannot be asked; specs check what
// they do.
func ProbeAlpha(ctx context.Context, cs kubernetes.Interface) (map[string]string, error) {
	ns := metav1.NamespaceDefault
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	out := map[string]string{}
	group := func(name string, edit func(*schedulingv1beta1.PodGroup)) (*schedulingv1beta1.PodGroup, error) {
		pg, err := fixtures.PodGroup()
		if err != nil {
			return nil, err
		}
		pg.Namespace, pg.Name = ns, "gangconf-preflight-"+name
		pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}}
		edit(pg)
		return cs.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, dry)
	}
	// Any answer but a served API dropping or keeping the field is a
	// problem of the probe, except an API that is not served at all.
	judge := func(gate string, err error, kept bool, lost string) error {
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
			out[gate] = fmt.Sprintf("the cluster does not serve the PodGroup API, so not %s either", gate)
		case apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || (err == nil && !kept):
			out[gate] = fmt.Sprintf("the API server lacks the alpha gate %s (%s); start it with --feature-gates=%s=true%s, and the same gate on the scheduler and controller manager",
				gate, lost, gate, runtimeHint(gate))
		case err != nil:
			return fmt.Errorf("preflight: probe of %s: %w", gate, err)
		default:
			out[gate] = ""
		}
		return nil
	}

	pg, err := group("topology", func(pg *schedulingv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
			Topology: []schedulingv1beta1.TopologyConstraint{{Key: fixtures.LabelRack}}}
	})
	if err := judge(GateTopology, err, err == nil && pg.Spec.SchedulingConstraints != nil,
		"a dry-run PodGroup lost spec.schedulingConstraints"); err != nil {
		return nil, err
	}

	// A PodGroup's preemptionPolicy is defaulted only with the gate on.
	pg, err = group("preemption", func(*schedulingv1beta1.PodGroup) {})
	if err := judge(GatePreemptionPolicy, err, err == nil && pg.Spec.PreemptionPolicy != nil,
		"a dry-run PodGroup got no spec.preemptionPolicy"); err != nil {
		return nil, err
	}

	// CompositePodGroups are served in v1alpha3 only, and a PodGroup keeps
	// its parent only with the gate on.
	served := false
	if list, err := cs.Discovery().ServerResourcesForGroupVersion(schedulingv1alpha3.SchemeGroupVersion.String()); err == nil {
		served = slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "compositepodgroups" })
	}
	parent := "gangconf-preflight-parent"
	pg, err = group("composite", func(pg *schedulingv1beta1.PodGroup) {
		pg.Spec.ParentCompositePodGroupName = &parent
		pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "gangconf-preflight", TemplateName: "child"}
	})
	if err := judge(GateComposite, err, err == nil && pg.Spec.ParentCompositePodGroupName != nil,
		"a dry-run PodGroup lost spec.parentCompositePodGroupName"); err != nil {
		return nil, err
	}
	if out[GateComposite] == "" && !served {
		out[GateComposite] = fmt.Sprintf("the API server does not serve compositepodgroups in %s; start it with --runtime-config=%s=true",
			schedulingv1alpha3.SchemeGroupVersion, schedulingv1alpha3.SchemeGroupVersion)
	}

	job, err := cs.BatchV1().Jobs(ns).Create(ctx, probeJob(ns), dry)
	if err := judge(GateWorkloadWithJob, err, err == nil && job.Spec.Scheduling != nil,
		"a dry-run Job lost spec.scheduling"); err != nil {
		return nil, err
	}
	if _, err := cs.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		// Without the PodGroup API a Job's Workload cannot exist either.
		out[GateWorkloadWithJob] = fmt.Sprintf("the cluster does not serve the PodGroup API, so not %s either", GateWorkloadWithJob)
	}
	return out, nil
}

func runtimeHint(gate string) string {
	if gate == GateComposite {
		return " --runtime-config=" + schedulingv1alpha3.SchemeGroupVersion.String() + "=true"
	}
	return ""
}

// probeJob is a one-pod gang Job, for a dry-run create only.
func probeJob(ns string) *batchv1.Job {
	one := int32(1)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gangconf-preflight"},
		Spec: batchv1.JobSpec{
			Parallelism: &one,
			Scheduling: &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
				Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: &one}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "worker", Image: "gangconf-worker:fake"}},
			}},
		},
	}
}
