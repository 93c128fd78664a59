// Package controls holds the record of how each conformance spec is known to
// fail: which negative control (a scheduler that breaks the rule) fails it,
// or which crafted test feeds its assertion a bad case. A check that nothing
// can fail proves nothing; this record is what shows each one can.
package controls

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/gangconf/gangconf/internal/yamlfile"
)

// Entry is how one spec is known to fail.
type Entry struct {
	// Spec is the spec's full text, as Ginkgo reports it.
	Spec string `json:"spec"`
	// KilledBy lists the negative controls that must fail this spec.
	KilledBy []string `json:"killedBy,omitempty"`
	// Crafted names a test that feeds the spec's assertion a recorded bad
	// case, for specs that no control breaks.
	Crafted string `json:"crafted,omitempty"`
	// Mutants lists mutants of the reference scheduler
	// (reference-scheduler/mutants.yaml) that this spec kills, as a full
	// `make mutants MUTANTS_FULL=1` run found: a way to fail for a spec no
	// whole-feature control breaks.
	Mutants []string `json:"mutants,omitempty"`
	// Undetermined lists controls whose outcome on this spec varies from run
	// to run (each with a reason in the record's comments); the check does
	// not judge the spec under them. A spec needs another way to fail.
	Undetermined []string `json:"undetermined,omitempty"`
}

// Record is the whole file.
type Record struct {
	Specs []Entry `json:"specs"`
}

// Load reads a record file and checks that every entry has a way to fail.
func Load(path string) (*Record, error) {
	r, err := yamlfile.Read[Record](path)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range r.Specs {
		if seen[e.Spec] {
			return nil, fmt.Errorf("%s: spec %q listed twice", path, e.Spec)
		}
		seen[e.Spec] = true
		if len(e.KilledBy) == 0 && e.Crafted == "" && len(e.Mutants) == 0 {
			return nil, fmt.Errorf("%s: spec %q has no control, mutant or crafted case that fails it", path, e.Spec)
		}
		for _, c := range e.Undetermined {
			if contains(e.KilledBy, c) {
				return nil, fmt.Errorf("%s: spec %q: control %s is both killing and undetermined", path, e.Spec, c)
			}
		}
	}
	return r, nil
}

// Outcome is what one spec did in a run.
type Outcome struct {
	Spec   string
	State  types.SpecState
	Labels []string
	// Reason is the first line of why the spec was skipped or failed.
	Reason string
}

// ReadGinkgoReport reads a Ginkgo JSON report (--json-report).
func ReadGinkgoReport(path string) ([]types.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: not a Ginkgo JSON report: %w", path, err)
	}
	return reports, nil
}

// ReadReport reads the outcomes of every spec from a Ginkgo JSON report.
func ReadReport(path string) ([]Outcome, error) {
	reports, err := ReadGinkgoReport(path)
	if err != nil {
		return nil, err
	}
	var out []Outcome
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt {
				continue
			}
			reason, _, _ := strings.Cut(s.Failure.Message, "\n")
			out = append(out, Outcome{Spec: s.FullText(), State: s.State, Labels: s.Labels(), Reason: reason})
		}
	}
	return out, nil
}

// Check compares a control's run with the record: every spec the record says
// the control kills must have failed, and every other spec that ran must have
// passed. Specs missing from the record are an error too, so no spec goes
// without a recorded way to fail.
func (r *Record) Check(control string, outcomes []Outcome) []string {
	byName := map[string]Entry{}
	for _, e := range r.Specs {
		byName[e.Spec] = e
	}
	var problems []string
	ran := map[string]bool{}
	for _, o := range outcomes {
		ran[o.Spec] = true
		e, ok := byName[o.Spec]
		if !ok {
			problems = append(problems, fmt.Sprintf("spec %q is not in the record of controls: say which control or crafted case fails it", o.Spec))
			continue
		}
		mustFail := contains(e.KilledBy, control)
		failed := o.State.Is(types.SpecStateFailureStates)
		switch {
		case o.State == types.SpecStateSkipped || o.State == types.SpecStatePending || contains(e.Undetermined, control):
		case mustFail && !failed:
			problems = append(problems, fmt.Sprintf("control %s PASSED %q, which it must fail: the spec does not detect what %s breaks", control, o.Spec, control))
		case !mustFail && failed:
			problems = append(problems, fmt.Sprintf("control %s failed %q, which it is not expected to fail (%s)", control, o.Spec, o.State))
		}
	}
	for _, e := range r.Specs {
		if contains(e.KilledBy, control) && !ran[e.Spec] {
			problems = append(problems, fmt.Sprintf("control %s must fail %q, but that spec did not run", control, e.Spec))
		}
	}
	sort.Strings(problems)
	return problems
}

// CheckFiles runs CheckIn on files (labelFilter: the specs the run covered,
// "" all) and writes a summary; it returns an error when the control did not
// fail exactly what it should.
func CheckFiles(control, reportPath, recordPath, labelFilter string, w io.Writer) error {
	rec, err := Load(recordPath)
	if err != nil {
		return err
	}
	problems, outcomes, err := rec.CheckRun(control, reportPath, labelFilter)
	if err != nil {
		return err
	}
	ran, killed := 0, 0
	for _, o := range outcomes {
		if o.State != types.SpecStateSkipped {
			ran++
		}
		if o.State.Is(types.SpecStateFailureStates) {
			killed++
		}
	}
	fmt.Fprintf(w, "control %s: %d specs ran, %d failed as recorded in %s\n", control, ran, killed, recordPath)
	if len(problems) > 0 {
		return fmt.Errorf("control %s does not match its record:\n  %s", control, strings.Join(problems, "\n  "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
