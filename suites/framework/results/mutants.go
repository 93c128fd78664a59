package results

import (
	"fmt"
	"strings"
	"time"
)

// MutantsFile is where `make mutants` writes its results, in RESULTS/mutants.
const MutantsFile = "mutants.json"

// Mutants is what `make mutants` writes and the report reads: each
// mutant's verdict and the mutation score.
type Mutants struct {
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Full is set when every suite ran to its end for every mutant
	// (MUTANTS_FULL=1), so KilledBy lists every killing spec, not the first.
	Full bool `json:"full"`
	// Catalogue is how many mutants the catalogue holds, of which MUTANTS=
	// selected those in Mutants.
	Catalogue int `json:"catalogue"`
	// ReferenceFailed lists the specs that failed on the unmutated reference
	// in the same sitting: a mutant failing only these is undecided.
	ReferenceFailed []string        `json:"referenceFailed,omitempty"`
	Mutants         []MutantVerdict `json:"mutants"`
	Score           Score           `json:"score"`
}

// MutantVerdict is one mutant's verdict.
type MutantVerdict struct {
	Name    string `json:"name"`
	Area    string `json:"area"`
	Kind    string `json:"kind"`
	Bug     string `json:"bug"`
	Outcome string `json:"outcome"`
	// KilledBy are the specs that failed on the mutant and passed on the
	// reference.
	KilledBy []string `json:"killedBy,omitempty"`
	// Reason says why a mutant is equivalent, stale, unbuildable or
	// undecided.
	Reason       string   `json:"reason,omitempty"`
	Suites       []string `json:"suites,omitempty"`
	BuildSeconds float64  `json:"buildSeconds,omitempty"`
	RunSeconds   float64  `json:"runSeconds,omitempty"`
}

// Outcomes of a mutant.
const (
	// Killed: some spec failed that passed on the reference.
	Killed = "killed"
	// Survived: every spec that ran passed.
	Survived = "survived"
	// Undecided: its only failures also failed on the reference, or its
	// run left no report; no kill may rest on a flake.
	Undecided = "undecided"
	// Equivalent: it behaves as the reference does, for a written reason;
	// not run, not in the score.
	Equivalent = "equivalent"
	// Stale: its rule no longer matches the pinned source.
	Stale = "stale"
	// Unbuildable: the mutated source did not compile.
	Unbuildable = "unbuildable"
)

// Score counts outcomes. The score is the share of the mutants that ran to
// a verdict (killed or survived) that the suite killed; equivalent, stale,
// unbuildable and undecided mutants are outside it and counted beside it.
type Score struct {
	Counts map[string]int `json:"counts"`
	// Percent is killed over killed + survived; 0 when neither.
	Percent float64 `json:"percent"`
}

// NewScore tallies the verdicts' outcomes.
func NewScore(verdicts []MutantVerdict) Score {
	s := Score{Counts: map[string]int{}}
	for _, v := range verdicts {
		s.Counts[v.Outcome]++
	}
	if n := s.Counts[Killed] + s.Counts[Survived]; n > 0 {
		s.Percent = 100 * float64(s.Counts[Killed]) / float64(n)
	}
	return s
}

// String is the score as one line.
func (s Score) String() string {
	var parts []string
	for _, o := range []string{Killed, Survived, Undecided, Equivalent, Stale, Unbuildable} {
		if s.Counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", s.Counts[o], o))
		}
	}
	return fmt.Sprintf("mutation score %.1f%% (%s)", s.Percent, strings.Join(parts, ", "))
}
