package scheduler

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/reference-scheduler/config"
)

// ReferenceOptions says how to run the reference scheduler binary.
type ReferenceOptions struct {
	// Profile is a reference scheduler profile: reference or no-gang.
	Profile string
	// BinDir holds reference-scheduler.
	BinDir string
	// Kubeconfig of the cluster to schedule.
	Kubeconfig string
	// RunDir receives the generated configuration file and the PID file.
	RunDir string
	// LogDir receives the scheduler's log.
	LogDir string
	// Port is the secure port; 0 picks a free one.
	Port int
}

// Reference prepares the reference scheduler with one of its profiles. It
// checks everything it can before anything starts.
func Reference(o ReferenceOptions) (*Process, string, error) {
	prof, err := config.Lookup(o.Profile)
	if err != nil {
		return nil, "", err
	}
	bin, err := filepath.Abs(filepath.Join(o.BinDir, "reference-scheduler"))
	if err != nil {
		return nil, "", err
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return nil, "", fmt.Errorf("binary %s not found (run `make build` first)", bin)
	}
	kubeconfig, err := filepath.Abs(o.Kubeconfig)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		return nil, "", fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	port, err := FreePort(o.Port)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(o.RunDir, 0o755); err != nil {
		return nil, "", err
	}
	cfgPath := filepath.Join(o.RunDir, "scheduler-"+prof.Name+".yaml")
	cfg, err := WithKubeconfig(prof.Config, kubeconfig)
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, "", err
	}
	p := &Process{
		Name:   prof.Name,
		Binary: bin,
		Args: []string{
			"--config=" + cfgPath,
			"--feature-gates=" + prof.FeatureGates,
			"--bind-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(port),
			// Readiness and metrics are read without credentials; they
			// carry no secrets.
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
			"--v=2",
		},
		LogPath: filepath.Join(o.LogDir, "scheduler-"+prof.Name+".log"),
		Port:    port,
		PIDFile: filepath.Join(o.RunDir, "scheduler.pid"),
	}
	return p, prof.SchedulerName, nil
}

// WithKubeconfig sets clientConnection.kubeconfig in a
// KubeSchedulerConfiguration: kube-scheduler ignores --kubeconfig once
// --config is given.
func WithKubeconfig(cfg []byte, kubeconfig string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(cfg, &doc); err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	if doc["kind"] != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("scheduler configuration: kind is %v, want KubeSchedulerConfiguration", doc["kind"])
	}
	cc, _ := doc["clientConnection"].(map[string]any)
	if cc == nil {
		cc = map[string]any{}
	}
	cc["kubeconfig"] = kubeconfig
	doc["clientConnection"] = cc
	return yaml.Marshal(doc)
}
