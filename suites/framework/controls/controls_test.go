package controls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

const record = `specs:
- spec: quorum holds
  killedBy: [no-gang]
- spec: api served
  killedBy: [no-api]
`

func load(t *testing.T, text string) (*Record, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "controls.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func TestControlMustFailItsSpecs(t *testing.T) {
	r, err := load(t, record)
	if err != nil {
		t.Fatal(err)
	}
	ok := []Outcome{{Spec: "quorum holds", State: types.SpecStateFailed}, {Spec: "api served", State: types.SpecStatePassed}}
	if p := r.Check("no-gang", ok); len(p) != 0 {
		t.Fatalf("a control failing exactly its specs was rejected: %v", p)
	}
	passed := []Outcome{{Spec: "quorum holds", State: types.SpecStatePassed}, {Spec: "api served", State: types.SpecStatePassed}}
	p := r.Check("no-gang", passed)
	if len(p) != 1 || !strings.Contains(p[0], "PASSED") {
		t.Fatalf("a control passing a spec it must fail was accepted: %v", p)
	}
	extra := []Outcome{{Spec: "quorum holds", State: types.SpecStateFailed}, {Spec: "api served", State: types.SpecStateFailed}}
	if p := r.Check("no-gang", extra); len(p) != 1 || !strings.Contains(p[0], "not expected") {
		t.Fatalf("an unexpected failure was accepted: %v", p)
	}
	timedOut := []Outcome{{Spec: "quorum holds", State: types.SpecStateTimedout}, {Spec: "api served", State: types.SpecStatePassed}}
	if p := r.Check("no-gang", timedOut); len(p) != 0 {
		t.Fatalf("a timeout counts as a failure: %v", p)
	}
}

func TestEverySpecNeedsARecord(t *testing.T) {
	r, err := load(t, record)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Check("no-gang", []Outcome{{Spec: "quorum holds", State: types.SpecStateFailed}, {Spec: "api served", State: types.SpecStatePassed}, {Spec: "new spec", State: types.SpecStatePassed}})
	if len(p) != 1 || !strings.Contains(p[0], `"new spec" is not in the record`) {
		t.Fatalf("a spec without a record was accepted: %v", p)
	}
	p = r.Check("no-gang", []Outcome{{Spec: "api served", State: types.SpecStatePassed}})
	if len(p) != 1 || !strings.Contains(p[0], "did not run") {
		t.Fatalf("a recorded spec that did not run was accepted: %v", p)
	}
}

func TestRecordRejectsSpecsWithNoWayToFail(t *testing.T) {
	if _, err := load(t, "specs:\n- spec: unfalsifiable\n"); err == nil || !strings.Contains(err.Error(), "no control, mutant or crafted case") {
		t.Fatalf("err = %v", err)
	}
	if _, err := load(t, record+"- spec: api served\n  killedBy: [x]\n"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v", err)
	}
	if _, err := load(t, "specs:\n- spec: a\n  kiledBy: [x]\n"); err == nil {
		t.Fatal("a misspelt field was accepted")
	}
}

func TestConformanceRecordLoads(t *testing.T) {
	if _, err := Load("../../conformance/controls.yaml"); err != nil {
		t.Fatal(err)
	}
}

func TestUndeterminedControlsAreNotJudged(t *testing.T) {
	r, err := load(t, record+"- spec: preempt\n  killedBy: [no-preemption]\n  undetermined: [no-gang]\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []types.SpecState{types.SpecStatePassed, types.SpecStateFailed} {
		out := []Outcome{{Spec: "quorum holds", State: types.SpecStateFailed}, {Spec: "api served", State: types.SpecStatePassed}, {Spec: "preempt", State: st}}
		if p := r.Check("no-gang", out); len(p) != 0 {
			t.Fatalf("an undetermined spec was judged (%s): %v", st, p)
		}
	}
	if p := r.Check("no-preemption", []Outcome{{Spec: "quorum holds", State: types.SpecStatePassed}, {Spec: "api served", State: types.SpecStatePassed}, {Spec: "preempt", State: types.SpecStatePassed}}); len(p) != 1 {
		t.Fatalf("the killing control is still judged: %v", p)
	}
	if _, err := load(t, "specs:\n- spec: x\n  killedBy: [a]\n  undetermined: [a]\n"); err == nil {
		t.Fatal("a control both killing and undetermined was accepted")
	}
}

func TestCoverageTableGroupsSpecsByItemAndNamesTheirKillers(t *testing.T) {
	r, err := load(t, record+"- spec: monitor\n  crafted: pkg TestX\n- spec: surplus retried\n  mutants: [no-requeue]\n")
	if err != nil {
		t.Fatal(err)
	}
	specs := []Outcome{
		{Spec: "quorum holds", Labels: []string{"profile:core", "item:7"}},
		{Spec: "monitor", Labels: []string{"profile:core", "item:15", "item:7"}},
		{Spec: "api served", Labels: []string{"item:1", "profile:core"}},
		{Spec: "surplus retried", Labels: []string{"item:9", "profile:core"}},
	}
	table, err := r.CoverageTable(specs)
	if err != nil {
		t.Fatal(err)
	}
	want := "4 specs over 4 semantics items (a spec that checks two items is listed under both).\n\n" +
		"| item | profile | spec | failed by |\n| ---: | --- | --- | --- |\n" +
		"| 1 | core | api served | no-api |\n| 7 | core | monitor | crafted: `pkg TestX` |\n|  | core | quorum holds | no-gang |\n" +
		"| 9 | core | surplus retried | mutant `no-requeue` |\n| 15 | core | monitor | crafted: `pkg TestX` |\n"
	if table != want {
		t.Fatalf("table:\n%s\nwant:\n%s", table, want)
	}
	if _, err := r.CoverageTable([]Outcome{{Spec: "quorum holds"}}); err == nil || !strings.Contains(err.Error(), "no item:<n> label") {
		t.Fatalf("a spec without an item label: %v", err)
	}
	if _, err := r.CoverageTable([]Outcome{{Spec: "new", Labels: []string{"item:2"}}}); err == nil || !strings.Contains(err.Error(), "not in the record") {
		t.Fatalf("a spec without a record: %v", err)
	}
}

func TestCoverageFileIsTheHeaderThenTheTable(t *testing.T) {
	got := string(CoverageFile("| item |\n"))
	if got != CoverageHeader+"\n\n| item |\n" {
		t.Fatalf("got:\n%s", got)
	}
	if strings.Contains(CoverageHeader, "\n") || !strings.Contains(CoverageHeader, "make coverage") || !strings.Contains(CoverageHeader, "do not edit") {
		t.Fatalf("the header must be one line naming `make coverage` and saying not to edit: %q", CoverageHeader)
	}
}
