package preflight

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// right is what the suite does to one resource, in every namespace (it
// makes its own; "" in a review) or cluster-wide, and what for.
type right struct {
	group, resource string
	verbs           []string
	why             string
}

// rights is everything the suites and the harness do to a cluster: each
// call in suites/ and its framework, by resource. A vendor's kubeconfig
// lacking one would fail specs one by one, as if the scheduler were wrong.
var rights = []right{
	{"", "namespaces", []string{"get", "list", "create", "delete"}, "each spec runs in a namespace of its own"},
	{"", "nodes", []string{"get", "list", "watch", "create", "delete", "deletecollection"}, "each spec gets a slice of fake nodes"},
	{"", "pods", []string{"get", "list", "watch", "create", "patch", "delete", "deletecollection"}, "specs create gang members and watch them bound"},
	{"", "pods/status", []string{"patch"}, "specs finish pods"},
	{"", "pods/binding", []string{"create"}, "a spec binds a pod as another scheduler would"},
	{"", "serviceaccounts", []string{"get"}, "specs wait for a namespace's default service account"},
	{"", "events", []string{"list"}, "specs read the scheduler's events"},
	{"", "persistentvolumes", []string{"create", "delete"}, "a spec gives gang members volumes"},
	{"", "persistentvolumeclaims", []string{"get", "create"}, "a spec gives gang members volumes"},
	{"scheduling.k8s.io", "podgroups", []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}, "specs create PodGroups"},
	{"scheduling.k8s.io", "podgroups/status", []string{"update"}, "a spec writes a PodGroup's status"},
	{"scheduling.k8s.io", "workloads", []string{"get", "list", "create", "update", "delete"}, "specs create Workloads"},
	{"scheduling.k8s.io", "compositepodgroups", []string{"create"}, "alpha specs create CompositePodGroups"},
	{"scheduling.k8s.io", "priorityclasses", []string{"list", "create", "delete"}, "the suite adds its priority classes for the run"},
	{"policy", "poddisruptionbudgets", []string{"get", "create"}, "a preemption spec protects a victim with a PodDisruptionBudget"},
	{"batch", "jobs", []string{"create"}, "alpha specs create Jobs with spec.scheduling"},
}

// name is the resource as RBAC rules name it: group, resource, subresource.
func (r right) name() string {
	if r.group == "" {
		return r.resource
	}
	return r.group + " " + r.resource
}

// checkRights asks the API server, with SelfSubjectAccessReviews, whether
// the kubeconfig's user may do everything in rights, and returns one
// problem for each resource it may not act on as the suite does.
func checkRights(ctx context.Context, cs kubernetes.Interface) ([]string, error) {
	var problems []string
	for _, r := range rights {
		resource, sub, _ := strings.Cut(r.resource, "/")
		var missing []string
		for _, verb := range r.verbs {
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: r.group, Resource: resource, Subresource: sub}}}
			got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err != nil {
				return nil, fmt.Errorf("preflight: cannot ask the API server what the kubeconfig may do (a SelfSubjectAccessReview): %w", err)
			}
			if !got.Status.Allowed {
				missing = append(missing, verb)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("the kubeconfig may not %s %s (%s); grant its user %s on %s with a ClusterRole and a ClusterRoleBinding",
				strings.Join(missing, ", "), r.name(), r.why, strings.Join(r.verbs, ", "), r.name()))
		}
	}
	return problems, nil
}
