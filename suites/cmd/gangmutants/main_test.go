package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gangconf/gangconf/suites/framework/results"
)

func TestBadMutantsSettingsAreRejectedBeforeAnySuiteRuns(t *testing.T) {
	for _, c := range []struct {
		name, procs, full, want string
	}{
		{"procs that are no number", "four", "", `PROCS="four" is not a positive number`},
		{"no procs", "0", "", `PROCS="0" is not a positive number`},
		{"a full run that is not 0 or 1", "", "yes please", `MUTANTS_FULL="yes please" is not 0 or 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PROCS", c.procs)
			t.Setenv("MUTANTS_FULL", c.full)
			_, err := campaign(context.Background(), nil, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestMinimumScoreIsAPercentageTheScoreMustReach(t *testing.T) {
	score := func(killed, survived int) results.Score {
		return results.Score{Counts: map[string]int{results.Killed: killed, results.Survived: survived},
			Percent: 100 * float64(killed) / float64(max(killed+survived, 1))}
	}
	for _, c := range []struct {
		name  string
		score results.Score
		min   string
		want  string // "" when the score passes
	}{
		{"no minimum", score(1, 1), "", ""},
		{"reached", score(3, 1), "75", ""},
		{"below", score(1, 1), "75", "mutation score 50.0% is below MUTANTS_MIN_SCORE=75"},
		{"nothing judged", score(0, 0), "0", "mutation score 0.0% is below MUTANTS_MIN_SCORE=0"},
		{"no percentage", score(1, 0), "all", `MUTANTS_MIN_SCORE="all" is not a percentage`},
		{"over 100", score(1, 0), "101", `MUTANTS_MIN_SCORE="101" is not a percentage`},
	} {
		err := checkScore(c.score, c.min)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}
