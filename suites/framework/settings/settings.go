// Package settings is what a gangconf command is told: the environment
// variables the Makefile passes (Settings, FromEnv), checked before anything
// starts (Validate), and the rules every such command keeps about its
// arguments and signals (NoArguments, SignalContext).
package settings

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/admission"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/proc"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// Settings are what a user chooses, from the Makefile's variables.
type Settings struct {
	// Provider of the cluster: kwok (made here), kind (made here, needs
	// Docker) or existing (KUBECONFIG).
	Provider string
	// Cluster is the fixtures profile of a kwok cluster.
	Cluster string
	// ClusterMode is how a kwok cluster the harness makes behaves: realistic
	// or upstream (cluster.Modes).
	ClusterMode string
	// Scheduler under test: the name of one of its kinds (package kinds).
	Scheduler string
	// SchedulerName is what pods name in spec.schedulerName.
	SchedulerName string
	// Kubeconfig of an existing cluster.
	Kubeconfig string
	// Results is the results directory; logs go to LogDir.
	Results string
	// LogDir holds the scheduler's and the control plane's logs; empty:
	// Results/logs.
	LogDir string
	// BinDir holds the pinned binaries.
	BinDir string
	// WorkDir holds clusters' files (kwokctl's work directory).
	WorkDir string
	// ClusterName is the kwokctl cluster name.
	ClusterName string
	// SchedulerPort is the scheduler's secure port; 0 picks a free one.
	SchedulerPort int
	// SchedulerCmd is SCHEDULER=command's command line (a Go template with
	// {{.Kubeconfig}} and {{.SchedulerName}}), SchedulerReadyURL its optional
	// readiness probe.
	SchedulerCmd      string
	SchedulerReadyURL string
	// SchedulerRestartCmd, for a scheduler the harness does not start
	// (external), is a shell command that kills it as a crash would and
	// lets what runs it bring it back: the fault specs' crash.
	SchedulerRestartCmd string
	// SchedulerBin, SchedulerConfig and SchedulerArgs are SCHEDULER=binary's
	// kube-scheduler-compatible program, its KubeSchedulerConfiguration and
	// extra arguments (split on spaces).
	SchedulerBin    string
	SchedulerConfig string
	SchedulerArgs   string
	// KindNodeImage is PROVIDER=kind's node image (no default).
	KindNodeImage string
	// APIServerEnv and APIServerArgs are extra environment and flags for a
	// kwok cluster's API server.
	APIServerEnv  map[string]string
	APIServerArgs map[string]string
	// Admission is the admission controller in front of the scheduler
	// (package admission): "" for none, kueue, or the crafted broken stack
	// kueue-partial. KueueModule is the Go module that pins Kueue, KueueBin
	// its manager built from it.
	Admission   string
	KueueModule string
	KueueBin    string
}

// Environment variable names, shared by the Makefile, the CLI and the suites.
const (
	EnvProvider      = "PROVIDER"
	EnvCluster       = "CLUSTER"
	EnvClusterMode   = "CLUSTER_MODE"
	EnvScheduler     = "SCHEDULER"
	EnvSchedulerName = "SCHEDULER_NAME"
	EnvKubeconfig    = "KUBECONFIG"
	EnvResults       = "RESULTS"
	EnvBinDir        = "BIN_DIR"
	EnvWorkDir       = "WORK_DIR"
	EnvClusterName   = "CLUSTER_NAME"
	EnvSchedulerCmd  = "SCHEDULER_CMD"
	EnvSchedulerURL  = "SCHEDULER_READY_URL"
	EnvRestartCmd    = "SCHEDULER_RESTART_CMD"
	EnvSchedulerBin  = "SCHEDULER_BIN"
	EnvSchedulerConf = "SCHEDULER_CONFIG"
	EnvSchedulerArgs = "SCHEDULER_ARGS"
	EnvKindNodeImage = "KIND_NODE_IMAGE"
	EnvAdmission     = "ADMISSION"
	EnvKueueModule   = "KUEUE_MODULE"
	EnvKueueBin      = "KUEUE_BIN"
)

