package scheduler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

// KubeSchedulerOptions runs a kube-scheduler-compatible binary: one that
// takes --config, --secure-port and --bind-address and serves /readyz.
type KubeSchedulerOptions struct {
	// Name says which scheduler this is in logs and file names.
	Name   string
	Binary string
	// Config is a KubeSchedulerConfiguration; its clientConnection.kubeconfig
	// is replaced with Kubeconfig.
	Config     []byte
	ExtraArgs  []string
	Kubeconfig string
	RunDir     string
	LogDir     string
	// Port is the secure port; 0 picks a free one.
	Port int
}

// KubeScheduler prepares a kube-scheduler-compatible process, checking
// everything it can before anything starts. It returns the schedulerName
// of the configuration's first profile.
func KubeScheduler(o KubeSchedulerOptions) (*Process, string, error) {
	bin, err := filepath.Abs(o.Binary)
	if err != nil {
		return nil, "", err
	}
	if err := executable(bin); err != nil {
		return nil, "", fmt.Errorf("scheduler binary %s: %w", bin, err)
	}
	kubeconfig, err := filepath.Abs(o.Kubeconfig)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		return nil, "", fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg, err := WithKubeconfig(o.Config, kubeconfig)
	if err != nil {
		return nil, "", err
	}
	port, err := FreePort(o.Port)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(o.RunDir, 0o755); err != nil {
		return nil, "", err
	}
	cfgPath := filepath.Join(o.RunDir, "scheduler-"+o.Name+".yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, "", err
	}
	args := append([]string{
		"--config=" + cfgPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + fmt.Sprint(port),
		// Readiness and metrics are read without credentials; they carry
		// no secrets.
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
	}, o.ExtraArgs...)
	p := &Process{
		Name:     o.Name,
		Binary:   bin,
		Args:     args,
		LogPath:  filepath.Join(o.LogDir, "scheduler-"+o.Name+".log"),
		Port:     port,
		ReadyURL: fmt.Sprintf("https://127.0.0.1:%d/readyz", port),
		PIDFile:  filepath.Join(o.RunDir, "scheduler.pid"),
	}
	return p, ConfigSchedulerName(o.Config), nil
}

// ConfigSchedulerName is the first profile's schedulerName, kube-scheduler's
// default when the configuration names none.
func ConfigSchedulerName(cfg []byte) string {
	var doc struct {
		Profiles []struct {
			SchedulerName string `json:"schedulerName"`
		} `json:"profiles"`
	}
	if yaml.Unmarshal(cfg, &doc) == nil && len(doc.Profiles) > 0 && doc.Profiles[0].SchedulerName != "" {
		return doc.Profiles[0].SchedulerName
	}
	return "default-scheduler"
}

// CommandOptions runs any program as the scheduler under test.
type CommandOptions struct {
	// Template is the command line, a Go template with the fields
	// {{.Kubeconfig}} and {{.SchedulerName}}; run by /bin/sh.
	Template      string
	Kubeconfig    string
	SchedulerName string
	// ReadyURL, if set, answers 200 once the scheduler is ready; without
	// it the harness waits until the scheduler has bound a probe pod.
	ReadyURL string
	RunDir   string
	LogDir   string
}

// CommandLine fills the template.
func (o CommandOptions) CommandLine() (string, error) {
	t, err := template.New("SCHEDULER_CMD").Option("missingkey=error").Parse(o.Template)
	if err != nil {
		return "", fmt.Errorf("SCHEDULER_CMD is not a valid template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ Kubeconfig, SchedulerName string }{o.Kubeconfig, o.SchedulerName}); err != nil {
		return "", fmt.Errorf("SCHEDULER_CMD: %w (the fields are {{.Kubeconfig}} and {{.SchedulerName}})", err)
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", fmt.Errorf("SCHEDULER_CMD is empty")
	}
	return b.String(), nil
}

// Command prepares a vendor's scheduler program.
func Command(o CommandOptions) (*Process, error) {
	kubeconfig, err := filepath.Abs(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	o.Kubeconfig = kubeconfig
	line, err := o.CommandLine()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.RunDir, 0o755); err != nil {
		return nil, err
	}
	return &Process{
		Name:     "command",
		Binary:   "/bin/sh",
		Args:     []string{"-c", line},
		LogPath:  filepath.Join(o.LogDir, "scheduler-command.log"),
		ReadyURL: o.ReadyURL,
		PIDFile:  filepath.Join(o.RunDir, "scheduler.pid"),
	}, nil
}

// executable checks that path is an executable file.
func executable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("not found")
	case st.IsDir() || st.Mode()&0o111 == 0:
		return fmt.Errorf("not an executable file")
	}
	return nil
}
