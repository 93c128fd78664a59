package harness

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

func kindSettings(t *testing.T) settings.Settings {
	return settings.Settings{Provider: "kind", KindNodeImage: "example.test/kind-node:v1.37.2", ClusterName: "conformance-external",
		Scheduler: "external", SchedulerName: "default-scheduler", WorkDir: t.TempDir(), Results: t.TempDir()}
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
	var out results.Environment
	e.describeKind(&out)
	if out.NodeImage != "example.test/kind-node:v1.37.2" || out.FeatureGates != "GenericWorkload=true" || out.RuntimeConfig != "scheduling.k8s.io/v1beta1=true" {
		t.Fatalf("environment = %+v", out)
	}
}
