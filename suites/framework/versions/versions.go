// Package versions declares where the Kubernetes versions gangconf runs on
// differ for the harness and the contract: each difference once, with the
// version it starts at, so the specs and the harness stay one code path for
// every version, and the matrix report can name what changed and why.
package versions

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// Contract is what a Kubernetes version's API server and reference scheduler
// do where versions differ: what specs expect, and what the harness passes.
type Contract struct {
	// GroupErrorReason is the PodGroupInitiallyScheduled=False reason of a
	// group the scheduler rejects as inconsistent (semantics item 13).
	GroupErrorReason string
	// RemovedGates are feature gates the components no longer know: a
	// cluster that sets one does not start, so the harness drops them.
	RemovedGates []string
	// Spared are the kills a negative control can no longer make, as what
	// it turned off is no longer behind a gate.
	Spared []Spare
}

// Spare says that Control no longer fails the specs labelled Label.
type Spare struct {
	Control, Label string
}

// base is the contract of the version go.mod pins, v1.37.2.
var base = Contract{GroupErrorReason: "SchedulerError"}

// Change is one difference between Kubernetes versions.
type Change struct {
	// Since is the first minor release with the change (its alphas and
	// betas included), as "v1.38".
	Since string
	// What changed, for a reader of the matrix report.
	What string
	// Upstream names the change behind it.
	Upstream string
	// apply makes the change to the contract of the versions before it.
	apply func(*Contract)
}

// Changes are the differences gangconf knows of, oldest first.
var Changes = []Change{{
	Since: "v1.38",
	What: "a PodGroup's spec.preemptionPolicy is part of the PodGroup API (gate GenericWorkload), " +
		"filled by priority admission from the PriorityClass; its alpha gate PodGroupPreemptionPolicy is gone, so the no-alpha control no longer turns it off",
	Upstream: "KEP-5710, the field one release behind the API (kubernetes/enhancements#6222, kubernetes/kubernetes#139240)",
	apply: func(c *Contract) {
		c.RemovedGates = append(c.RemovedGates, "PodGroupPreemptionPolicy")
		// no-alpha turned the gate off; the field now stays on with the API.
		c.Spared = append(c.Spared, Spare{Control: "no-alpha", Label: "area:preemption-policy"})
	},
}, {
	Since: "v1.38",
	What: "a PodGroup the scheduler rejects as inconsistent (members of another priority, preemption policy " +
		"or scheduler) gets PodGroupInitiallyScheduled=False with reason PodGroupError, not SchedulerError",
	Upstream: "KEP-6012, the PodGroup and CompositePodGroup statuses (kubernetes/kubernetes#140670)",
	apply:    func(c *Contract) { c.GroupErrorReason = "PodGroupError" },
}}

// For is the contract of Kubernetes version v.
func For(v string) Contract {
	c := base
	c.RemovedGates, c.Spared = nil, nil
	for _, ch := range Of(v) {
		ch.apply(&c)
	}
	return c
}

// Applies reports whether c holds on Kubernetes version v. An empty or
// unparsable v is the version go.mod pins, older than every change.
func (c Change) Applies(v string) bool {
	got, err := version.ParseGeneric(v)
	if err != nil {
		return false
	}
	since := version.MustParseGeneric(c.Since)
	return got.Major() > since.Major() || got.Major() == since.Major() && got.Minor() >= since.Minor()
}

// Of lists the changes that hold on version v.
func Of(v string) []Change {
	var out []Change
	for _, c := range Changes {
		if c.Applies(v) {
			out = append(out, c)
		}
	}
	return out
}

// Gates drops from a --feature-gates value ("A=true,B=false") the gates
// version v no longer has.
func Gates(v, gates string) string {
	removed := For(v).RemovedGates
	var kept []string
	for _, g := range strings.Split(gates, ",") {
		name, _, _ := strings.Cut(g, "=")
		if g != "" && !slices.Contains(removed, strings.TrimSpace(name)) {
			kept = append(kept, g)
		}
	}
	return strings.Join(kept, ",")
}

// OfBinary asks a Kubernetes binary for its version: kube-apiserver
// --version prints "Kubernetes v1.38.0-beta.0".
func OfBinary(path string) (string, error) {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "Kubernetes ")
	if !ok {
		return "", fmt.Errorf("%s --version printed %q, not \"Kubernetes <version>\"", path, strings.TrimSpace(string(out)))
	}
	return v, nil
}