// FromEnv reads settings from the environment, with the Makefile's defaults.
func FromEnv() Settings {
	get := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	return Settings{
		Provider:      get(EnvProvider, "kwok"),
		Cluster:       get(EnvCluster, "ci-small"),
		ClusterMode:   get(EnvClusterMode, cluster.ModeRealistic),
		Scheduler:     get(EnvScheduler, kinds.Default),
		SchedulerName: os.Getenv(EnvSchedulerName),
		Kubeconfig:    os.Getenv(EnvKubeconfig),
		Results:       get(EnvResults, "_output/results"),
		BinDir:        get(EnvBinDir, "_output/bin"),
		WorkDir:       get(EnvWorkDir, "_output/kwok"),
		ClusterName:   get(EnvClusterName, "gangconf"),

		SchedulerCmd:        os.Getenv(EnvSchedulerCmd),
		SchedulerReadyURL:   os.Getenv(EnvSchedulerURL),
		SchedulerRestartCmd: os.Getenv(EnvRestartCmd),
		SchedulerBin:        os.Getenv(EnvSchedulerBin),
		SchedulerConfig:     os.Getenv(EnvSchedulerConf),
		SchedulerArgs:       os.Getenv(EnvSchedulerArgs),
		KindNodeImage:       os.Getenv(EnvKindNodeImage),

		Admission:   os.Getenv(EnvAdmission),
		KueueModule: get(EnvKueueModule, "suites/framework/admission/kueue"),
		KueueBin:    os.Getenv(EnvKueueBin),
	}
}

// Validate checks the settings before anything starts, so bad input never
// leaves half a cluster behind.
func (s *Settings) Validate() error {
	// An unknown SCHEDULER is reported after the provider's problems, as
	// the zero kind passes the provider's checks.
	k, kindErr := kinds.Lookup(s.Scheduler)
	if err := s.validateProvider(k); err != nil {
		return err
	}
	if kindErr != nil {
		return kindErr
	}
	if err := s.validateScheduler(k); err != nil {
		return err
	}
	return s.validateAdmission()
}

// validateAdmission checks ADMISSION: a known kind, on a cluster the harness
// makes (it installs Kueue's CRDs and webhooks there and removes them with
// it), with Kueue's module and manager at hand.
func (s *Settings) validateAdmission() error {
	if s.Admission == "" {
		return nil
	}
	if _, err := admission.Lookup(s.Admission); err != nil {
		return err
	}
	if s.Provider != "kwok" {
		return fmt.Errorf("ADMISSION=%s runs Kueue against a kwok cluster the harness makes, not PROVIDER=%s: its CRDs and webhooks go with that cluster", s.Admission, s.Provider)
	}
	if _, err := os.Stat(filepath.Join(s.KueueModule, "go.mod")); err != nil {
		return fmt.Errorf("ADMISSION=%s needs KUEUE_MODULE=<the Go module that pins Kueue, suites/framework/admission/kueue>; %s has no go.mod", s.Admission, s.KueueModule)
	}
	return admission.CheckBinary(s.Admission, s.KueueBinary())
}

// KueueBinary is Kueue's manager: KUEUE_BIN, or kueue in BIN_DIR.
func (s Settings) KueueBinary() string {
	if s.KueueBin != "" {
		return s.KueueBin
	}
	return filepath.Join(s.BinDir, "kueue")
}

// checkModeOffKwok refuses a cluster mode only a kwok cluster the harness
// makes can have, on another provider.
func (s *Settings) checkModeOffKwok() error {
	if s.ClusterMode == cluster.ModeUpstream {
		return fmt.Errorf("CLUSTER_MODE=%s is a kwok cluster the harness makes (PROVIDER=kwok), not PROVIDER=%s", s.ClusterMode, s.Provider)
	}
	return nil
}

