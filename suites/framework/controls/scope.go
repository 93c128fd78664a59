package controls

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/versions"
)

// CheckIn is Check for a run that covered only the specs whose labels match
// labelFilter (Ginkgo's label filter syntax), as a control run on another
// cluster (the alpha one) does. Specs outside it are not judged, beyond
// having an entry in the record. Inside it, a spec the control must fail
// that was skipped is a problem too: the run was meant to see that kill,
// and a skip (the cluster lacked what the spec needs) hides it. An empty
// filter is Check.
func (r *Record) CheckIn(control string, outcomes []Outcome, labelFilter string) ([]string, error) {
	if labelFilter == "" {
		return r.Check(control, outcomes), nil
	}
	match, err := types.ParseLabelFilter(labelFilter)
	if err != nil {
		return nil, fmt.Errorf("label filter %q: %w", labelFilter, err)
	}
	byName := map[string]Entry{}
	for _, e := range r.Specs {
		byName[e.Spec] = e
	}
	var problems []string
	var in []Outcome
	outside := map[string]bool{}
	for _, o := range outcomes {
		e, known := byName[o.Spec]
		if !match(o.Labels) {
			outside[o.Spec] = true
			if !known {
				problems = append(problems, fmt.Sprintf("spec %q is not in the record of controls: say which control or crafted case fails it", o.Spec))
			}
			continue
		}
		in = append(in, o)
		if known && contains(e.KilledBy, control) && o.State == types.SpecStateSkipped {
			problems = append(problems, fmt.Sprintf("control %s must fail %q, but the spec was skipped, so the kill was not seen", control, o.Spec))
		}
	}
	scoped := &Record{}
	for _, e := range r.Specs {
		if !outside[e.Spec] {
			scoped.Specs = append(scoped.Specs, e)
		}
	}
	problems = append(problems, scoped.Check(control, in)...)
	sort.Strings(problems)
	return problems, nil
}

// On is the record as it holds on Kubernetes version v: each kill the
// version's contract spares (versions.Contract.Spared) is dropped from the
// specs of the outcomes that carry its label.
func (r *Record) On(v string, outcomes []Outcome) *Record {
	spared := versions.For(v).Spared
	if len(spared) == 0 {
		return r
	}
	labels := map[string][]string{}
	for _, o := range outcomes {
		labels[o.Spec] = o.Labels
	}
	out := &Record{Specs: slices.Clone(r.Specs)}
	for i, e := range out.Specs {
		for _, sp := range spared {
			if slices.Contains(labels[e.Spec], sp.Label) {
				e.KilledBy = slices.DeleteFunc(slices.Clone(e.KilledBy), func(c string) bool { return c == sp.Control })
			}
		}
		out.Specs[i] = e
	}
	return out
}

// CheckRun checks a control's run whose Ginkgo report is at reportPath
// against the record, as it holds on the Kubernetes version the run's
// environment.json (beside the report) names, within labelFilter (see
// CheckIn). It returns the run's outcomes too.
func (r *Record) CheckRun(control, reportPath, labelFilter string) ([]string, []Outcome, error) {
	outcomes, err := ReadReport(reportPath)
	if err != nil {
		return nil, nil, err
	}
	var env results.Environment
	envPath := filepath.Join(filepath.Dir(reportPath), "environment.json")
	if data, err := os.ReadFile(envPath); err == nil {
		if err := json.Unmarshal(data, &env); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", envPath, err)
		}
	}
	problems, err := r.On(env.KubernetesVersion, outcomes).CheckIn(control, outcomes, labelFilter)
	return problems, outcomes, err
}
