package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

func TestUpWithBadInputStartsNothing(t *testing.T) {
	work := t.TempDir()
	s := settings.Settings{Provider: "kwok", Cluster: "nope", Scheduler: "reference", BinDir: t.TempDir(), WorkDir: work, ClusterName: "x", Results: t.TempDir()}
	if _, err := Up(context.Background(), s, false, t.Logf); err == nil {
		t.Fatal("Up accepted an unknown profile")
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Fatalf("Up left files behind: %v", entries)
	}
}

// kwokEnv is a run of the scheduler kind sched on a kwok cluster of profile
// prof ("" for none).
func kwokEnv(sched, prof string) *Env {
	return newEnv(settings.Settings{Provider: "kwok", Cluster: prof, Scheduler: sched, ClusterName: "c", BinDir: "b", WorkDir: "w"})
}

func TestNoAPIControlTurnsTheAPIOff(t *testing.T) {
	e := kwokEnv("no-api", "")
	o := e.kwokOptions()
	if !strings.Contains(o.FeatureGates, "GenericWorkload=false") || !strings.Contains(o.RuntimeConfig, "v1beta1=false") {
		t.Fatalf("no-api cluster options = %+v", o)
	}
	if e.SchedulerKind.Profile.Name != "no-gang" {
		t.Fatal("no-api must run the no-gang scheduler")
	}
	if o := kwokEnv("reference", "").kwokOptions(); o.FeatureGates != "GenericWorkload=true" || o.RuntimeConfig != "scheduling.k8s.io/v1beta1=true" {
		t.Fatalf("reference cluster must use the package defaults, got %+v", o)
	}
	if o := kwokEnv("no-api", "ci-alpha").kwokOptions(); o.FeatureGates != "GenericWorkload=false" || o.RuntimeConfig != "scheduling.k8s.io/v1beta1=false" {
		t.Fatalf("no-api must turn the API off on an alpha cluster too, got %+v", o)
	}
}

func TestAlphaProfileGatesReachEveryComponent(t *testing.T) {
	e := kwokEnv("reference", "ci-alpha")
	o := e.kwokOptions()
	for _, g := range []string{"GenericWorkload=true", "TopologyAwareWorkloadScheduling=true", "CompositePodGroup=true", "PodGroupPreemptionPolicy=true", "WorkloadWithJob=true"} {
		if !strings.Contains(o.FeatureGates, g) {
			t.Errorf("alpha cluster gates %q lack %s", o.FeatureGates, g)
		}
	}
	if !strings.Contains(o.RuntimeConfig, "scheduling.k8s.io/v1alpha3=true") || o.ControllerManagerFeatureGates != "" {
		t.Errorf("alpha cluster options = %+v", o)
	}
	if g := e.clusterGates(); !strings.Contains(g, "CompositePodGroup=true") || strings.Contains(g, "GenericWorkload") {
		t.Errorf("the reference scheduler gets cluster gates %q, want the profile's alpha gates", g)
	}
	e = kwokEnv("no-job-workload", "ci-alpha")
	o = e.kwokOptions()
	if !strings.Contains(o.FeatureGates, "WorkloadWithJob=true") || !strings.Contains(o.ControllerManagerFeatureGates, "WorkloadWithJob=false") ||
		!strings.Contains(o.ControllerManagerFeatureGates, "CompositePodGroup=true") {
		t.Errorf("no-job-workload options = %+v, want WorkloadWithJob off in the controller manager only", o)
	}
	if e.SchedulerKind.Profile.Name != "reference" || e.clusterGates() == "" {
		t.Error("no-job-workload must run the reference scheduler with the cluster's gates")
	}
	if g := kwokEnv("reference", "ci-small").clusterGates(); g != "" {
		t.Errorf("ci-small has no gates of its own, got %q", g)
	}
}

// The nodes' creation times the harness measured reach the environment the
// bench writes; a cluster it did not make them on records none.
func TestEnvironmentRecordsHowTheNodesCameUp(t *testing.T) {
	// A server nothing listens on: Describe's version lookup fails at once.
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"+
		"contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(settings.Settings{Provider: "existing", Kubeconfig: kc})
	if out := e.Describe(context.Background()); out.Nodes != nil {
		t.Fatalf("nodes without any made: %+v", out.Nodes)
	}
	e.NodeCreation = &results.NodeCreation{Count: 15000, Created: 30 * time.Second, Ready: time.Minute}
	if out := e.Describe(context.Background()); out.Nodes == nil || *out.Nodes != *e.NodeCreation {
		t.Fatalf("nodes = %+v, want %+v", out.Nodes, e.NodeCreation)
	}
}
