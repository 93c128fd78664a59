package controls

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

const scopedRecord = `specs:
- spec: quorum holds
  killedBy: [no-gang]
- spec: one rack
  killedBy: [no-alpha, no-gang]
`

func TestCheckInJudgesOnlyTheRunsSpecs(t *testing.T) {
	r, err := load(t, scopedRecord)
	if err != nil {
		t.Fatal(err)
	}
	core := Outcome{Spec: "quorum holds", Labels: []string{"profile:core"}}
	alpha := Outcome{Spec: "one rack", Labels: []string{"profile:alpha"}}

	// The alpha run of no-gang: the core spec is filtered out (skipped) and
	// not judged; the alpha spec must fail.
	core.State, alpha.State = types.SpecStateSkipped, types.SpecStateFailed
	if p, err := r.CheckIn("no-gang", []Outcome{core, alpha}, "profile:alpha"); err != nil || len(p) != 0 {
		t.Fatalf("alpha run failing its spec: %v %v", p, err)
	}
	alpha.State = types.SpecStatePassed
	if p, _ := r.CheckIn("no-gang", []Outcome{core, alpha}, "profile:alpha"); len(p) != 1 || !strings.Contains(p[0], "PASSED") {
		t.Fatalf("alpha run passing a spec it must fail: %v", p)
	}
	// Skipped inside the scope: the kill was not seen.
	alpha.State = types.SpecStateSkipped
	if p, _ := r.CheckIn("no-gang", []Outcome{core, alpha}, "profile:alpha"); len(p) != 1 || !strings.Contains(p[0], "skipped") {
		t.Fatalf("a skipped kill inside the scope was accepted: %v", p)
	}
	// The core run, scoped away from alpha: the alpha spec's skip is fine.
	core.State = types.SpecStateFailed
	if p, _ := r.CheckIn("no-gang", []Outcome{core, alpha}, "!profile:alpha"); len(p) != 0 {
		t.Fatalf("core run: %v", p)
	}
	// Without a filter it is Check: skips are not judged.
	if p, _ := r.CheckIn("no-gang", []Outcome{core, alpha}, ""); len(p) != 0 {
		t.Fatalf("unscoped: %v", p)
	}
	// A spec outside the scope still needs a record entry.
	stray := Outcome{Spec: "new spec", Labels: []string{"profile:core"}, State: types.SpecStateSkipped}
	if p, _ := r.CheckIn("no-gang", []Outcome{core, alpha, stray}, "profile:alpha"); len(p) != 2 {
		t.Fatalf("want the skipped kill and the missing entry, got %v", p)
	}
	// A kill recorded for a spec that never ran is still reported.
	if p, _ := r.CheckIn("no-alpha", []Outcome{core}, "profile:alpha"); len(p) != 1 || !strings.Contains(p[0], "did not run") {
		t.Fatalf("a recorded kill of a spec missing from the run: %v", p)
	}
	if _, err := r.CheckIn("no-gang", nil, "profile:alpha &&"); err == nil {
		t.Fatal("a malformed label filter was accepted")
	}
}

func TestOnSparesTheKillsAVersionNoLongerAllows(t *testing.T) {
	rec := &Record{Specs: []Entry{
		{Spec: "policy spec", KilledBy: []string{"no-alpha", "no-gang"}},
		{Spec: "topology spec", KilledBy: []string{"no-alpha"}},
	}}
	outcomes := []Outcome{
		{Spec: "policy spec", State: types.SpecStatePassed, Labels: []string{"profile:alpha", "area:preemption-policy"}},
		{Spec: "topology spec", State: types.SpecStateFailed, Labels: []string{"profile:alpha", "area:topology"}},
	}
	if got := rec.On("v1.37.2", outcomes).Check("no-alpha", outcomes); len(got) != 1 {
		t.Errorf("v1.37.2: no-alpha must still fail the policy spec, got %q", got)
	}
	if got := rec.On("v1.38.0-beta.0", outcomes).Check("no-alpha", outcomes); len(got) != 0 {
		t.Errorf("v1.38.0-beta.0: no-alpha spares the policy spec, got %q", got)
	}
	if got := rec.Specs[0].KilledBy; len(got) != 2 {
		t.Errorf("On changed the record it was given: %v", got)
	}
}
