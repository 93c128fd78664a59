package preflight

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// DenyRights makes the fake API server refuse the verbs of resources
// (group/resource or resource, subresource included) in its access reviews.
func denyRights(cs *k8stesting.Fake, denied map[string][]string) {
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		ra := r.Spec.ResourceAttributes
		name := ra.Resource
		if ra.Subresource != "" {
			name += "/" + ra.Subresource
		}
		if ra.Group != "" {
			name = ra.Group + "/" + name
		}
		r.Status.Allowed = true
		for _, v := range denied[name] {
			if v == ra.Verb {
				r.Status.Allowed = false
			}
		}
		return true, r, nil
	})
}

// A kubeconfig without rights the suite needs is one problem for each
// resource, saying what to grant; the probes that would only fail on them
// are not run.
func TestPreflightNamesEachMissingRightAndWhatToGrant(t *testing.T) {
	cs := preflightCluster(t, true, true)
	denyRights(&cs.Fake, map[string][]string{"nodes": {"create", "delete"}, "scheduling.k8s.io/podgroups/status": {"update"}})
	p, err := Run(context.Background(), cs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"the kubeconfig may not create, delete nodes (each spec gets a slice of fake nodes); " +
			"grant its user get, list, watch, create, delete, deletecollection on nodes with a ClusterRole and a ClusterRoleBinding",
		"the kubeconfig may not update scheduling.k8s.io podgroups/status (a spec writes a PodGroup's status); " +
			"grant its user update on scheduling.k8s.io podgroups/status with a ClusterRole and a ClusterRoleBinding",
	}
	if strings.Join(p.MissingRights, "\n") != strings.Join(want, "\n") || strings.Join(p.Problems, "\n") != strings.Join(want, "\n") {
		t.Fatalf("missing rights = %q\nproblems = %q", p.MissingRights, p.Problems)
	}
	if first, _, _ := strings.Cut(p.Err().Error(), "\n"); !strings.HasPrefix(first, "preflight: the kubeconfig may not create, delete nodes") {
		t.Fatalf("Err() = %v", p.Err())
	}
	if p.SchedulingGroupKept || p.AlphaGates != nil {
		t.Errorf("probes ran without the rights they need: %+v", p)
	}
	expectOnly(t, cs)
}

// The plan says, before any spec, what runs and what is skipped and why,
// in the suite's output and in preflight.json.
func TestPlanSaysWhatRunsAndWhatIsSkipped(t *testing.T) {
	p, err := Run(context.Background(), preflightCluster(t, true, false), true)
	if err != nil {
		t.Fatal(err)
	}
	p.SetPlan(Step{What: "scheduler crash and restart", Runs: true, Note: "SCHEDULER_RESTART_CMD"},
		Step{What: "API server restart", Note: "the harness did not make the cluster"})
	text := p.PlanText()
	for _, want := range []string{
		"gangconf plan, before any spec (v1.37.2):",
		"  runs     PodGroup API (scheduling.k8s.io/v1beta1): served by v1.37.2, pods' spec.schedulingGroup kept",
		"  runs     the kubeconfig's rights: all the suite needs",
		"  SKIPPED  alpha specs of PodGroupPreemptionPolicy: the API server lacks the alpha gate PodGroupPreemptionPolicy",
		"  runs     per-spec node slices: fake nodes turn Ready, so each spec gets nodes of its own",
		"  runs     scheduler crash and restart: SCHEDULER_RESTART_CMD",
		"  SKIPPED  API server restart: the harness did not make the cluster",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan:\n%s\nwant it to say %q", text, want)
		}
	}
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	var back Report
	data, _ := os.ReadFile(filepath.Join(dir, "preflight.json"))
	if err := json.Unmarshal(data, &back); err != nil || len(back.Plan) != len(p.Plan) || back.Plan[len(back.Plan)-1].Runs {
		t.Fatalf("preflight.json = %s, %v", data, err)
	}
}

// Without the API or the rights, the plan says so and lists the problems.
func TestPlanOfAClusterWithoutTheAPIListsItsProblems(t *testing.T) {
	cs := preflightCluster(t, false, false)
	denyRights(&cs.Fake, map[string][]string{"batch/jobs": {"create"}})
	p, err := Run(context.Background(), cs, true)
	if err != nil {
		t.Fatal(err)
	}
	p.SetPlan()
	text := p.PlanText()
	for _, want := range []string{
		"  SKIPPED  PodGroup API (scheduling.k8s.io/v1beta1): served: false, spec.schedulingGroup kept: false; the specs fail",
		"  SKIPPED  the kubeconfig's rights: 1 resources lack rights (problems below); the rest was not probed",
		"  PROBLEM  the cluster (v1.37.2) does not serve workloads and podgroups",
		"  PROBLEM  the kubeconfig may not create batch jobs",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan:\n%s\nwant it to say %q", text, want)
		}
	}
	if strings.Contains(text, "alpha specs of") || strings.Contains(text, "node slices") {
		t.Errorf("the plan names steps that were not probed:\n%s", text)
	}
}
