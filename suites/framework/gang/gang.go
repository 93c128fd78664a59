// Package gang builds PodGroups and their member pods from the fixtures'
// templates, creates them, and reads back what the scheduler did with them.
package gang

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangconf/gangconf/fixtures"
)

// LabelGang names the PodGroup a pod belongs to, so a gang's pods can be
// listed with a selector (spec.schedulingGroup is not a selectable field).
const LabelGang = "gangconf.io/gang"

// FinalizerHold keeps a deleted pod Terminating until the harness removes
// it: kwok deletes a pod at once when it has no finalizer, and a spec about
// what happens while preemption victims terminate needs them to linger.
const FinalizerHold = "gangconf.io/hold"

// Gang is a PodGroup and the member pods the harness creates for it.
type Gang struct {
	Namespace string
	Name      string
	// MinCount is the gang policy's quorum; Basic selects the basic policy
	// instead (no quorum).
	MinCount int32
	Basic    bool
	// Standalone pods belong to no PodGroup: plain pods, as before KEP-4671.
	Standalone bool
	// DisruptionAll sets disruptionMode all: preempting one member evicts
	// the whole group (the default, single, evicts only what is needed).
	DisruptionAll bool
	// Members is how many pods to create.
	Members int
	// Requests of each member pod's container.
	Requests corev1.ResourceList
	// MemberRequests, if set, gives member i its own requests instead of
	// Requests (a gang of members of different shapes).
	MemberRequests func(i int) corev1.ResourceList
	// SchedulerName the pods name; empty leaves the default.
	SchedulerName string
	// PriorityClassName of the PodGroup and its pods.
	PriorityClassName string
	// Pin, if set, is applied to each pod (a node slice's toleration and
	// selector).
	Pin func(*corev1.Pod)
	// Hold gives each pod FinalizerHold: deleted, it stays Terminating
	// until Release.
	Hold bool
	// Gate, if set, is a scheduling gate each pod is created with; Ungate
	// removes it.
	Gate string
	// EditGroup, if set, is applied to the PodGroup last (fields of alpha
	// gates: a topology constraint, a parent composite group).
	EditGroup func(*schedulingv1beta1.PodGroup)
}

// GPUs is a request for n nvidia.com/gpu (and nothing else).
func GPUs(n int64) corev1.ResourceList {
	return corev1.ResourceList{fixtures.ResourceGPU: *resource.NewQuantity(n, resource.DecimalSI)}
}

// PodGroup builds the gang's PodGroup from the template.
func (g *Gang) PodGroup() (*schedulingv1beta1.PodGroup, error) {
	pg, err := fixtures.PodGroup()
	if err != nil {
		return nil, err
	}
	pg.Namespace, pg.Name = g.Namespace, g.Name
	if g.Basic {
		pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
	} else {
		pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: g.MinCount}}
	}
	pg.Spec.PriorityClassName = g.PriorityClassName
	if g.DisruptionAll {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	if g.EditGroup != nil {
		g.EditGroup(pg)
	}
	return pg, nil
}

// Pod builds member pod i from the template.
func (g *Gang) Pod(i int) (*corev1.Pod, error) {
	p, err := fixtures.Pod()
	if err != nil {
		return nil, err
	}
	p.Namespace = g.Namespace
	p.Name = podName(g.Name, i)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[LabelGang] = g.Name
	if !g.Standalone {
		name := g.Name
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &name}
	}
	p.Spec.SchedulerName = g.SchedulerName
	p.Spec.PriorityClassName = g.PriorityClassName
	req := g.Requests
	if g.MemberRequests != nil {
		req = g.MemberRequests(i)
	}
	p.Spec.Containers[0].Resources.Requests = req.DeepCopy()
	p.Spec.Containers[0].Resources.Limits = req.DeepCopy()
	if g.Pin != nil {
		g.Pin(p)
	}
	if g.Hold {
		p.Finalizers = append(p.Finalizers, FinalizerHold)
	}
	if g.Gate != "" {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: g.Gate}}
	}
	return p, nil
}

