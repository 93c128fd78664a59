package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// binDir makes a directory with every binary the harness looks for, as
// empty executables: Validate checks presence, not contents.
func binDir(t *testing.T, missing string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"kube-apiserver", "kube-controller-manager", "etcd", "kwok", "kwokctl", "reference-scheduler"} {
		if n == missing {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBadSettingsAreRejectedWithWhatToDo(t *testing.T) {
	good := Settings{Provider: "kwok", Cluster: "ci-small", Scheduler: "reference", BinDir: binDir(t, "")}
	cases := []struct {
		name   string
		change func(*Settings)
		want   string
	}{
		{"unknown profile", func(s *Settings) { s.Cluster = "gpu-9k" }, `unknown cluster profile "gpu-9k"`},
		{"unknown scheduler", func(s *Settings) { s.Scheduler = "volcano" }, `unknown SCHEDULER "volcano"`},
		{"unknown provider", func(s *Settings) { s.Provider = "gke" }, `unknown PROVIDER "gke"`},
		{"missing control plane binary", func(s *Settings) { s.BinDir = binDir(t, "kube-apiserver") }, "kube-apiserver not found (run `make build` first)"},
		{"missing scheduler binary", func(s *Settings) { s.BinDir = binDir(t, "reference-scheduler") }, "reference-scheduler not found"},
		{"existing without kubeconfig", func(s *Settings) { s.Provider = "existing" }, "needs KUBECONFIG"},
		{"wrong kubeconfig", func(s *Settings) { s.Provider, s.Kubeconfig = "existing", "/nonexistent/kubeconfig" }, "not a usable kubeconfig"},
		{"external without a name", func(s *Settings) { s.Scheduler = "external" }, "needs SCHEDULER_NAME"},
		{"command without a name", func(s *Settings) { s.Scheduler, s.SchedulerCmd = "command", "x" }, "needs SCHEDULER_NAME"},
		{"command with a bad template", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerCmd = "command", "v", "run {{.Kubeconfig"
		}, "not a valid template"},
		{"binary without its config", func(s *Settings) { s.Scheduler, s.SchedulerBin = "binary", "/bin/true" }, "needs SCHEDULER_BIN"},
		{"binary with a config that is not a scheduler's", func(s *Settings) {
			s.Scheduler, s.SchedulerBin, s.SchedulerConfig = "binary", "/bin/true", writeKubeconfig(t)
		}, "want KubeSchedulerConfiguration"},
		{"no-api on an existing cluster", func(s *Settings) {
			s.Scheduler, s.Provider, s.Kubeconfig = "no-api", "existing", writeKubeconfig(t)
		}, "needs PROVIDER=kwok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := good
			c.change(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good settings rejected: %v", err)
	}
	if good.SchedulerName != "default-scheduler" {
		t.Fatalf("reference scheduler name = %q", good.SchedulerName)
	}
}

func TestUpWithBadInputStartsNothing(t *testing.T) {
	work := t.TempDir()
	s := Settings{Provider: "kwok", Cluster: "nope", Scheduler: "reference", BinDir: binDir(t, ""), WorkDir: work, ClusterName: "x", Results: t.TempDir()}
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
	return newEnv(Settings{Provider: "kwok", Cluster: prof, Scheduler: sched, ClusterName: "c", BinDir: "b", WorkDir: "w"})
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

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
