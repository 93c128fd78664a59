package scheduler

import (
	"fmt"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/gangconf/gangconf/reference-scheduler/config"
)

// ReferenceOptions says how to run the reference scheduler binary.
type ReferenceOptions struct {
	// Profile is the reference scheduler profile to run, as the scheduler
	// kind resolved it (kinds.Kind.Profile).
	Profile config.Profile
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
	// ClusterGates are the cluster's own feature gates (an alpha cluster's),
	// which profiles that take them add to theirs.
	ClusterGates string
}

// Reference prepares the reference scheduler with one of its profiles. It
// checks everything it can before anything starts.
func Reference(o ReferenceOptions) (*Process, string, error) {
	prof := o.Profile
	if prof.Name == "" {
		return nil, "", fmt.Errorf("no reference scheduler profile given")
	}
	bin := filepath.Join(o.BinDir, "reference-scheduler")
	if err := binaryExists(bin); err != nil {
		return nil, "", err
	}
	return KubeScheduler(KubeSchedulerOptions{
		Name:       prof.Name,
		Binary:     bin,
		Config:     prof.Config,
		ExtraArgs:  []string{"--feature-gates=" + prof.Gates(o.ClusterGates), "--v=2"},
		Kubeconfig: o.Kubeconfig,
		RunDir:     o.RunDir,
		LogDir:     o.LogDir,
		Port:       o.Port,
	})
}

func binaryExists(bin string) error {
	if err := executable(bin); err != nil {
		return fmt.Errorf("binary %s not found (run `make build` first)", bin)
	}
	return nil
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
