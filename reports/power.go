package reports

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gangconf/gangconf/reference-scheduler/mutants"
	"github.com/gangconf/gangconf/suites/framework/results"
)

// MutantsDir is where make mutants writes inside the results directory.
const MutantsDir = "mutants"

// Power is what make mutants found: how many of the mutated reference
// schedulers the suite killed, and those it did not.
type Power struct {
	Score results.Score
	// Judged is how many mutants the campaign judged: those selected
	// (MUTANTS=, default the whole catalogue), or fewer if it was stopped.
	// Ran is how many of them ran against the suites: equivalent mutants
	// are not run, stale and unbuildable ones cannot be. Catalogue is how
	// many the catalogue holds (0 from a campaign that did not say).
	Judged, Ran, Catalogue int
	// Full is set when every suite ran to its end for every mutant, so each
	// kill lists every spec that fails it, not the first.
	Full     bool
	Duration time.Duration
	// ReferenceFailed counts the specs that failed on the unmutated
	// reference in the same sitting.
	ReferenceFailed int
	Areas           []PowerArea
	// Unkilled are the mutants not killed, survivors first: the behaviours
	// the suite may not check, what a reviewer must read.
	Unkilled []results.MutantVerdict
	Killed   []results.MutantVerdict
}

// PowerArea counts one area's mutants by outcome; Other is undecided,
// stale and unbuildable.
type PowerArea struct {
	Name                                string
	Killed, Survived, Equivalent, Other int
}

// unkilledOrder puts the outcomes a reviewer must act on first.
var unkilledOrder = []string{results.Survived, results.Undecided, results.Unbuildable, results.Stale, results.Equivalent}

// loadMutants reads mutants/mutants.json; without it make mutants did not
// run and the report has no Suite power section.
func (m *Model) loadMutants(dir string) {
	var res results.Mutants
	if err := readJSON(filepath.Join(dir, MutantsDir, results.MutantsFile), &res); err != nil {
		if !isMissing(err) {
			m.problem("%s/%s: %v", MutantsDir, results.MutantsFile, err)
		}
		return
	}
	p := &Power{Judged: len(res.Mutants), Catalogue: res.Catalogue, Full: res.Full, ReferenceFailed: len(res.ReferenceFailed),
		Duration: time.Duration(res.Seconds * float64(time.Second)).Round(time.Second)}
	areas := map[string]*PowerArea{}
	for _, v := range res.Mutants {
		a := areas[v.Area]
		if a == nil {
			a = &PowerArea{Name: v.Area}
			areas[v.Area] = a
		}
		switch v.Outcome {
		case results.Killed:
			a.Killed++
			p.Killed = append(p.Killed, v)
		case results.Survived:
			a.Survived++
		case results.Equivalent:
			a.Equivalent++
		default:
			a.Other++
		}
		switch v.Outcome {
		case results.Killed, results.Survived, results.Undecided:
			p.Ran++
		}
		if v.Outcome != results.Killed {
			p.Unkilled = append(p.Unkilled, v)
		}
	}
	// The score is recounted from the verdicts, as make mutants counts it.
	p.Score = results.NewScore(res.Mutants)
	for _, name := range ordered(slices.Collect(maps.Keys(areas)), mutants.Areas) {
		p.Areas = append(p.Areas, *areas[name])
	}
	slices.SortStableFunc(p.Unkilled, func(a, b results.MutantVerdict) int {
		return rank(unkilledOrder, a.Outcome) - rank(unkilledOrder, b.Outcome)
	})
	m.Power = p
}

// Count is how many mutants had an outcome, for the templates.
func (p *Power) Count(outcome string) int { return p.Score.Counts[outcome] }

// Decided is how many mutants the score is taken over: killed or survived.
func (p *Power) Decided() int { return p.Count(results.Killed) + p.Count(results.Survived) }

// KillMatrix says, for each spec, which negative control and which mutants
// (by area) failed it: the evidence that the spec can fail at all.
type KillMatrix struct {
	// Controls and MutantAreas name the columns, in that order.
	Controls    []string
	MutantAreas []string
	Groups      []KillGroup
	// Specs is how many rows there are; OnlyTrivial how many of them only
	// TrivialControl killed, when it ran (TrivialRan).
	Specs, OnlyTrivial int
	TrivialRan         bool
	// FirstKillOnly is set when the mutants stopped at their first failing
	// spec, so the mutant columns show one kill per mutant.
	FirstKillOnly bool
}

