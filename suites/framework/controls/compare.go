package controls

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Comparison is a run of the suite set against a run on the reference
// scheduler, spec by spec: what a vendor's run did differently.
type Comparison struct {
	// Same counts specs with the reference's outcome (or passing where the
	// reference skipped).
	Same int
	// Excused are specs the run skipped for a reason the caller accepts
	// (what the harness cannot do on a cluster it did not make).
	Excused []Difference
	// Differences are specs that passed on the reference and did not pass
	// in the run, or that the reference failed.
	Differences []Difference
}

// Difference is one spec whose outcome differs between the two runs.
type Difference struct {
	Spec           string
	Reference, Run types.SpecState
	// Reason is why the run (or, when it failed there, the reference)
	// skipped or failed it.
	Reason string
}

// Compare sets a run's outcomes against the reference's. excused says
// whether a skip reason is one the comparison accepts.
func Compare(reference, run []Outcome, excused func(reason string) bool) Comparison {
	got := map[string]Outcome{}
	for _, o := range run {
		got[o.Spec] = o
	}
	var c Comparison
	for _, ref := range reference {
		o, ok := got[ref.Spec]
		if !ok {
			o = Outcome{Spec: ref.Spec, State: types.SpecStateInvalid, Reason: "not in the run's report"}
		}
		d := Difference{Spec: ref.Spec, Reference: ref.State, Run: o.State, Reason: o.Reason}
		switch {
		case ref.State.Is(types.SpecStateFailureStates):
			d.Reason = "the reference failed it: " + ref.Reason
			c.Differences = append(c.Differences, d)
		case o.State == ref.State || o.State == types.SpecStatePassed:
			c.Same++
		case o.State == types.SpecStateSkipped && excused(o.Reason):
			c.Excused = append(c.Excused, d)
		default:
			c.Differences = append(c.Differences, d)
		}
	}
	sort.Slice(c.Differences, func(i, j int) bool { return c.Differences[i].Spec < c.Differences[j].Spec })
	sort.Slice(c.Excused, func(i, j int) bool { return c.Excused[i].Spec < c.Excused[j].Spec })
	return c
}

// Err is nil when the run did what the reference did, but for excused skips.
func (c Comparison) Err() error {
	if len(c.Differences) == 0 {
		return nil
	}
	return fmt.Errorf("%d specs did not do what they did on the reference", len(c.Differences))
}

// Write prints the comparison as Markdown: a summary line and a table of
// every spec that differs, excused or not.
func (c Comparison) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d specs as on the reference, %d differ, %d skipped for what the harness cannot do on this cluster\n",
		c.Same, len(c.Differences), len(c.Excused))
	if len(c.Differences)+len(c.Excused) > 0 {
		b.WriteString("\n| spec | reference | this run | why |\n| --- | --- | --- | --- |\n")
		row := func(d Difference, excused bool) {
			why := d.Reason
			if excused {
				why = "excused: " + why
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(d.Spec), d.Reference, d.Run, cell(why))
		}
		for _, d := range c.Differences {
			row(d, false)
		}
		for _, d := range c.Excused {
			row(d, true)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell keeps a table cell on one line.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
