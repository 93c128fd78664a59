package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// withStack adds a stack run to a copy of the sample: the alpha run's
// specs relabelled as the stack profile's, with an environment naming the
// admission controller.
func withStack(t *testing.T, admission *results.Admission) string {
	t.Helper()
	dir := sampleWithout(t)
	report, err := os.ReadFile(filepath.Join(dir, AlphaDir, "ginkgo-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, StackDir), 0o755); err != nil {
		t.Fatal(err)
	}
	stackReport := strings.ReplaceAll(string(report), "profile:alpha", "profile:"+StackProfile)
	if err := os.WriteFile(filepath.Join(dir, StackDir, "ginkgo-report.json"), []byte(stackReport), 0o644); err != nil {
		t.Fatal(err)
	}
	env := results.Environment{Scheduler: results.Scheduler{Name: "reference"}, Admission: admission}
	if err := results.WriteJSON(filepath.Join(dir, StackDir, "environment.json"), env); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStackRunHasAVerdictRowNamingItsAdmissionController(t *testing.T) {
	m := load(t, withStack(t, &results.Admission{Name: "kueue", Product: "Kueue", Version: "v0.17.0"}))
	if len(m.Verdicts) != len(Profiles)+1 {
		t.Fatalf("verdicts = %+v: want the profiles' and the stack's", m.Verdicts)
	}
	v := m.Verdicts[len(Profiles)]
	if v.Profile != "stack (Kueue v0.17.0 in front of reference)" || v.Total != 2 || v.Passed != 2 || !v.Conformant {
		t.Errorf("stack verdict = %+v", v)
	}
	md, err := m.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "**stack (Kueue v0.17.0 in front of reference): conformant**") {
		t.Errorf("report.md has no stack verdict row:\n%s", md)
	}

	broken := load(t, withStack(t, &results.Admission{Name: "kueue-partial", Product: "Kueue", Version: "v0.17.0", Broken: true}))
	if got := broken.Verdicts[len(Profiles)].Profile; got != "stack (Kueue v0.17.0 in front of reference), a crafted broken stack (kueue-partial)" {
		t.Errorf("broken stack's row = %q", got)
	}
}

func TestNoStackRunNoStackRow(t *testing.T) {
	if m := load(t, sample); len(m.Verdicts) != len(Profiles) {
		t.Errorf("verdicts without a stack run = %+v", m.Verdicts)
	}
}
