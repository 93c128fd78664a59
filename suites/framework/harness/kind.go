package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// upKind makes the kind cluster. Its nodes are the image's kubelets; the
// suite adds no nodes of its own there, and the preflight finds out whether
// kwok runs in the cluster to make fake ones for specs that need a slice.
func (e *Env) upKind(ctx context.Context, logf func(string, ...any)) error {
	start := time.Now()
	k, err := cluster.UpKind(ctx, e.KindOptions(logf))
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
func attachKind(s settings.Settings) (*Env, error) {
	k, err := cluster.AttachKind(s.KindOptions(nil))
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
	if err := e.Kind.ExportLogs(filepath.Join(e.Logs(), "control-plane")); err != nil {
		errs = append(errs, fmt.Errorf("export kind logs: %w", err))
	}
	errs = append(errs, e.Kind.Down())
	e.Kind = nil
	return errors.Join(errs...)
}

// describeKind records what a kind cluster ran with.
func (e *Env) describeKind(out *results.Environment) {
	if e.Provider != "kind" {
		return
	}
	out.FeatureGates, out.RuntimeConfig = cluster.FeatureGates, cluster.RuntimeConfig
	out.NodeImage = e.KindNodeImage
}
