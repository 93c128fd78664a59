package reports

import (
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
)

// Soak is what make soak found over every sitting: the specs that failed in
// some run of the reference, and the runs the harness failed.
type Soak struct {
	// Summary is the runs by commit and the flakes, in one line.
	Summary string
	// Median, Fastest and Slowest are the durations of the runs that
	// judged their specs; zero without any.
	Median, Fastest, Slowest time.Duration
	Flakes                   []Flake
	HarnessFailures          []HarnessFailure
}

// Flake is a spec that failed in some soak run.
type Flake struct {
	Spec           string
	Failures, Runs int
	// First is its first failure's first line, from run FirstRun at Commit;
	// Log that run's e2e.log, relative to the results directory.
	First, Commit, Log string
	FirstRun           int
}

// HarnessFailure is a run that judged no spec for a reason of the
// harness's, or ended in error though no spec failed.
type HarnessFailure struct {
	Run                  int
	Commit, Message, Log string
}

// loadSoak reads soak/soak.json; without it make soak did not run and the
// report has no Soak section.
func (m *Model) loadSoak(dir string) {
	var table results.Soak
	rel := path.Join(results.SoakDir, results.SoakFile)
	if err := readJSON(filepath.Join(dir, rel), &table); err != nil {
		if !isMissing(err) {
			m.problem("%s: %v", rel, err)
		}
		return
	}
	s := &Soak{Summary: table.Summary()}
	var took []time.Duration
	for _, r := range table.Runs {
		if r.Harness == "" {
			took = append(took, time.Duration(r.Seconds*float64(time.Second)).Round(time.Second))
		}
	}
	if len(took) > 0 {
		s.Median, s.Fastest, s.Slowest = results.Median(took), slices.Min(took), slices.Max(took)
	}
	for _, f := range table.Flakes() {
		s.Flakes = append(s.Flakes, Flake{Spec: f.Spec, Failures: f.Failures, Runs: f.Runs, First: firstLine(Redact(f.First.Message)),
			Commit: results.ShortCommit(f.First.Commit), Log: f.First.Log, FirstRun: f.First.Run})
	}
	for _, r := range table.HarnessFailures() {
		s.HarnessFailures = append(s.HarnessFailures, HarnessFailure{Run: r.N, Commit: results.ShortCommit(r.Commit),
			Message: firstLine(Redact(r.Harness)), Log: r.Log})
	}
	m.Soak = s
}
