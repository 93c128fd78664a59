package controls

import (
	"fmt"
	"sort"

	"github.com/onsi/ginkgo/v2/types"
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
