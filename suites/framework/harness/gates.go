package harness

import (
	"github.com/gangconf/gangconf/fixtures"
	"github.com/gangconf/gangconf/suites/framework/cluster"
)

// clusterControl is a negative control that changes the cluster, not only
// the scheduler.
type clusterControl struct {
	// scheduler is the reference scheduler profile the control runs.
	scheduler string
	// featureGates and runtimeConfig, when set, replace the cluster's own,
	// whatever its profile.
	featureGates, runtimeConfig string
	// controllerManagerOff are profile gates the controller manager alone
	// runs without, while the API server and the scheduler have them.
	controllerManagerOff []string
}

var clusterControls = map[string]clusterControl{
	// A cluster from before KEP-4671: GenericWorkload off everywhere and
	// scheduling.k8s.io/v1beta1 not served; pods are placed one by one.
	"no-api": {scheduler: "no-gang", featureGates: "GenericWorkload=false", runtimeConfig: "scheduling.k8s.io/v1beta1=false"},
	// The profile's cluster and the reference scheduler, with a controller
	// manager that lacks WorkloadWithJob: the API keeps a Job's
	// spec.scheduling, but no controller turns it into a Workload and a
	// PodGroup.
	"no-job-workload": {scheduler: "reference", controllerManagerOff: []string{"WorkloadWithJob"}},
}

// schedulerProfile is the reference scheduler profile a SCHEDULER runs.
func schedulerProfile(name string) string {
	if c, ok := clusterControls[name]; ok {
		return c.scheduler
	}
	return name
}

// clusterOptions are the gates and API versions of a kwok cluster of the
// profile (nil: none beyond the PodGroup API) under the SCHEDULER: every
// cluster's, the profile's, and what a cluster control changes.
func clusterOptions(prof *fixtures.Profile, sched string) cluster.KwokOptions {
	o := cluster.KwokOptions{FeatureGates: cluster.FeatureGates, RuntimeConfig: cluster.RuntimeConfig}
	if prof != nil {
		o.FeatureGates = join(o.FeatureGates, prof.Gates())
		o.RuntimeConfig = join(o.RuntimeConfig, prof.APIVersions())
	}
	c, ok := clusterControls[sched]
	if !ok {
		return o
	}
	if c.featureGates != "" {
		o.FeatureGates, o.RuntimeConfig = c.featureGates, c.runtimeConfig
	}
	if len(c.controllerManagerOff) > 0 && prof != nil {
		gates := map[string]bool{}
		for k, v := range prof.FeatureGates {
			gates[k] = v
		}
		for _, g := range c.controllerManagerOff {
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
	if c, ok := clusterControls[e.Settings.Scheduler]; ok && c.featureGates != "" {
		return ""
	}
	prof, err := fixtures.LoadProfile(e.Cluster)
	if err != nil {
		return ""
	}
	return prof.Gates()
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "," + b
}
