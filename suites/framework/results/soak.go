package results

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// SoakDir is where `make soak` writes inside the results directory: each
// run in SoakDir/<n>, the table in SoakDir/SoakFile.
const (
	SoakDir  = "soak"
	SoakFile = "soak.json"
)

// Soak is what `make soak` writes and the report reads: every run of the
// core and extended suites against the reference, over every sitting, and
// for each spec how often it ran and failed. A later sitting adds its runs
// to the same file, so the table covers them all.
type Soak struct {
	Runs []SoakRun `json:"runs"`
	// Specs holds every spec that ran in any run, sorted by name: a spec
	// that failed once needs the runs it passed in beside its failures.
	Specs []SoakSpec `json:"specs"`
}

// SoakRun is one run: a make conformance on a fresh cluster.
type SoakRun struct {
	N       int       `json:"n"`
	Commit  string    `json:"commit"`
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Dir is the run's results directory, Log its e2e.log, both relative to
	// the results directory that holds the table.
	Dir string `json:"dir"`
	Log string `json:"log"`
	// Ran counts the specs that passed or failed; Failed names those that
	// failed.
	Ran    int      `json:"ran"`
	Failed []string `json:"failed,omitempty"`
	// Harness says why the run judged no spec, or ended in error though no
	// spec failed: its cluster or scheduler did not start, its build
	// failed, its teardown failed. Such a run is no spec's flake.
	Harness string `json:"harness,omitempty"`
}

// SoakSpec is one spec over every run that ran it.
type SoakSpec struct {
	Spec     string `json:"spec"`
	Runs     int    `json:"runs"`
	Failures int    `json:"failures"`
	// First is its first failure; nil while it never failed.
	First *SoakFailure `json:"firstFailure,omitempty"`
}

// SoakFailure is where and how a spec failed first.
type SoakFailure struct {
	Run     int    `json:"run"`
	Commit  string `json:"commit"`
	Message string `json:"message"`
	Log     string `json:"log"`
}

// SoakOutcome is what one spec did in one run.
type SoakOutcome struct {
	Spec   string
	Failed bool
	// Message is the failure's message.
	Message string
}

// ReadSoak reads the table at path. A missing file is an error that
// os.IsNotExist recognises: the first sitting starts from none.
func ReadSoak(path string) (*Soak, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Soak
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: malformed: %v", path, err)
	}
	return &s, nil
}

// NextRun is the number of the run after the last one recorded.
func (s *Soak) NextRun() int {
	n := 0
	for _, r := range s.Runs {
		n = max(n, r.N)
	}
	return n + 1
}

// Add records a run and what each of its specs did.
func (s *Soak) Add(run SoakRun, outcomes []SoakOutcome) {
	run.Ran, run.Failed = len(outcomes), nil
	for _, o := range outcomes {
		i, found := slices.BinarySearchFunc(s.Specs, o.Spec, func(t SoakSpec, name string) int { return strings.Compare(t.Spec, name) })
		if !found {
			s.Specs = slices.Insert(s.Specs, i, SoakSpec{Spec: o.Spec})
		}
		t := &s.Specs[i]
		t.Runs++
		if !o.Failed {
			continue
		}
		t.Failures++
		run.Failed = append(run.Failed, o.Spec)
		if t.First == nil {
			t.First = &SoakFailure{Run: run.N, Commit: run.Commit, Message: o.Message, Log: run.Log}
		}
	}
	s.Runs = append(s.Runs, run)
}

// Flakes are the specs that failed in some run, the most failures first.
func (s *Soak) Flakes() []SoakSpec {
	var out []SoakSpec
	for _, t := range s.Specs {
		if t.Failures > 0 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b SoakSpec) int { return b.Failures - a.Failures })
	return out
}

// HarnessFailures are the runs that judged no spec for a reason of the
// harness's, or ended in error though no spec failed.
func (s *Soak) HarnessFailures() []SoakRun {
	var out []SoakRun
	for _, r := range s.Runs {
		if r.Harness != "" {
			out = append(out, r)
		}
	}
	return out
}

// SoakCommit counts the runs made at one commit.
type SoakCommit struct {
	Commit string
	Runs   int
}

// Commits counts the runs at each commit, in the order they first ran.
func (s *Soak) Commits() []SoakCommit {
	var out []SoakCommit
	for _, r := range s.Runs {
		i := slices.IndexFunc(out, func(c SoakCommit) bool { return c.Commit == r.Commit })
		if i < 0 {
			out = append(out, SoakCommit{Commit: r.Commit})
			i = len(out) - 1
		}
		out[i].Runs++
	}
	return out
}

// Summary says the table in one line: "12 runs at commit 0f7f687, 3 at
// 4f68e07, 0 flakes", with the flaky specs and harness failures counted.
func (s *Soak) Summary() string {
	var parts []string
	for i, c := range s.Commits() {
		format := "%d at %s"
		if i == 0 {
			format = "%d runs at commit %s"
			if c.Runs == 1 {
				format = "%d run at commit %s"
			}
		}
		parts = append(parts, fmt.Sprintf(format, c.Runs, ShortCommit(c.Commit)))
	}
	if len(parts) == 0 {
		parts = append(parts, "no runs")
	}
	if n := len(s.Flakes()); n > 0 {
		parts = append(parts, count(n, "flaky spec"))
	} else {
		parts = append(parts, "0 flakes")
	}
	if n := len(s.HarnessFailures()); n > 0 {
		parts = append(parts, count(n, "harness failure"))
	}
	return strings.Join(parts, ", ")
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// ShortCommit is a commit as git abbreviates it, seven hex digits, with the
// -dirty a run from a changed work tree carries.
func ShortCommit(c string) string {
	hash, dirty := strings.CutSuffix(c, "-dirty")
	if len(hash) > 7 {
		hash = hash[:7]
	}
	if dirty {
		hash += "-dirty"
	}
	return hash
}
