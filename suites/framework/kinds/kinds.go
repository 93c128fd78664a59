// Package kinds is the one list of schedulers a run can test: every value of
// SCHEDULER (and BESIDE), what it is, what it needs of the cluster, and
// whether the harness starts it. The settings' checks, the harness, the
// benchmarks and the commands' help all read it; a new kind is a new entry
// here.
package kinds

import (
	"fmt"
	"strings"

	refconfig "github.com/gangconf/gangconf/reference-scheduler/config"
)

// Class is what a kind of scheduler is. A class with a single kind (all but
// Control) has that kind's name.
type Class string

const (
	// Reference is the reference scheduler, kube-scheduler v1.37.2 with its
	// reference profile: the default.
	Reference Class = "reference"
	// Control is a negative control: the reference scheduler with a profile
	// that breaks one rule, or a cluster that lacks what the rule needs. The
	// specs it must fail are recorded (suites/conformance/controls.yaml).
	Control Class = "control"
	// Binary is a kube-scheduler-compatible program the harness runs with a
	// KubeSchedulerConfiguration.
	Binary Class = "binary"
	// Command is any program the harness runs from a command line.
	Command Class = "command"
	// External is a scheduler already running; only its schedulerName is
	// known.
	External Class = "external"
	// Ceiling is the benchmarks' binder (bench/ceiling), which binds without
	// scheduling; it runs inside gangbench, so only make bench takes it.
	Ceiling Class = "ceiling"
)

// Kind is one value of SCHEDULER.
type Kind struct {
	Name  string
	Class Class
	// About says in one line what it is or, for a control, what it breaks.
	About string
	// Profile is the reference scheduler profile the harness runs for it;
	// zero for a kind that runs no reference scheduler.
	Profile refconfig.Profile
	// SchedulerName is the name it serves when the kind fixes it (its
	// profile's); "" when SCHEDULER_NAME says it.
	SchedulerName string
	// Cluster is what it changes in the cluster beyond the scheduler; nil:
	// nothing. Only a cluster the harness makes can be changed, so such a
	// kind needs PROVIDER=kwok.
	Cluster *ClusterChange
	// AlphaCluster says that it differs from the reference only on a
	// cluster with the alpha gates (CLUSTER=ci-alpha): it breaks what those
	// gates add.
	AlphaCluster bool
	// Started says whether the harness starts and stops it (and so can
	// crash and restart it).
	Started bool
	// NeedsName says whether SCHEDULER_NAME must name what it serves.
	NeedsName bool
}

// ClusterChange is how a control changes a cluster the harness makes.
type ClusterChange struct {
	// FeatureGates and RuntimeConfig, when set, replace the cluster's own,
	// whatever its profile.
	FeatureGates, RuntimeConfig string
	// ControllerManagerOff are profile gates the controller manager alone
	// runs without, while the API server and the scheduler have them.
	ControllerManagerOff []string
}

// Component is the cluster component the change is made to, for messages.
func (c ClusterChange) Component() string {
	if c.FeatureGates != "" || c.RuntimeConfig != "" {
		return "API server"
	}
	return "controller manager"
}

// Default is the kind a run tests unless told otherwise.
const Default = string(Reference)

