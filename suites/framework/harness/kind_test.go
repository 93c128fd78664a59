package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func kindSettings(t *testing.T) Settings {
	return Settings{Provider: "kind", KindNodeImage: "example.test/kind-node:v1.37.2", ClusterName: "conformance-external",
		Scheduler: "external", SchedulerName: "default-scheduler", WorkDir: t.TempDir(), Results: t.TempDir()}
}

func schedulerConfig(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: " + name + "\n"
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKindSettings(t *testing.T) {
	const clash = "PROVIDER=kind runs kind's own kube-scheduler under schedulerName default-scheduler"
	cases := []struct {
		name   string
		change func(*Settings)
		want   string // "" when the settings are good
	}{
		{"kind's own scheduler", func(*Settings) {}, ""},
		{"no node image", func(s *Settings) { s.KindNodeImage = "" }, "needs KIND_NODE_IMAGE"},
		{"bad cluster name", func(s *Settings) { s.ClusterName = "Conformance" }, `kind cluster name "Conformance"`},
		{"the reference scheduler", func(s *Settings) { s.Scheduler, s.SchedulerName = "reference", "" }, clash},
		{"the no-gang control", func(s *Settings) { s.Scheduler, s.SchedulerName = "no-gang", "" }, clash},
		{"no-api needs kwok", func(s *Settings) { s.Scheduler, s.SchedulerName = "no-api", "" }, "needs PROVIDER=kwok"},
		{"a command under the default name", func(s *Settings) { s.Scheduler, s.SchedulerCmd = "command", "run {{.Kubeconfig}}" }, clash},
		{"a command under its own name", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerCmd = "command", "volcano", "run {{.Kubeconfig}} {{.SchedulerName}}"
		}, ""},
		{"a binary under the default name", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerBin, s.SchedulerConfig = "binary", "", "/bin/true", schedulerConfig(t, "default-scheduler")
		}, clash},
		{"a binary under its own name", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerBin, s.SchedulerConfig = "binary", "", "/bin/true", schedulerConfig(t, "yunikorn")
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := kindSettings(t)
			c.change(&s)
			err := s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("good settings rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

// Without Docker, Up fails before kind creates anything, and leaves no file.
func TestKindUpWithoutDockerLeavesNothing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := kindSettings(t)
	env, err := Up(context.Background(), s, false, t.Logf)
	if err == nil || env != nil || !strings.Contains(err.Error(), "PROVIDER=kind needs Docker") {
		t.Fatalf("Up = %v, %v", env, err)
	}
	for _, dir := range []string{s.WorkDir, s.Results} {
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("Up left files in %s: %v", dir, entries)
		}
	}
	if _, err := Attach(s); err == nil || !strings.Contains(err.Error(), `no kind cluster "conformance-external"`) {
		t.Fatalf("Attach to a cluster never made: %v", err)
	}
}

func TestKindEnvironmentNamesImageAndGates(t *testing.T) {
	e := &Env{Settings: kindSettings(t)}
	var out Environment
	e.describeKind(&out)
	if out.NodeImage != "example.test/kind-node:v1.37.2" || out.FeatureGates != "GenericWorkload=true" || out.RuntimeConfig != "scheduling.k8s.io/v1beta1=true" {
		t.Fatalf("environment = %+v", out)
	}
}
