package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// apiVersion is the version of Kueue's API that v0.17.0 stores and its
// manager uses.
const apiVersion = kueueGroup + "/v1beta2"

// The resources of Kueue's objects the specs make.
var (
	ResourceFlavors = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "resourceflavors"}
	ClusterQueues   = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "clusterqueues"}
	LocalQueues     = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "localqueues"}
	Workloads       = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "workloads"}
)

func resourceFlavor(name string, labels map[string]string) *unstructured.Unstructured {
	rf := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": "ResourceFlavor",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{},
	}}
	rf.SetLabels(labels)
	return rf
}

// Queue is one spec's queue: a ResourceFlavor, a ClusterQueue admitting only
// from the spec's namespace with a quota of one resource, and a LocalQueue
// in that namespace. Jobs join it with the label QueueLabel=Name.
type Queue struct {
	// Name is the name of all three objects.
	Name      string
	Namespace string
	Resource  corev1.ResourceName
}

// clusterQueue is the ClusterQueue with quota of q.Resource; no cohort, so
// nothing is borrowed, and no preemption.
func (q Queue) clusterQueue(quota int64, labels map[string]string) *unstructured.Unstructured {
	cq := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": "ClusterQueue",
		"metadata": map[string]any{"name": q.Name},
		"spec": map[string]any{
			"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": q.Namespace}},
			"resourceGroups": []any{map[string]any{
				"coveredResources": []any{string(q.Resource)},
				"flavors": []any{map[string]any{
					"name":      q.Name,
					"resources": []any{map[string]any{"name": string(q.Resource), "nominalQuota": quota}},
				}},
			}},
		},
	}}
	cq.SetLabels(labels)
	return cq
}

func (q Queue) localQueue(labels map[string]string) *unstructured.Unstructured {
	lq := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": "LocalQueue",
		"metadata": map[string]any{"name": q.Name, "namespace": q.Namespace},
		"spec":     map[string]any{"clusterQueue": q.Name},
	}}
	lq.SetLabels(labels)
	return lq
}

// Create makes the queue's three objects with quota units of its resource.
func (q Queue) Create(ctx context.Context, dyn dynamic.Interface, quota int64, labels map[string]string) error {
	if _, err := dyn.Resource(ResourceFlavors).Create(ctx, resourceFlavor(q.Name, labels), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ResourceFlavor %s: %w", q.Name, err)
	}
	if _, err := dyn.Resource(ClusterQueues).Create(ctx, q.clusterQueue(quota, labels), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterQueue %s: %w", q.Name, err)
	}
	if _, err := dyn.Resource(LocalQueues).Namespace(q.Namespace).Create(ctx, q.localQueue(labels), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create LocalQueue %s/%s: %w", q.Namespace, q.Name, err)
	}
	return nil
}

// SetQuota changes the ClusterQueue's quota of its resource.
func (q Queue) SetQuota(ctx context.Context, dyn dynamic.Interface, quota int64) error {
	patch := fmt.Sprintf(`{"spec":{"resourceGroups":[{"coveredResources":[%q],"flavors":[{"name":%q,"resources":[{"name":%q,"nominalQuota":%d}]}]}]}}`,
		q.Resource, q.Name, q.Resource, quota)
	_, err := dyn.Resource(ClusterQueues).Patch(ctx, q.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// Active says whether Kueue reports the ClusterQueue Active (its flavor
// exists and it can admit).
func (q Queue) Active(ctx context.Context, dyn dynamic.Interface) (bool, error) {
	for _, r := range []struct {
		gvr schema.GroupVersionResource
		ns  string
	}{{ClusterQueues, ""}, {LocalQueues, q.Namespace}} {
		obj, err := dyn.Resource(r.gvr).Namespace(r.ns).Get(ctx, q.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !conditionTrue(obj, "Active") {
			return false, nil
		}
	}
	return true, nil
}

// Delete removes the cluster-scoped objects (the LocalQueue goes with the
// spec's namespace).
func (q Queue) Delete(ctx context.Context, dyn dynamic.Interface) error {
	var first error
	for _, gvr := range []schema.GroupVersionResource{ClusterQueues, ResourceFlavors} {
		if err := dyn.Resource(gvr).Delete(ctx, q.Name, metav1.DeleteOptions{}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func conditionTrue(obj *unstructured.Unstructured, t string) bool { return conditionIs(obj, t, "True") }

func conditionIs(obj *unstructured.Unstructured, t, status string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == t && m["status"] == status {
			return true
		}
	}
	return false
}

// WorkloadState is what Kueue says of one of its Workloads (not the
// scheduling.k8s.io Workload of the Job controller).
type WorkloadState struct {
	Name string
	// QuotaReserved and Admitted are its conditions.
	QuotaReserved, Admitted bool
	// Refused says that Kueue has tried to reserve quota for it and could
	// not: QuotaReserved=False (reason Pending, "couldn't assign flavors").
	Refused bool
	// Count is the pod count of each PodSet its admission gave, when
	// admitted.
	Count []int64
}

// KueueWorkloads lists Kueue's Workloads of the namespace.
func KueueWorkloads(ctx context.Context, dyn dynamic.Interface, ns string) ([]WorkloadState, error) {
	l, err := dyn.Resource(Workloads).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []WorkloadState
	for i := range l.Items {
		w := &l.Items[i]
		st := WorkloadState{Name: w.GetName(), QuotaReserved: conditionTrue(w, "QuotaReserved"), Admitted: conditionTrue(w, "Admitted"),
			Refused: conditionIs(w, "QuotaReserved", "False")}
		sets, _, _ := unstructured.NestedSlice(w.Object, "status", "admission", "podSetAssignments")
		for _, ps := range sets {
			m, _ := ps.(map[string]any)
			n, _, _ := unstructured.NestedInt64(m, "count")
			st.Count = append(st.Count, n)
		}
		out = append(out, st)
	}
	return out, nil
}
