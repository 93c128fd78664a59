package preflight

import (
	"fmt"
	"slices"
	"strings"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// Step is one part of the suite that the plan decides on before any spec:
// whether its specs run and, when they are skipped, why; Note says how
// they run otherwise.
type Step struct {
	What string `json:"what"`
	Runs bool   `json:"runs"`
	Note string `json:"note,omitempty"`
}

// SetPlan sets the plan from what the preflight found and faults, the
// harness's steps for the fault specs (it alone knows what it runs).
func (p *Report) SetPlan(faults ...Step) {
	gv := schedulingv1beta1.SchemeGroupVersion.String()
	api := Step{What: "PodGroup API (" + gv + ")", Runs: p.served() && p.SchedulingGroupKept,
		Note: fmt.Sprintf("served by %s, pods' spec.schedulingGroup kept", p.ServerVersion)}
	if !api.Runs {
		api.Note = fmt.Sprintf("served: %t, spec.schedulingGroup kept: %t; the specs fail", p.served(), p.SchedulingGroupKept)
	}
	rights := Step{What: "the kubeconfig's rights", Runs: len(p.MissingRights) == 0, Note: "all the suite needs"}
	if !rights.Runs {
		rights.Note = fmt.Sprintf("%d resources lack rights (problems below); the rest was not probed", len(p.MissingRights))
		p.Plan = append([]Step{api, rights}, faults...)
		return
	}
	p.Plan = []Step{api, rights}
	for _, g := range AlphaGates {
		why := p.AlphaGates[g]
		p.Plan = append(p.Plan, Step{What: "alpha specs of " + g, Runs: why == "", Note: why})
	}
	slices := Step{What: "per-spec node slices", Runs: p.FakeNodes, Note: p.NoSlices}
	if p.FakeNodes {
		slices.Note = "fake nodes turn Ready, so each spec gets nodes of its own"
	}
	p.Plan = append(append(p.Plan, slices), faults...)
}

// served says whether the API server serves the PodGroup API's resources.
func (p *Report) served() bool {
	return slices.Contains(p.ServedResources, "podgroups") && slices.Contains(p.ServedResources, "workloads")
}

// PlanText is the plan as lines for the suite's output: what runs, what is
// skipped and why, then the problems, each on a line of its own.
func (p *Report) PlanText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gangconf plan, before any spec (%s):\n", p.ServerVersion)
	for _, s := range p.Plan {
		state := "runs   "
		if !s.Runs {
			state = "SKIPPED"
		}
		fmt.Fprintf(&b, "  %s  %s", state, s.What)
		if s.Note != "" {
			fmt.Fprintf(&b, ": %s", s.Note)
		}
		b.WriteString("\n")
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "  PROBLEM  %s\n", pr)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
