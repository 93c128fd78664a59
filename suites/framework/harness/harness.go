// Package harness puts a run together from its settings: a cluster from a
// provider, its nodes, and the scheduler under test. Whatever it starts it
// stops, on success, on failure and on Ctrl-C.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/admission"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
	"github.com/gangconf/gangconf/suites/framework/settings"
	"github.com/gangconf/gangconf/suites/framework/versions"
)

// Env is a cluster with its scheduler under test, ready for specs.
type Env struct {
	settings.Settings
	// SchedulerKind is the kind of the scheduler under test (Settings.Scheduler).
	SchedulerKind kinds.Kind
	// Kubeconfig is where clients find the cluster.
	Kubeconfig string
	Kwok       *cluster.Kwok
	Kind       *cluster.Kind
	// SchedulerProcess is the scheduler under test when the harness runs it.
	SchedulerProcess *scheduler.Process
	// RunID labels the run's fake nodes (cluster.LabelRun) once
	// ManageFakeNodes has run; Down removes them.
	RunID string
	// ProbeNode is the run's one fake node for the scheduler's readiness
	// probe, on a cluster the harness did not make (see ManageFakeNodes).
	ProbeNode *cluster.Slice
	// KwokController is the harness's own kwok controller, when no kwok in
	// the cluster manages the run's fake nodes.
	KwokController *cluster.KwokController
	// KubernetesVersion is the version of the pinned binaries, on a cluster
	// the harness makes; the gates it passes follow it (package versions).
	KubernetesVersion string
	// NodeCreation is how the profile's nodes came up, when this process
	// made them; Describe records it.
	NodeCreation *results.NodeCreation
	// Admission is the admission controller in front of the scheduler
	// (ADMISSION), once started; Down stops and removes it.
	Admission *admission.Stack

	// schedulerDown is set from a SCHEDULER_RESTART_CMD's crash until the
	// scheduler is seen answering again (restart.go).
	schedulerDown bool
	// probes counts probe pods: each gets a namespace of its own.
	probes int
}

// Up makes the cluster, its nodes and the scheduler under test. When
// detached, the scheduler outlives this process (make cluster-up); Down in a
// later process stops it through its PID file. Any failure undoes what was
// made before it returns.
func Up(ctx context.Context, s settings.Settings, detached bool, logf func(string, ...any)) (*Env, error) {
	return up(ctx, s, "", detached, logf)
}

// UpRun is Up, not detached, for a run whose fake nodes carry
// cluster.LabelRun=runID: before the scheduler starts, ManageFakeNodes makes
// sure that something makes them Ready, and the scheduler's readiness probe
// then lands on the run's probe node.
func UpRun(ctx context.Context, s settings.Settings, runID string, logf func(string, ...any)) (*Env, error) {
	if err := checkSuiteMode(s); err != nil {
		return nil, err
	}
	return up(ctx, s, runID, false, logf)
}

// checkSuiteMode refuses a cluster mode the suites' specs cannot pass in:
// they watch pods turn Running and rely on the controller manager.
func checkSuiteMode(s settings.Settings) error {
	if s.ClusterMode == cluster.ModeUpstream {
		return fmt.Errorf("CLUSTER_MODE=%s is for benchmarks: its pods never turn Running and its controller manager runs no Job, PodGroup or garbage collection controllers; the conformance suites need CLUSTER_MODE=%s",
			cluster.ModeUpstream, cluster.ModeRealistic)
	}
	return nil
}

func up(ctx context.Context, s settings.Settings, runID string, detached bool, logf func(string, ...any)) (env *Env, err error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	env = newEnv(s)
	defer func() {
		if err != nil {
			if derr := env.Down(); derr != nil {
				logf("cleanup after failure: %v", derr)
			}
			env = nil
		}
	}()
	if s.Provider == "kwok" {
		if env.KubernetesVersion, err = versions.OfBinary(filepath.Join(s.BinDir, "kube-apiserver")); err != nil {
			return env, err
		}
		if err := env.upKwok(ctx, logf); err != nil {
			return env, err
		}
	}
	if s.Provider == "kind" {
		if err := env.upKind(ctx, logf); err != nil {
			return env, err
		}
	}
	if runID != "" {
		if err := env.ManageFakeNodes(ctx, runID, logf); err != nil {
			return env, err
		}
	}
	proc, err := env.prepareScheduler()
	if err != nil {
		return env, err
	}
	if proc != nil {
		if err := proc.Start(detached); err != nil {
			return env, err
		}
		env.SchedulerProcess = proc
		if err := env.waitSchedulerReady(ctx, proc); err != nil {
			return env, err
		}
		logf("scheduler %s ready (schedulerName %s), log %s", proc.Name, env.SchedulerName, proc.LogPath)
	}
	if err := env.upAdmission(ctx, detached, logf); err != nil {
		return env, err
	}
	return env, nil
}