// Ungate removes the scheduling gates of every member, one pod after the
// other.
func (g *Gang) Ungate(ctx context.Context, cs kubernetes.Interface) error {
	for _, name := range g.PodNames() {
		patch := []byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`)
		if _, err := cs.CoreV1().Pods(g.Namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("ungate pod %s/%s: %w", g.Namespace, name, err)
		}
	}
	return nil
}

// PodNames lists the names of the gang's members.
func (g *Gang) PodNames() []string {
	out := make([]string, g.Members)
	for i := range out {
		out[i] = podName(g.Name, i)
	}
	return out
}

func podName(gang string, i int) string { return fmt.Sprintf("%s-%d", gang, i) }

// CreatePodGroup creates the PodGroup.
func (g *Gang) CreatePodGroup(ctx context.Context, cs kubernetes.Interface) (*schedulingv1beta1.PodGroup, error) {
	pg, err := g.PodGroup()
	if err != nil {
		return nil, err
	}
	return cs.SchedulingV1beta1().PodGroups(g.Namespace).Create(ctx, pg, metav1.CreateOptions{})
}

// GetPodGroup reads the gang's PodGroup as the API server has it.
func (g *Gang) GetPodGroup(ctx context.Context, cs kubernetes.Interface) (*schedulingv1beta1.PodGroup, error) {
	return cs.SchedulingV1beta1().PodGroups(g.Namespace).Get(ctx, g.Name, metav1.GetOptions{})
}

// CreatePods creates member pods from..to-1.
func (g *Gang) CreatePods(ctx context.Context, cs kubernetes.Interface, from, to int) error {
	for i := from; i < to; i++ {
		p, err := g.Pod(i)
		if err != nil {
			return err
		}
		if _, err := cs.CoreV1().Pods(g.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// CreateFirst creates the PodGroup and members [0, n): a gang still short
// of members.
func (g *Gang) CreateFirst(ctx context.Context, cs kubernetes.Interface, n int) error {
	if _, err := g.CreatePodGroup(ctx, cs); err != nil {
		return err
	}
	return g.CreatePods(ctx, cs, 0, n)
}

// Create creates the PodGroup (unless Standalone), then all its member pods.
func (g *Gang) Create(ctx context.Context, cs kubernetes.Interface) error {
	if err := g.createGroup(ctx, cs); err != nil {
		return err
	}
	return g.CreatePods(ctx, cs, 0, g.Members)
}

func (g *Gang) createGroup(ctx context.Context, cs kubernetes.Interface) error {
	if g.Standalone {
		return nil
	}
	if _, err := g.CreatePodGroup(ctx, cs); err != nil {
		return fmt.Errorf("create podgroup %s/%s: %w", g.Namespace, g.Name, err)
	}
	return nil
}

// Selector selects the gang's pods.
func (g *Gang) Selector() string {
	return labels.SelectorFromSet(labels.Set{LabelGang: g.Name}).String()
}

// Pods lists the gang's pods.
func (g *Gang) Pods(ctx context.Context, cs kubernetes.Interface) ([]corev1.Pod, error) {
	l, err := cs.CoreV1().Pods(g.Namespace).List(ctx, metav1.ListOptions{LabelSelector: g.Selector()})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// Bound counts the gang's pods that have a node.
func (g *Gang) Bound(ctx context.Context, cs kubernetes.Interface) (int, error) {
	pods, err := g.Pods(ctx, cs)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n, nil
}

// Condition returns the PodGroup's condition of type t, or nil.
func (g *Gang) Condition(ctx context.Context, cs kubernetes.Interface, t string) (*metav1.Condition, error) {
	pg, err := g.GetPodGroup(ctx, cs)
	if err != nil {
		return nil, err
	}
	return meta.FindStatusCondition(pg.Status.Conditions, t), nil
}

// Finish marks every bound member Succeeded, as if its work were done: a
// finished pod holds no resources, so capacity is freed without deleting
// anything. It first waits until each is Running: the node agent (kwok)
// moves a Pending pod to Running, and would overwrite an earlier Succeeded.
func (g *Gang) Finish(ctx context.Context, cs kubernetes.Interface) error {
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if pods, err = g.Pods(ctx, cs); err != nil {
			return false, nil
		}
		for _, p := range pods {
			if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodRunning {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("gang %s: bound members not Running: %w", g.Name, err)
	}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" {
			continue
		}
		// A patch, not an update: kwok writes the pod's status too.
		patch := []byte(`{"status":{"phase":"Succeeded"}}`)
		if _, err := cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("finish pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// CreateInterleaved creates the gangs' PodGroups, then their pods in turn
// (first member of each gang, then the second of each, ...), the order in
// which a pod-by-pod scheduler splits capacity between gangs.
func CreateInterleaved(ctx context.Context, cs kubernetes.Interface, gangs ...*Gang) error {
	most := 0
	for _, g := range gangs {
		if err := g.createGroup(ctx, cs); err != nil {
			return err
		}
		most = max(most, g.Members)
	}
	for i := 0; i < most; i++ {
		for _, g := range gangs {
			if i < g.Members {
				if err := g.CreatePods(ctx, cs, i, i+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SetMinCount changes the PodGroup's quorum.
func (g *Gang) SetMinCount(ctx context.Context, cs kubernetes.Interface, n int32) error {
	patch := fmt.Sprintf(`{"spec":{"schedulingPolicy":{"gang":{"minCount":%d}}}}`, n)
	_, err := cs.SchedulingV1beta1().PodGroups(g.Namespace).Patch(ctx, g.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err == nil {
		g.MinCount = n
	}
	return err
}

// Release removes FinalizerHold from every pod of the namespace that has
// it, so that Terminating pods go.
func Release(ctx context.Context, cs kubernetes.Interface, namespace string) error {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		for i, f := range p.Finalizers {
			if f != FinalizerHold {
				continue
			}
			// A JSON patch that tests the position, so a concurrent change
			// to the finalizers fails instead of removing the wrong one.
			patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, f, i)
			if _, err := cs.CoreV1().Pods(namespace).Patch(ctx, p.Name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("release pod %s/%s: %w", namespace, p.Name, err)
			}
			break
		}
	}
	return nil
}
