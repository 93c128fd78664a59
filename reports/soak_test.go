package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/soak"
)

// writeSoak writes the soak runs' Ginkgo reports into dir/soak/<n> (a run
// without outcomes leaves none), and the table of them as two sittings
// make it: the first runs at one commit, the rest at another, each sitting
// adding to the file the one before wrote.
func writeSoak(t *testing.T, dir string, first int, runs ...[]outcome) {
	t.Helper()
	path := filepath.Join(dir, results.SoakDir, results.SoakFile)
	for i, outcomes := range runs {
		run := soak.NewRun(i+1, "1111111aaaa")
		if i >= first {
			run.Commit = "2222222bbbb-dirty"
		}
		run.Seconds = float64(100 * (i + 1))
		if outcomes != nil {
			writeSuite(t, filepath.Join(dir, run.Dir), outcomes...)
		}
		table, err := results.ReadSoak(path)
		if os.IsNotExist(err) {
			table, err = &results.Soak{}, nil
		}
		must(t, err)
		table.Add(run, soak.Judge(dir, &run, nil))
		must(t, results.WriteJSON(path, table))
	}
}

func TestSoakSectionListsFlakesAndHarnessFailuresByCommit(t *testing.T) {
	dir := t.TempDir()
	flake := "Timed out after 30s: 3 of 4 members bound, token: s3cret\nthe gang's timeline"
	writeSoak(t, dir, 2,
		[]outcome{passed(fitsSpec), passed(quorumSpec), skippedForGate(rackSpec)},
		[]outcome{passed(fitsSpec), failed(quorumSpec, flake)},
		nil,
		[]outcome{passed(fitsSpec), failed(quorumSpec, "another message")})
	m := load(t, dir)
	s := m.Soak
	if s == nil {
		t.Fatalf("no Soak section; problems %v", m.Problems)
	}
	if want := "2 runs at commit 1111111, 2 at 2222222-dirty, 1 flaky spec, 1 harness failure"; s.Summary != want {
		t.Errorf("summary %q, want %q", s.Summary, want)
	}
	if s.Median != 200e9 || s.Fastest != 100e9 || s.Slowest != 400e9 {
		t.Errorf("run times: median %s, %s to %s; want the runs that judged specs: 3m20s, 1m40s to 6m40s", s.Median, s.Fastest, s.Slowest)
	}
	want := Flake{Spec: quorumSpec.name(), Failures: 2, Runs: 3, First: "Timed out after 30s: 3 of 4 members bound, token: [redacted]\n...",
		Commit: "1111111", Log: "soak/2/e2e.log", FirstRun: 2}
	if len(s.Flakes) != 1 || s.Flakes[0] != want {
		t.Errorf("flakes %+v, want %+v", s.Flakes, want)
	}
	if h := s.HarnessFailures; len(h) != 1 || h[0].Run != 3 || h[0].Commit != "2222222-dirty" || h[0].Log != "soak/3/make.log" ||
		!strings.HasPrefix(h[0].Message, "no Ginkgo report") {
		t.Errorf("harness failures %+v, want run 3's, which left no report", h)
	}
	md, err := m.Markdown()
	must(t, err)
	html, err := m.HTML()
	must(t, err)
	for _, line := range []string{
		"**2 runs at commit 1111111, 2 at 2222222-dirty, 1 flaky spec, 1 harness failure.**",
		"| " + quorumSpec.name() + " | 2 / 3 | run 2 at 1111111: `Timed out after 30s: 3 of 4 members bound, token: [redacted] ...` | [soak/2/e2e.log](soak/2/e2e.log) |",
		"| 3 | 2222222-dirty | `no Ginkgo report",
	} {
		if !strings.Contains(string(md), line) {
			t.Errorf("report.md lacks %q:\n%s", line, md)
		}
	}
	if !strings.Contains(string(html), `<h2 id="soak">Soak</h2>`) || !strings.Contains(string(html), `<a href="soak/2/e2e.log">`) || strings.Contains(string(html), "s3cret") {
		t.Error("report.html lacks the Soak section or the link to the flake's log, or quotes the token")
	}
}

func TestSoakWithoutFlakesSaysSoAndAMalformedTableIsAProblem(t *testing.T) {
	dir := t.TempDir()
	writeSoak(t, dir, 1, []outcome{passed(fitsSpec)})
	md, err := load(t, dir).Markdown()
	must(t, err)
	if !strings.Contains(string(md), "**1 run at commit 1111111, 0 flakes.**") || !strings.Contains(string(md), "No spec failed in any run.") {
		t.Errorf("report.md of a soak without flakes:\n%s", md)
	}
	must(t, os.WriteFile(filepath.Join(dir, results.SoakDir, results.SoakFile), []byte("{not json"), 0o644))
	m := load(t, dir)
	if m.Soak != nil || !strings.Contains(strings.Join(m.Problems, "\n"), "soak/soak.json: malformed") {
		t.Errorf("a malformed table: soak %+v, problems %v", m.Soak, m.Problems)
	}
}
