package results

import "testing"

func TestScoreLeavesOutWhatRanToNoVerdict(t *testing.T) {
	var verdicts []MutantVerdict
	for _, o := range []string{Killed, Killed, Killed, Survived, Equivalent, Undecided, Stale, Unbuildable} {
		verdicts = append(verdicts, MutantVerdict{Outcome: o})
	}
	s := NewScore(verdicts)
	if s.Percent != 75 {
		t.Errorf("percent %.1f, want 75 (3 killed of 3 killed + 1 survived)", s.Percent)
	}
	if got := s.String(); got != "mutation score 75.0% (3 killed, 1 survived, 1 undecided, 1 equivalent, 1 stale, 1 unbuildable)" {
		t.Errorf("String() = %q", got)
	}
}