// upAdmission starts the admission controller ADMISSION names, in front of
// the scheduler; none when it is unset.
func (e *Env) upAdmission(ctx context.Context, detached bool, logf func(string, ...any)) error {
	if e.Settings.Admission == "" {
		return nil
	}
	k, err := admission.Lookup(e.Settings.Admission)
	if err != nil {
		return err
	}
	if detached {
		return fmt.Errorf("ADMISSION=%s runs for a make conformance run only, not a cluster left running by make cluster-up", k.Name)
	}
	cfg, err := e.RESTConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.runDir(), 0o755); err != nil {
		return err
	}
	s, err := admission.Start(ctx, admission.Options{
		Kind: k, Binary: e.KueueBinary(), Module: e.KueueModule, Kubeconfig: e.Kubeconfig, Config: cfg,
		RunDir: e.runDir(), LogDir: e.Logs(), Labels: map[string]string{cluster.LabelRun: e.RunID},
	}, logf)
	if err != nil {
		return err
	}
	e.Admission = s
	return nil
}

// newEnv is the run of settings s, before anything is up. An unknown
// SCHEDULER is the zero kind: a scheduler the harness neither starts nor
// changes the cluster for (Up rejects it before).
func newEnv(s settings.Settings) *Env {
	k, _ := kinds.Lookup(s.Scheduler)
	return &Env{Settings: s, SchedulerKind: k, Kubeconfig: s.Kubeconfig}
}

// waitSchedulerReady waits on the scheduler's readiness URL when it has
// one, else until it binds a probe pod.
func (e *Env) waitSchedulerReady(ctx context.Context, proc *scheduler.Process) error {
	if proc.ReadyURL != "" {
		return proc.WaitReady(ctx, time.Minute)
	}
	return e.waitProbeBound(ctx, proc)
}

// prepareScheduler builds the process of the scheduler under test; nil when
// the harness does not run it (external).
func (e *Env) prepareScheduler() (*scheduler.Process, error) {
	logDir := e.Logs()
	switch k := e.SchedulerKind; {
	case !k.Started:
		return nil, nil
	case k.Class == kinds.Command:
		return scheduler.Command(scheduler.CommandOptions{
			Template: e.SchedulerCmd, Kubeconfig: e.Kubeconfig, SchedulerName: e.SchedulerName,
			ReadyURL: e.SchedulerReadyURL, RunDir: e.runDir(), LogDir: logDir,
		})
	case k.Class == kinds.Binary:
		cfg, err := os.ReadFile(e.SchedulerConfig)
		if err != nil {
			return nil, err
		}
		proc, name, err := scheduler.KubeScheduler(scheduler.KubeSchedulerOptions{
			Name: k.Name, Binary: e.SchedulerBin, Config: cfg, ExtraArgs: strings.Fields(e.SchedulerArgs),
			Kubeconfig: e.Kubeconfig, RunDir: e.runDir(), LogDir: logDir, Port: e.SchedulerPort,
		})
		if err == nil && e.Settings.SchedulerName == "" {
			e.Settings.SchedulerName = name
		}
		return proc, err
	}
	proc, _, err := scheduler.Reference(scheduler.ReferenceOptions{
		Profile: e.SchedulerKind.Profile, BinDir: e.BinDir, Kubeconfig: e.Kubeconfig,
		RunDir: e.runDir(), LogDir: logDir, Port: e.SchedulerPort, ClusterGates: e.clusterGates(),
	})
	return proc, err
}

func (e *Env) kwokOptions() cluster.KwokOptions {
	prof, _ := fixtures.LoadProfile(e.Cluster)
	o := clusterOptions(prof, e.SchedulerKind.Cluster)
	o.FeatureGates = versions.Gates(e.KubernetesVersion, o.FeatureGates)
	o.ControllerManagerFeatureGates = versions.Gates(e.KubernetesVersion, o.ControllerManagerFeatureGates)
	o.Name, o.BinDir, o.WorkDir = e.ClusterName, e.BinDir, e.WorkDir
	o.APIServerEnv, o.APIServerArgs = e.APIServerEnv, e.APIServerArgs
	o.Mode = e.ClusterMode
	return o
}

