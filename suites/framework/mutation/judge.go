package mutation

import "sort"

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
