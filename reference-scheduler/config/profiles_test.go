package config

import (
	"strings"
	"testing"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// Every profile's configuration must be one kube-scheduler v1.37.2 accepts:
// decoded and validated by the scheduler's own code, defaults applied.
func TestProfilesAreValidSchedulerConfigurations(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := scheme.Codecs.UniversalDecoder().Decode(p.Config, nil, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		cfg := obj.(*schedconfig.KubeSchedulerConfiguration)
		if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got := cfg.Profiles[0].SchedulerName; got != p.SchedulerName {
			t.Errorf("%s: schedulerName %q, profile says %q", name, got, p.SchedulerName)
		}
		if cfg.ClientConnection.QPS != 5000 || cfg.ClientConnection.Burst != 10000 {
			t.Errorf("%s: client QPS/burst %v/%d, want 5000/10000", name, cfg.ClientConnection.QPS, cfg.ClientConnection.Burst)
		}
		plugins := cfg.Profiles[0].Plugins
		preemption := !disabled(plugins.PostFilter, "*") || !disabled(plugins.PodGroupPostFilter, "*")
		if want := name != "no-preemption"; preemption != want {
			t.Errorf("%s: preemption enabled = %t, want %t", name, preemption, want)
		}
	}
}

func disabled(set schedconfig.PluginSet, name string) bool {
	for _, p := range set.Disabled {
		if p.Name == name {
			return true
		}
	}
	return false
}

func TestUnknownProfileSaysWhatIsKnown(t *testing.T) {
	_, err := Lookup("fast")
	if err == nil || !strings.Contains(err.Error(), "no-alpha, no-gang, no-preemption, reference") {
		t.Fatalf("err = %v", err)
	}
}

func TestClusterGatesReachOnlyProfilesThatTakeThem(t *testing.T) {
	alpha := "TopologyAwareWorkloadScheduling=true"
	for name, want := range map[string]string{
		"reference":     "GenericWorkload=true," + alpha,
		"no-preemption": "GenericWorkload=true," + alpha,
		"no-alpha":      "GenericWorkload=true",
		"no-gang":       "GenericWorkload=false",
	} {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Gates(alpha); got != want {
			t.Errorf("%s: Gates = %s, want %s", name, got, want)
		}
		if got := p.Gates(""); got != p.FeatureGates {
			t.Errorf("%s: on a cluster without gates, Gates = %s, want %s", name, got, p.FeatureGates)
		}
	}
}
