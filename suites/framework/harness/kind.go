package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
)

// kindSchedulerName is the name kind's own kube-scheduler serves. On
// PROVIDER=kind that scheduler always runs (it is a static pod of the node
// image), with GenericWorkload on through the kubeadm patch: it is what
// SCHEDULER=external SCHEDULER_NAME=default-scheduler tests there.
const kindSchedulerName = "default-scheduler"

func (s *Settings) kindOptions(logf func(string, ...any)) cluster.KindOptions {
	return cluster.KindOptions{Name: s.ClusterName, NodeImage: s.KindNodeImage, WorkDir: s.WorkDir, Logf: logf}
}

// validateKind checks a kind run before anything starts: the node image and
// cluster name, and that the scheduler under test, of kind k, does not
// serve the name kind's own kube-scheduler serves (two schedulers would race
// for the same pods, and the results would say nothing about either).
func (s *Settings) validateKind(k kinds.Kind) error {
	if _, err := cluster.KindConfig(s.kindOptions(nil)); err != nil {
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

// upKind makes the kind cluster. Its nodes are the image's kubelets; the
// suite adds no nodes of its own there, and the preflight finds out whether
// kwok runs in the cluster to make fake ones for specs that need a slice.
func (e *Env) upKind(ctx context.Context, logf func(string, ...any)) error {
	start := time.Now()
	k, err := cluster.UpKind(ctx, e.kindOptions(logf))
	if err != nil {
		return err
	}
	e.Kind = k
	e.Kubeconfig = k.Kubeconfig
	logf("kind cluster %q (image %s) up in %s, kubeconfig %s", e.ClusterName, e.KindNodeImage,
		time.Since(start).Round(100*time.Millisecond), k.Kubeconfig)
	return nil
}

// attachKind finds a kind cluster made by an earlier Up (make cluster-up).
func attachKind(s Settings) (*Env, error) {
	k, err := cluster.AttachKind(s.kindOptions(nil))
	if err != nil {
		return nil, err
	}
	env := newEnv(s)
	env.Kind, env.Kubeconfig = k, k.Kubeconfig
	return env, nil
}

// downKind keeps the nodes' logs with the results and deletes the cluster.
func (e *Env) downKind() error {
	if e.Kind == nil {
		return nil
	}
	var errs []error
	if err := e.Kind.ExportLogs(filepath.Join(e.logDir(), "control-plane")); err != nil {
		errs = append(errs, fmt.Errorf("export kind logs: %w", err))
	}
	errs = append(errs, e.Kind.Down())
	e.Kind = nil
	return errors.Join(errs...)
}

// describeKind records what a kind cluster ran with.
func (e *Env) describeKind(out *Environment) {
	if e.Provider != "kind" {
		return
	}
	out.FeatureGates, out.RuntimeConfig = cluster.FeatureGates, cluster.RuntimeConfig
	out.NodeImage = e.KindNodeImage
}
