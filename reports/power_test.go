package reports

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// sampleWithout copies the sample results directory, less the paths given,
// into a new directory.
func sampleWithout(t *testing.T, paths ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAlphaRunJoinsTheMatrixAndTheVerdicts(t *testing.T) {
	m := load(t, sample)
	alpha := m.Verdicts[2]
	if alpha.Profile != "alpha" || alpha.Total != 2 || alpha.Passed != 2 || !alpha.Conformant {
		t.Fatalf("alpha verdict = %+v: want the alpha run's 2 of 2", alpha)
	}
	logs := map[string]string{}
	for _, a := range m.Areas {
		for _, s := range a.Specs {
			logs[s.Name] = s.Log
		}
	}
	if len(logs) != 6 || logs["Composite groups bind no child when fewer than minGroupCount children fit (watched for 5s after every member was tried)"] != "alpha/e2e.log" ||
		logs["Validation rejects a new PodGroup with no policy"] != "e2e.log" {
		t.Errorf("specs and their logs = %v: want the main run's 4 and the alpha run's 2, each with its run's log", logs)
	}
	if all := strings.Join(m.Limits, "\n"); strings.Contains(all, "alpha gate") {
		t.Errorf("the main run's skips of the alpha specs are limits though the alpha run ran them: %v", m.Limits)
	}

	// Without the alpha run, the alpha profile is the main run's skips.
	m = load(t, sampleWithout(t, AlphaDir))
	if v := m.Verdicts[2]; v.Total != 0 || v.Conformant {
		t.Errorf("alpha verdict without its run = %+v", v)
	}
	if !strings.Contains(strings.Join(m.Limits, "\n"), "skipped: Composite groups") || len(m.Problems) != 0 {
		t.Errorf("limits = %v, problems = %v", m.Limits, m.Problems)
	}
	if len(m.Controls) != 2 || m.Controls[0].Ran != 3 {
		t.Errorf("controls without the alpha run = %+v", m.Controls)
	}
}

func TestSuitePowerFromMutantsJSON(t *testing.T) {
	p := load(t, sample).Power
	if p == nil {
		t.Fatal("no Suite power from mutants/mutants.json")
	}
	if p.Judged != 6 || p.Ran != 5 || p.Decided() != 4 || p.Score.Percent != 75 || p.ReferenceFailed != 1 || p.Full {
		t.Errorf("power = %+v", p)
	}
	var unkilled []string
	for _, v := range p.Unkilled {
		unkilled = append(unkilled, v.Outcome)
	}
	if want := []string{results.Survived, results.Undecided, results.Equivalent}; !slices.Equal(unkilled, want) {
		t.Errorf("mutants not killed = %v, want survivors first: %v", unkilled, want)
	}
	var areas []string
	for _, a := range p.Areas {
		areas = append(areas, a.Name)
	}
	if want := []string{"quorum", "deadlock", "placement", "status", "alpha"}; !slices.Equal(areas, want) {
		t.Errorf("areas = %v, want the catalogue's order %v", areas, want)
	}
}

func TestMissingOrMalformedMutantsJSONIsNoFailure(t *testing.T) {
	m := load(t, sampleWithout(t, MutantsDir))
	if m.Power != nil || len(m.Problems) != 0 || len(m.Kills.MutantAreas) != 0 {
		t.Errorf("without mutants/: power %+v, problems %v, mutant columns %v", m.Power, m.Problems, m.Kills.MutantAreas)
	}
	md, err := m.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "Suite power") || !strings.Contains(string(md), "## Negative controls\n") {
		t.Error("without mutants/, the report has a Suite power section or lacks the controls' matrix")
	}

	dir := sampleWithout(t)
	for _, f := range []string{filepath.Join(dir, MutantsDir, results.MutantsFile), filepath.Join(dir, AlphaDir, "ginkgo-report.json")} {
		if err := os.WriteFile(f, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m = load(t, dir)
	all := strings.Join(m.Problems, "\n")
	for _, want := range []string{"mutants/mutants.json: malformed", "alpha/ginkgo-report.json: malformed"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if m.Power != nil || !m.HasSuite {
		t.Errorf("power %+v, has suite %v", m.Power, m.HasSuite)
	}
	if _, err := m.HTML(); err != nil {
		t.Fatal(err)
	}
}

// The matrix marks a spec that only no-api fails, and a mutant's kill
// under its area's column.
func TestKillMatrix(t *testing.T) {
	control := func(name string, killed ...string) Control {
		c := Control{Name: name, Killed: killed, ran: map[string]bool{}}
		for _, s := range []string{"a", "b", "c"} {
			c.ran[s] = true
		}
		return c
	}
	m := &Model{
		Controls: []Control{control("no-gang", "a"), control(TrivialControl, "a", "b", "c")},
		Power: &Power{Areas: []PowerArea{{Name: "quorum"}, {Name: "status"}}, Killed: []results.MutantVerdict{
			{Name: "q1", Area: "quorum", KilledBy: []string{"c", "d"}},
		}},
	}
	for _, s := range []suiteSpec{{Spec{Name: "a"}, "x"}, {Spec{Name: "b"}, "x"}, {Spec{Name: "c"}, "y"}} {
		m.see(s)
	}
	km := m.killMatrix()
	m.Kills = km
	if !slices.Equal(km.Controls, []string{"no-gang", TrivialControl}) || !slices.Equal(km.MutantAreas, []string{"quorum", "status"}) {
		t.Fatalf("columns = %v, %v", km.Controls, km.MutantAreas)
	}
	rows := map[string]KillRow{}
	var groups []string
	for _, g := range km.Groups {
		groups = append(groups, g.Area)
		for _, r := range g.Rows {
			rows[r.Spec] = r
		}
	}
	// d, which no run read, joins the rows without an area, last.
	if !slices.Equal(groups, []string{"x", "y", ""}) || km.Specs != 4 {
		t.Fatalf("groups = %q, %d specs", groups, km.Specs)
	}
	if !rows["b"].OnlyTrivial || rows["a"].OnlyTrivial || rows["c"].OnlyTrivial || km.OnlyTrivial != 1 {
		t.Errorf("only no-api: a %v, b %v, c %v (count %d): want b alone", rows["a"].OnlyTrivial, rows["b"].OnlyTrivial, rows["c"].OnlyTrivial, km.OnlyTrivial)
	}
	if c := rows["c"].Cells[2]; !c.Killed || !slices.Equal(c.Mutants, []string{"q1"}) || rows["c"].Cells[3].Killed {
		t.Errorf("c's mutant cells = %+v: want q1 under quorum", rows["c"].Cells[2:])
	}
	if d := rows["d"].Cells; d[0].Ran || d[1].Killed || !d[2].Killed {
		t.Errorf("d's cells = %+v", d)
	}

	md, err := m.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| spec | no-gang | no-api | *quorum* | *status* |", "| ⚑ b | · | ● |  |  |", "| c | · | ● | ● |  |", "| **(no area label)** |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	html, err := m.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<tr class="only-trivial"><td>b</td>`) || !strings.Contains(string(html), `title="q1"`) {
		t.Errorf("the HTML matrix does not mark b or name q1:\n%s", html)
	}

	// Without no-api, no spec is marked.
	m.Controls = m.Controls[:1]
	if km := m.killMatrix(); km.TrivialRan || km.OnlyTrivial != 0 {
		t.Errorf("marks without no-api: %+v", km)
	}
}