// all is every kind, in the order help texts list them.
var all = []Kind{
	profileKind(string(Reference), Reference, string(Reference), "kube-scheduler v1.37.2 with the in-tree GangScheduling plugin (the default)"),
	profileKind("no-gang", Control, "no-gang", "the reference with GenericWorkload off in the scheduler only: pods placed one by one, as before KEP-4671"),
	// A cluster from before KEP-4671: GenericWorkload off everywhere and
	// scheduling.k8s.io/v1beta1 not served; pods are placed one by one.
	withCluster(profileKind("no-api", Control, "no-gang", "a cluster from before KEP-4671: GenericWorkload off everywhere, scheduling.k8s.io/v1beta1 not served"),
		ClusterChange{FeatureGates: "GenericWorkload=false", RuntimeConfig: "scheduling.k8s.io/v1beta1=false"}),
	profileKind("no-preemption", Control, "no-preemption", "the reference with PostFilter and PodGroupPostFilter disabled: gangs, but nothing is preempted"),
	alpha(profileKind("no-alpha", Control, "no-alpha", "the reference without the cluster's alpha gates: topology, composite groups and PodGroup preemption policies are ignored")),
	// The profile's cluster and the reference scheduler, with a controller
	// manager that lacks WorkloadWithJob: the API keeps a Job's
	// spec.scheduling, but no controller turns it into a Workload and a
	// PodGroup.
	alpha(withCluster(profileKind("no-job-workload", Control, string(Reference), "a controller manager without WorkloadWithJob: a Job gets no Workload and no PodGroup"),
		ClusterChange{ControllerManagerOff: []string{"WorkloadWithJob"}})),
	{Name: string(Binary), Class: Binary, Started: true,
		About: "a kube-scheduler-compatible SCHEDULER_BIN with its SCHEDULER_CONFIG (and SCHEDULER_ARGS)"},
	{Name: string(Command), Class: Command, Started: true, NeedsName: true,
		About: "any program: SCHEDULER_CMD, a template with {{.Kubeconfig}} and {{.SchedulerName}}, serving SCHEDULER_NAME"},
	{Name: string(External), Class: External, NeedsName: true,
		About: "a scheduler already running in the cluster, serving SCHEDULER_NAME"},
	// The binder runs in gangbench's process under the name every pod
	// names by default.
	{Name: string(Ceiling), Class: Ceiling, SchedulerName: "default-scheduler",
		About: "make bench only: a binder that binds each gang round-robin, with no filtering or scoring: the machine's ceiling"},
}

// profileKind is a kind that the harness runs as the reference scheduler
// with the profile called profile.
func profileKind(name string, class Class, profile, about string) Kind {
	p, err := refconfig.Lookup(profile)
	if err != nil {
		// A programming error, caught by every test that loads this package.
		panic(fmt.Sprintf("scheduler kind %s: %v", name, err))
	}
	return Kind{Name: name, Class: class, About: about, Profile: p, SchedulerName: p.SchedulerName, Started: true}
}

func withCluster(k Kind, c ClusterChange) Kind {
	k.Cluster = &c
	return k
}

func alpha(k Kind) Kind {
	k.AlphaCluster = true
	return k
}

// All lists every kind, in the order help texts list them.
func All() []Kind { return append([]Kind(nil), all...) }

// Lookup returns the kind called name, or an error that lists the known ones.
func Lookup(name string) (Kind, error) {
	for _, k := range all {
		if k.Name == name {
			return k, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown SCHEDULER %q (known: %s)", name, known())
}

// known lists the names, each bench-only one marked.
func known() string {
	names := make([]string, len(all))
	for i, k := range all {
		names[i] = k.Name
		if k.BenchOnly() {
			names[i] += " (make bench only)"
		}
	}
	return strings.Join(names, ", ")
}

// Names lists the names of the kinds of class c, in help order.
func Names(c Class) []string {
	var out []string
	for _, k := range all {
		if k.Class == c {
			out = append(out, k.Name)
		}
	}
	return out
}

// BenchOnly says whether only make bench can run it.
func (k Kind) BenchOnly() bool { return k.Class == Ceiling }

// Help is the kinds as a help text's lines: each name and what it is,
// indented by indent.
func Help(indent string) string {
	width := 0
	for _, k := range all {
		width = max(width, len(k.Name))
	}
	var b strings.Builder
	for _, k := range all {
		about := k.About
		if k.AlphaCluster {
			about += " (on CLUSTER=ci-alpha)"
		}
		fmt.Fprintf(&b, "%s%-*s  %s\n", indent, width, k.Name, about)
	}
	return b.String()
}