// validateProvider checks what the provider needs, and on kind that the
// scheduler under test does not clash with kind's own.
func (s *Settings) validateProvider(k kinds.Kind) error {
	switch s.Provider {
	case "kwok":
		if _, err := fixtures.LoadProfile(s.Cluster); err != nil {
			return err
		}
		if err := cluster.CheckMode(s.ClusterMode); err != nil {
			return fmt.Errorf("CLUSTER_MODE: %w", err)
		}
		if err := cluster.CheckBinaries(s.BinDir, cluster.Binaries...); err != nil {
			return err
		}
	case "kind":
		if err := s.checkModeOffKwok(); err != nil {
			return err
		}
		return s.validateKind(k)
	case "existing":
		if err := s.checkModeOffKwok(); err != nil {
			return err
		}
		if s.Kubeconfig == "" {
			return errors.New("PROVIDER=existing needs KUBECONFIG=<path to the cluster's kubeconfig>")
		}
		if _, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig); err != nil {
			return fmt.Errorf("KUBECONFIG %s is not a usable kubeconfig: %w", s.Kubeconfig, err)
		}
	default:
		return fmt.Errorf("unknown PROVIDER %q (known: kwok, kind, existing)", s.Provider)
	}
	return nil
}

// validateScheduler checks what the scheduler's kind needs, and fills in
// the schedulerName a reference profile serves.
func (s *Settings) validateScheduler(k kinds.Kind) error {
	if k.NeedsName && s.SchedulerName == "" {
		return fmt.Errorf("SCHEDULER=%s needs SCHEDULER_NAME=<the schedulerName it serves>", k.Name)
	}
	if k.Started && s.SchedulerRestartCmd != "" {
		return fmt.Errorf("SCHEDULER_RESTART_CMD is for a scheduler the harness does not start (SCHEDULER=external); "+
			"the harness starts SCHEDULER=%s itself and restarts it after a crash: unset SCHEDULER_RESTART_CMD", k.Name)
	}
	if k.Cluster != nil && s.Provider != "kwok" {
		return fmt.Errorf("SCHEDULER=%s changes the cluster's %s, so it needs PROVIDER=kwok", k.Name, k.Cluster.Component())
	}
	switch k.Class {
	case kinds.External:
		// Its readiness URL is how EnsureScheduler sees it back after a
		// SCHEDULER_RESTART_CMD.
		return s.validateReadyURL()
	case kinds.Ceiling:
		return fmt.Errorf("SCHEDULER=%s runs inside the benchmark runner: make bench takes it, nothing else does", k.Name)
	case kinds.Command:
		if _, err := (scheduler.CommandOptions{Template: s.SchedulerCmd}).CommandLine(); err != nil {
			return err
		}
		return s.validateReadyURL()
	case kinds.Binary:
		return s.validateBinary()
	}
	// The reference's profile fixes the name it serves: pods naming any
	// other would wait for no one, and every spec would fail as if the
	// scheduler were broken.
	switch s.SchedulerName {
	case "":
		s.SchedulerName = k.SchedulerName
	case k.SchedulerName:
	default:
		return fmt.Errorf("SCHEDULER=%s serves schedulerName %s, not SCHEDULER_NAME=%s: unset SCHEDULER_NAME, "+
			"or test the scheduler that serves %s with SCHEDULER=external, command or binary", k.Name, k.SchedulerName, s.SchedulerName, s.SchedulerName)
	}
	return cluster.CheckBinaries(s.BinDir, "reference-scheduler")
}

// validateReadyURL checks the optional readiness URL (command, external): one
// that is no http(s) URL never answers, and the run would wait a minute
// for it before failing.
func (s *Settings) validateReadyURL() error {
	if s.SchedulerReadyURL == "" {
		return nil
	}
	if u, err := url.Parse(s.SchedulerReadyURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("SCHEDULER_READY_URL %q is not an http(s) URL: give the whole URL, e.g. http://127.0.0.1:10259/readyz", s.SchedulerReadyURL)
	}
	return nil
}

