// Package admission runs an admission controller in front of the scheduler
// under test: Kueue v0.17.0's manager, built from the Go module in
// ./kueue (it pins Kubernetes v0.35 libraries, so it cannot share the main
// module), run as a local process on loopback against a kwok cluster the
// harness made. The harness makes its certificates, installs its CRDs from
// the module cache, registers its webhooks by URL, and removes all of it
// afterwards (see Start and Stack.Stop). The stack profile's specs then
// create queues (queues.go) and Jobs that name them.
package admission

import (
	"fmt"
	"strings"
)

// Kind is one value of ADMISSION.
type Kind struct {
	Name string
	// Product is what runs, as its makers write it: the report's stack row
	// names it.
	Product string
	// About says in one line what it is.
	About string
	// Broken says that it is a crafted broken stack: the stack profile's
	// specs it fails are recorded in suites/conformance/controls.yaml.
	Broken bool
	// MinParallelism, when set, is the kueue.x-k8s.io/job-min-parallelism
	// annotation the specs put on every Job: Kueue's PartialAdmission then
	// may run a Job with fewer pods than it asked for when quota is short.
	MinParallelism string
}

const (
	// Kueue is Kueue v0.17.0 as its defaults configure it, batch/job only.
	Kueue = "kueue"
	// KueuePartial is the crafted broken stack: Kueue allowed by every Job
	// to admit part of it.
	KueuePartial = "kueue-partial"

	// KueueVersion is the version of sigs.k8s.io/kueue that ./kueue/go.mod
	// pins (a unit test checks that they agree).
	KueueVersion = "v0.17.0"

	// QueueLabel is the label that puts a Job in a LocalQueue.
	QueueLabel = "kueue.x-k8s.io/queue-name"
	// MinParallelismAnnotation lets Kueue admit a Job with fewer pods.
	MinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
)

var all = []Kind{
	{Name: Kueue, Product: "Kueue", About: "Kueue " + KueueVersion + " admits Jobs against a ClusterQueue's quota, then the scheduler places their pods"},
	{Name: KueuePartial, Product: "Kueue", Broken: true, MinParallelism: "1",
		About: "crafted broken stack: Kueue " + KueueVersion + " with every Job allowing partial admission (job-min-parallelism=1): a short quota runs part of a gang"},
}

// Lookup returns the kind called name; "" is no admission controller.
func Lookup(name string) (Kind, error) {
	for _, k := range all {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(all))
	for i, k := range all {
		names[i] = k.Name
	}
	return Kind{}, fmt.Errorf("unknown ADMISSION %q (known: %s; or leave it unset for no admission controller)", name, strings.Join(names, ", "))
}

// All lists the kinds.
func All() []Kind { return append([]Kind(nil), all...) }
