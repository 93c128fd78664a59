package mutation

import (
	"fmt"
	"sort"
	"strings"
)

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

// Judge compares a mutant's results with the reference's failures (spec ->
// failed on the reference). It returns the specs that kill the mutant, and
// those that failed on both.
func Judge(reference map[string]bool, results []Result) (killers, alsoOnReference []string) {
	for _, r := range results {
		switch {
		case !r.Killed():
		case reference[r.Spec]:
			alsoOnReference = append(alsoOnReference, r.Spec)
		default:
			killers = append(killers, r.Spec)
		}
	}
	sort.Strings(killers)
	sort.Strings(alsoOnReference)
	return killers, alsoOnReference
}

// Failures is the set of specs that a reference run failed.
func Failures(results []Result) map[string]bool {
	out := map[string]bool{}
	for _, r := range results {
		if r.Killed() {
			out[r.Spec] = true
		}
	}
	return out
}

// Score counts outcomes. The score is the share of the mutants that ran to
// a verdict (killed or survived) that the suite killed; equivalent, stale,
// unbuildable and undecided mutants are outside it and counted beside it.
type Score struct {
	Counts map[string]int `json:"counts"`
	// Percent is killed over killed + survived; 0 when neither.
	Percent float64 `json:"percent"`
}

// NewScore tallies outcomes.
func NewScore(outcomes []string) Score {
	s := Score{Counts: map[string]int{}}
	for _, o := range outcomes {
		s.Counts[o]++
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