// validateBinary checks SCHEDULER=binary's program and configuration.
func (s *Settings) validateBinary() error {
	if s.SchedulerBin == "" || s.SchedulerConfig == "" {
		return errors.New("SCHEDULER=binary needs SCHEDULER_BIN=<kube-scheduler-compatible binary> and SCHEDULER_CONFIG=<KubeSchedulerConfiguration file>")
	}
	cfg, err := os.ReadFile(s.SchedulerConfig)
	if err != nil {
		return fmt.Errorf("SCHEDULER_CONFIG %s cannot be read (%v): give the path of your KubeSchedulerConfiguration file", s.SchedulerConfig, errors.Unwrap(err))
	}
	if _, err := scheduler.WithKubeconfig(cfg, "/"); err != nil {
		return fmt.Errorf("SCHEDULER_CONFIG %s: %w", s.SchedulerConfig, err)
	}
	// Not cluster.CheckBinaries: its fix, `make build`, builds only the
	// harness's own binaries.
	if !proc.IsExecutable(s.SchedulerBin) {
		return fmt.Errorf("SCHEDULER_BIN %s is not an executable file: give the path of your kube-scheduler-compatible binary", s.SchedulerBin)
	}
	return nil
}

// CheckLabelFilter fails a run whose LABEL_FILTER selects none of the
// suite's total specs: Ginkgo would run nothing and pass, so a misspelt
// label would look like a green run.
func CheckLabelFilter(filter string, selected, total int) error {
	if filter == "" || selected > 0 {
		return nil
	}
	return fmt.Errorf("LABEL_FILTER %q selects none of the %d specs: use their labels profile:, area: and item:, "+
		"as the README's Profiles section lists them", filter, total)
}

// Logs is the directory of the scheduler's and the control plane's logs:
// LogDir, or Results/logs.
func (s Settings) Logs() string {
	if s.LogDir != "" {
		return s.LogDir
	}
	return filepath.Join(s.Results, "logs")
}

// kindSchedulerName is the name kind's own kube-scheduler serves. On
// PROVIDER=kind that scheduler always runs (it is a static pod of the node
// image), with GenericWorkload on through the kubeadm patch: it is what
// SCHEDULER=external SCHEDULER_NAME=default-scheduler tests there.
const kindSchedulerName = "default-scheduler"

// KindOptions are PROVIDER=kind's cluster options from the settings.
func (s *Settings) KindOptions(logf func(string, ...any)) cluster.KindOptions {
	return cluster.KindOptions{Name: s.ClusterName, NodeImage: s.KindNodeImage, WorkDir: s.WorkDir, Logf: logf}
}

// validateKind checks a kind run before anything starts: the node image and
// cluster name, and that the scheduler under test, of kind k, does not
// serve the name kind's own kube-scheduler serves (two schedulers would race
// for the same pods, and the results would say nothing about either).
func (s *Settings) validateKind(k kinds.Kind) error {
	if _, err := cluster.KindConfig(s.KindOptions(nil)); err != nil {
		return err
	}
	clash := func(what string) error {
		return fmt.Errorf("PROVIDER=kind runs kind's own kube-scheduler under schedulerName %s, and %s would serve that name too: "+
			"two schedulers would race for the same pods. Test kind's kube-scheduler with SCHEDULER=external SCHEDULER_NAME=%s, "+
			"or run yours with SCHEDULER=command or binary under another schedulerName", kindSchedulerName, what, kindSchedulerName)
	}
	switch {
	case k.Class == kinds.Command && s.SchedulerName == kindSchedulerName:
		return clash("SCHEDULER=command with SCHEDULER_NAME=" + kindSchedulerName)
	case k.Class == kinds.Binary:
		// An unreadable configuration is reported by the scheduler checks.
		if cfg, err := os.ReadFile(s.SchedulerConfig); err == nil && scheduler.ConfigSchedulerName(cfg) == kindSchedulerName {
			return clash("SCHEDULER_CONFIG " + s.SchedulerConfig + " (its first profile's schedulerName)")
		}
	case k.Cluster != nil:
		// Reported by the scheduler checks: such a control needs kwok.
	case k.Profile.Name != "" && k.SchedulerName == kindSchedulerName:
		return clash("SCHEDULER=" + k.Name + " (the reference scheduler's profile)")
	}
	return nil
}