// runDir holds the run's generated files (scheduler config, PID file).
func (e *Env) runDir() string {
	return filepath.Join(e.WorkDir, "run-"+e.ClusterName)
}

func (e *Env) upKwok(ctx context.Context, logf func(string, ...any)) error {
	prof, err := fixtures.LoadProfile(e.Cluster)
	if err != nil {
		return err
	}
	start := time.Now()
	k, err := cluster.UpKwok(ctx, e.kwokOptions())
	if err != nil {
		return err
	}
	e.Kwok = k
	e.Kubeconfig = k.Kubeconfig
	logf("control plane up in %s", time.Since(start).Round(100*time.Millisecond))
	if prof.Nodes.Count == 0 {
		// A bare control plane (withoutKwokController): no shape to make.
		logf("profile %s has no nodes and no kwok controller", prof.Name)
		return nil
	}
	cs, err := e.Clientset()
	if err != nil {
		return err
	}
	spec, err := cluster.ProfileNodes(prof)
	if err != nil {
		return err
	}
	// kwokctl's kwok controller manages every node of this cluster.
	spec.Registered = true
	start = time.Now()
	if err := cluster.CreateNodes(ctx, cs, spec); err != nil {
		return err
	}
	created := time.Since(start)
	// Registered nodes are Ready from their create; where nodes hold leases,
	// kwok manages a node once it holds its lease.
	if e.ClusterMode != cluster.ModeUpstream {
		if err := cluster.WaitNodesLeased(ctx, cs, spec); err != nil {
			return err
		}
	}
	n := &results.NodeCreation{Count: spec.Set.Count, Created: created, Ready: time.Since(start)}
	e.NodeCreation = n
	logf("%d %s nodes created in %s (%.0f a second), all Ready after %s (%.0f a second)", n.Count, spec.Shape.Name,
		n.Created.Round(100*time.Millisecond), n.CreatedPerSecond(), n.Ready.Round(100*time.Millisecond), n.ReadyPerSecond())
	return nil
}

// Attach finds a cluster made by an earlier `Up` (make cluster-up), so that
// Down can remove it.
func Attach(s settings.Settings) (*Env, error) {
	if s.Provider == "kind" {
		return attachKind(s)
	}
	env := newEnv(s)
	k, err := cluster.AttachKwok(env.kwokOptions())
	if err != nil {
		return nil, err
	}
	env.Kwok = k
	env.Kubeconfig = k.Kubeconfig
	return env, nil
}

// Down stops the scheduler and removes the cluster, whatever state they are
// in. It is safe to call more than once.
func (e *Env) Down() error {
	var errs []error
	// First, while the API server runs: its webhooks go before Kueue stops.
	if e.Admission != nil {
		errs = append(errs, e.Admission.Stop())
		e.Admission = nil
	}
	if e.SchedulerProcess != nil {
		errs = append(errs, e.SchedulerProcess.Stop())
		e.SchedulerProcess = nil
	}
	// A detached scheduler from an earlier process is known by PID file only.
	errs = append(errs, scheduler.StopByPIDFile(filepath.Join(e.runDir(), "scheduler.pid")))
	// While the API server still runs.
	errs = append(errs, e.releaseFakeNodes())
	if e.Kwok != nil {
		if err := e.Kwok.ExportLogs(context.Background(), filepath.Join(e.Logs(), "control-plane")); err != nil {
			errs = append(errs, fmt.Errorf("export control plane logs: %w", err))
		}
		errs = append(errs, e.Kwok.Down())
		e.Kwok = nil
	}
	errs = append(errs, e.downKind())
	_ = os.RemoveAll(e.runDir())
	return errors.Join(errs...)
}

// RESTConfig is the harness's client configuration for the cluster (see
// cluster.RESTConfig).
func (e *Env) RESTConfig() (*rest.Config, error) {
	return cluster.RESTConfig(e.Kubeconfig)
}

// Clientset is a typed client for the cluster.
func (e *Env) Clientset() (kubernetes.Interface, error) {
	cfg, err := e.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
