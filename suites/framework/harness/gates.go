package harness

import (
	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/kinds"
	"github.com/gangconf/gangconf/suites/framework/versions"
)

// clusterOptions are the gates and API versions of a kwok cluster of the
// profile (nil: none beyond the PodGroup API) under the scheduler kind's
// change c (nil: none): every cluster's, the profile's, and what c changes.
func clusterOptions(prof *fixtures.Profile, c *kinds.ClusterChange) cluster.KwokOptions {
	o := cluster.KwokOptions{FeatureGates: cluster.FeatureGates, RuntimeConfig: cluster.RuntimeConfig}
	if prof != nil {
		o.FeatureGates = join(o.FeatureGates, prof.Gates())
		o.RuntimeConfig = join(o.RuntimeConfig, prof.APIVersions())
		o.WithoutKwokController = prof.WithoutKwokController
	}
	if c == nil {
		return o
	}
	if c.FeatureGates != "" {
		o.FeatureGates, o.RuntimeConfig = c.FeatureGates, c.RuntimeConfig
	}
	if len(c.ControllerManagerOff) > 0 && prof != nil {
		gates := map[string]bool{}
		for k, v := range prof.FeatureGates {
			gates[k] = v
		}
		for _, g := range c.ControllerManagerOff {
			gates[g] = false
		}
		o.ControllerManagerFeatureGates = join(cluster.FeatureGates, (&fixtures.Profile{FeatureGates: gates}).Gates())
	}
	return o
}

// clusterGates are the profile's own gates, which the reference scheduler
// takes on a cluster the harness made ("" on any other).
func (e *Env) clusterGates() string {
	if e.Provider != "kwok" {
		return ""
	}
	if c := e.SchedulerKind.Cluster; c != nil && c.FeatureGates != "" {
		return ""
	}
	prof, err := fixtures.LoadProfile(e.Cluster)
	if err != nil {
		return ""
	}
	return versions.Gates(e.KubernetesVersion, prof.Gates())
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "," + b
}