// Trivial names TrivialControl, for the templates.
func (KillMatrix) Trivial() string { return TrivialControl }

// Width is the number of the matrix's columns, the specs' included.
func (k KillMatrix) Width() int { return 1 + len(k.Controls) + len(k.MutantAreas) }

// KillGroup is one area's rows.
type KillGroup struct {
	Area string
	Rows []KillRow
}

// KillRow is one spec: a cell per column.
type KillRow struct {
	Spec  string
	Cells []KillCell
	// OnlyTrivial is set when TrivialControl killed the spec and no other
	// control or mutant did.
	OnlyTrivial bool
}

// KillCell is one control's or one mutant area's mark on a spec.
type KillCell struct {
	// Killed: it failed the spec. Ran: a control ran the spec (a mutant's
	// column marks kills only: a mutant's run stops at its first kill).
	Killed, Ran bool
	// Mutants names the area's mutants that killed the spec.
	Mutants []string
}

// killMatrix puts the controls' and the mutants' kills side by side, a row
// per spec that ran in any run or that a mutant killed; nil when neither a
// control nor make mutants ran.
func (m *Model) killMatrix() *KillMatrix {
	if len(m.Controls) == 0 && m.Power == nil {
		return nil
	}
	km := &KillMatrix{}
	for _, c := range m.Controls {
		km.Controls = append(km.Controls, c.Name)
		km.TrivialRan = km.TrivialRan || c.Name == TrivialControl
	}
	// killers[spec][area] are the mutants of that area that killed spec.
	killers := map[string]map[string][]string{}
	if m.Power != nil {
		km.FirstKillOnly = !m.Power.Full
		for _, a := range m.Power.Areas {
			km.MutantAreas = append(km.MutantAreas, a.Name)
		}
		for _, v := range m.Power.Killed {
			for _, spec := range v.KilledBy {
				if killers[spec] == nil {
					killers[spec] = map[string][]string{}
				}
				killers[spec][v.Area] = append(killers[spec][v.Area], v.Name)
			}
		}
	}
	groups := map[string][]KillRow{}
	for _, spec := range slices.Sorted(maps.Keys(m.specs)) {
		if !m.specs[spec].ran && killers[spec] == nil {
			continue
		}
		row := m.killRow(km, spec, killers[spec])
		if row.OnlyTrivial {
			km.OnlyTrivial++
		}
		km.Specs++
		area := m.specs[spec].area
		groups[area] = append(groups[area], row)
	}
	// A mutant may kill a spec no run read; it joins the rows without area.
	for spec, byArea := range killers {
		if _, ok := m.specs[spec]; !ok {
			groups[""] = append(groups[""], m.killRow(km, spec, byArea))
			km.Specs++
		}
	}
	// Areas by name, specs without one last.
	areas := slices.Sorted(maps.Keys(groups))
	if len(areas) > 0 && areas[0] == "" {
		areas = append(areas[1:], "")
	}
	for _, area := range areas {
		rows := groups[area]
		slices.SortFunc(rows, func(a, b KillRow) int { return strings.Compare(a.Spec, b.Spec) })
		km.Groups = append(km.Groups, KillGroup{Area: area, Rows: rows})
	}
	return km
}

// killRow is spec's row: the controls' cells, then the mutant areas'.
func (m *Model) killRow(km *KillMatrix, spec string, byArea map[string][]string) KillRow {
	row := KillRow{Spec: spec}
	trivial, others := false, 0
	for _, c := range m.Controls {
		cell := KillCell{Ran: c.ran[spec], Killed: slices.Contains(c.Killed, spec)}
		row.Cells = append(row.Cells, cell)
		switch {
		case !cell.Killed:
		case c.Name == TrivialControl:
			trivial = true
		default:
			others++
		}
	}
	for _, area := range km.MutantAreas {
		names := byArea[area]
		row.Cells = append(row.Cells, KillCell{Killed: len(names) > 0, Mutants: names})
		others += len(names)
	}
	row.OnlyTrivial = trivial && others == 0
	return row
}
