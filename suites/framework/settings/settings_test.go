package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/fakeapi"
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
		{"unknown cluster mode", func(s *Settings) { s.ClusterMode = "fast" }, `CLUSTER_MODE: unknown cluster mode "fast" (known: realistic, upstream)`},
		{"upstream mode on an existing cluster", func(s *Settings) {
			s.ClusterMode, s.Provider, s.Kubeconfig = "upstream", "existing", fakeapi.Kubeconfig(t)
		}, "CLUSTER_MODE=upstream is a kwok cluster the harness makes (PROVIDER=kwok), not PROVIDER=existing"},
		{"unknown scheduler", func(s *Settings) { s.Scheduler = "volcano" }, `unknown SCHEDULER "volcano"`},
		{"unknown admission controller", func(s *Settings) { s.Admission = "volcano" }, `unknown ADMISSION "volcano" (known: kueue, kueue-partial`},
		{"admission on an existing cluster", func(s *Settings) {
			s.Admission, s.Scheduler, s.SchedulerName, s.Provider, s.Kubeconfig = "kueue", "external", "x", "existing", fakeapi.Kubeconfig(t)
		}, "ADMISSION=kueue runs Kueue against a kwok cluster the harness makes, not PROVIDER=existing"},
		{"admission without its module", func(s *Settings) { s.Admission, s.KueueModule = "kueue", t.TempDir() }, "needs KUEUE_MODULE="},
		{"admission without Kueue's manager", func(s *Settings) {
			s.Admission, s.KueueModule = "kueue", "../admission/kueue"
		}, "/kueue: build it with make build-kueue"},
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
			s.Scheduler, s.SchedulerBin, s.SchedulerConfig = "binary", "/bin/true", fakeapi.Kubeconfig(t)
		}, "want KubeSchedulerConfiguration"},
		{"no-api on an existing cluster", func(s *Settings) {
			s.Scheduler, s.Provider, s.Kubeconfig = "no-api", "existing", fakeapi.Kubeconfig(t)
		}, "changes the cluster's API server, so it needs PROVIDER=kwok"},
		{"no-job-workload on an existing cluster", func(s *Settings) {
			s.Scheduler, s.Provider, s.Kubeconfig = "no-job-workload", "existing", fakeapi.Kubeconfig(t)
		}, "changes the cluster's controller manager, so it needs PROVIDER=kwok"},
		{"the ceiling outside make bench", func(s *Settings) { s.Scheduler = "ceiling" }, "make bench takes it"},
		{"the reference under another name", func(s *Settings) { s.SchedulerName = "mine" },
			"SCHEDULER=reference serves schedulerName default-scheduler, not SCHEDULER_NAME=mine: unset SCHEDULER_NAME"},
		{"command with a readiness URL that is no URL", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerCmd, s.SchedulerReadyURL = "command", "v", "run", "localhost:10259/readyz"
		}, `SCHEDULER_READY_URL "localhost:10259/readyz" is not an http(s) URL: give the whole URL`},
		{"binary with a config that does not exist", func(s *Settings) {
			s.Scheduler, s.SchedulerBin, s.SchedulerConfig = "binary", "/bin/true", "/nonexistent/config.yaml"
		}, "SCHEDULER_CONFIG /nonexistent/config.yaml cannot be read (no such file or directory): give the path of your KubeSchedulerConfiguration file"},
		{"a restart command for the reference", func(s *Settings) { s.SchedulerRestartCmd = "pkill my-scheduler" },
			"SCHEDULER_RESTART_CMD is for a scheduler the harness does not start (SCHEDULER=external); the harness starts SCHEDULER=reference itself"},
		{"a restart command for a command scheduler", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerCmd, s.SchedulerRestartCmd = "command", "v", "run", "pkill run"
		}, "the harness starts SCHEDULER=command itself and restarts it after a crash: unset SCHEDULER_RESTART_CMD"},
		{"external with a readiness URL that is no URL", func(s *Settings) {
			s.Scheduler, s.SchedulerName, s.SchedulerReadyURL = "external", "v", "localhost:10259/readyz"
		}, `SCHEDULER_READY_URL "localhost:10259/readyz" is not an http(s) URL`},
		{"binary that is not executable", func(s *Settings) {
			s.Scheduler, s.SchedulerBin, s.SchedulerConfig = "binary", schedulerConfig(t, "mine"), schedulerConfig(t, "mine")
		}, "is not an executable file: give the path of your kube-scheduler-compatible binary"},
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

// An external scheduler takes a restart command and a readiness URL: the
// fault specs crash it with the one and see it back with the other.
func TestExternalTakesARestartCommand(t *testing.T) {
	s := Settings{Provider: "existing", Kubeconfig: fakeapi.Kubeconfig(t), Scheduler: "external", SchedulerName: "mine",
		SchedulerRestartCmd: "kubectl -n kube-system delete pod -l component=mine --force", SchedulerReadyURL: "https://127.0.0.1:10259/readyz"}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvRestartCmd, "systemctl kill -s KILL my-scheduler")
	if got := FromEnv().SchedulerRestartCmd; got != "systemctl kill -s KILL my-scheduler" {
		t.Fatalf("FromEnv().SchedulerRestartCmd = %q", got)
	}
}

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

func TestALabelFilterThatSelectsNoSpecIsRejected(t *testing.T) {
	err := CheckLabelFilter("area:quourm", 0, 110)
	if err == nil || !strings.Contains(err.Error(), `LABEL_FILTER "area:quourm" selects none of the 110 specs: use their labels`) {
		t.Fatalf("err = %v", err)
	}
	for _, c := range []struct {
		filter          string
		selected, total int
	}{{"area:quorum", 10, 110}, {"", 110, 110}} {
		if err := CheckLabelFilter(c.filter, c.selected, c.total); err != nil {
			t.Errorf("LABEL_FILTER %q selecting %d of %d: %v", c.filter, c.selected, c.total, err)
		}
	}
}
