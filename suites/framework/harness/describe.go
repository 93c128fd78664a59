package harness

import (
	"cmp"
	"context"
	"path/filepath"
	"strings"

	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// Describe gathers the environment of the run.
func (e *Env) Describe(ctx context.Context) results.Environment {
	out := results.Local()
	out.Provider = e.Provider
	out.Scheduler = results.Scheduler{Name: e.Settings.Scheduler, SchedulerName: e.SchedulerName}
	if cs, err := e.Clientset(); err == nil {
		if v, err := cs.Discovery().ServerVersion(); err == nil {
			out.KubernetesVersion = v.GitVersion
		}
	}
	if e.Provider == "kwok" {
		o := e.kwokOptions()
		out.ClusterProfile = e.Cluster
		out.ClusterMode = cmp.Or(o.Mode, cluster.ModeRealistic)
		out.FeatureGates, out.RuntimeConfig = cluster.FeatureGates, cluster.RuntimeConfig
		if o.FeatureGates != "" {
			out.FeatureGates, out.RuntimeConfig = o.FeatureGates, o.RuntimeConfig
		}
		out.APIServerEnv, out.APIServerArgs = o.APIServerEnv, o.APIServerArgs
	}
	e.describeKind(&out)
	out.Nodes = e.NodeCreation
	if a := e.Admission; a != nil {
		out.Admission = &results.Admission{Name: a.Kind.Name, Product: a.Kind.Product, Version: a.Version, About: a.Kind.About, Broken: a.Kind.Broken}
	}
	if p := e.SchedulerProcess; p != nil {
		out.Scheduler.Version = results.VersionOf(ctx, p.Binary)
		for _, a := range p.Args {
			if v, ok := strings.CutPrefix(a, "--feature-gates="); ok {
				out.Scheduler.FeatureGates = v
			}
		}
	}
	return out
}

// WriteEnvironment writes environment.json into the results directory.
func (e *Env) WriteEnvironment(ctx context.Context) error {
	return results.WriteJSON(filepath.Join(e.Results, "environment.json"), e.Describe(ctx))
}
