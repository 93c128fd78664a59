// Package config holds the reference scheduler's profiles: a
// KubeSchedulerConfiguration each, and the feature gates it runs with.
package config

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// Profile is one way of running the reference scheduler binary.
type Profile struct {
	Name string
	// Config is a KubeSchedulerConfiguration, without clientConnection.kubeconfig:
	// the harness fills that in, since kube-scheduler ignores --kubeconfig
	// when --config is given.
	Config []byte
	// FeatureGates go to --feature-gates. The scheduler reads gates only from
	// its command line, not from its configuration file.
	FeatureGates string
	// SchedulerName is the profile's schedulerName, the one pods must name.
	SchedulerName string
	// ClusterGates says whether the scheduler also runs with the gates of
	// the cluster it schedules (an alpha cluster's alpha gates), as a
	// scheduler deployed with that cluster would.
	ClusterGates bool
}

var (
	//go:embed reference.yaml
	reference []byte
	//go:embed no-preemption.yaml
	noPreemption []byte
)

var profiles = map[string]Profile{
	"reference": {Name: "reference", Config: reference, FeatureGates: "GenericWorkload=true", SchedulerName: "default-scheduler", ClusterGates: true},
	// The negative control: the same binary and configuration, with
	// GenericWorkload off in the scheduler only. The API server still serves
	// PodGroups and keeps spec.schedulingGroup, but pods are placed one by one,
	// as before KEP-4671; a suite that passes it is not checking gangs. The
	// alpha gates depend on GenericWorkload, so it takes none of them.
	"no-gang": {Name: "no-gang", Config: reference, FeatureGates: "GenericWorkload=false", SchedulerName: "default-scheduler"},
	// The control for preemption: gangs, but no PostFilter plugin.
	"no-preemption": {Name: "no-preemption", Config: noPreemption, FeatureGates: "GenericWorkload=true", SchedulerName: "default-scheduler", ClusterGates: true},
	// The control for the alpha profile: the reference without the cluster's
	// alpha gates, so topology constraints, composite groups and PodGroup
	// preemption policies reach the API but the scheduler ignores them. On
	// a cluster without alpha gates it is the reference.
	"no-alpha": {Name: "no-alpha", Config: reference, FeatureGates: "GenericWorkload=true", SchedulerName: "default-scheduler"},
}

// Gates is the --feature-gates value for a scheduler of this profile on a
// cluster that turns on clusterGates ("" or a --feature-gates list).
func (p Profile) Gates(clusterGates string) string {
	if !p.ClusterGates || clusterGates == "" {
		return p.FeatureGates
	}
	return p.FeatureGates + "," + clusterGates
}

// Lookup returns the profile called name.
func Lookup(name string) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown reference scheduler profile %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// Names lists the profiles.
func Names() []string {
	var out []string
	for n := range profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
