package reports

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/gangconf/gangconf/suites/framework/controls"
	"github.com/gangconf/gangconf/suites/framework/kinds"
)

// MatrixControl is one negative control on each version.
type MatrixControl struct {
	Name, Breaks string
	Cells        []ControlCell
	// Kills has a row per spec the control failed on some version.
	Kills []MatrixKillRow
}

// ControlCell is a control's runs on one version.
type ControlCell struct {
	// Ran is false when the control did not run on this version.
	Ran bool
	// Failed of Specs that ran failed, in the runs Runs names.
	Failed, Specs int
	Runs          []string
	// Checked is set when the runs were held against the controls record;
	// Mismatches are what that check found, none when the kills are as
	// recorded.
	Checked    bool
	Mismatches []string
}

// MatrixKillRow is one spec: whether the control failed it on each version.
type MatrixKillRow struct {
	Spec  string
	Cells []KillCell
	// Changed is set when the control failed the spec on one version and
	// passed it on another.
	Changed bool
}

// alphaLabelFilter is the label filter make control-alpha checks a control's
// alpha run with: that run covers the alpha profile's specs only.
const alphaLabelFilter = "profile:alpha"

// loadControls puts each control's runs on each version side by side and
// holds each against the controls record, as make control does.
func (x *Matrix) loadControls(dir, record string) {
	rec := x.loadRecord(record)
	byName := map[string]*MatrixControl{}
	// runs[name][i] is the control on version i; nil where it did not run.
	runs := map[string][]*Control{}
	for i, v := range x.Versions {
		for _, c := range v.model.Controls {
			if byName[c.Name] == nil {
				byName[c.Name] = &MatrixControl{Name: c.Name, Breaks: c.Breaks, Cells: make([]ControlCell, len(x.Versions))}
				runs[c.Name] = make([]*Control, len(x.Versions))
			}
			runs[c.Name][i] = &c
			cell := ControlCell{Ran: true, Failed: len(c.Killed), Specs: c.Ran, Runs: c.Runs}
			if rec != nil {
				cell.Checked, cell.Mismatches = true, checkRecord(rec, filepath.Join(dir, v.Name), c)
			}
			byName[c.Name].Cells[i] = cell
		}
	}
	for _, name := range ordered(slices.Collect(maps.Keys(byName)), kinds.Names(kinds.Control)) {
		mc := byName[name]
		mc.Kills = killRows(runs[name])
		x.Controls = append(x.Controls, *mc)
	}
}

// loadRecord reads the controls record; nil without one.
func (x *Matrix) loadRecord(record string) *controls.Record {
	if record == "" {
		return nil
	}
	rec, err := controls.Load(record)
	if err != nil {
		x.problem("controls record: %v", short(err))
		return nil
	}
	return rec
}

// checkRecord holds each run of control c in the version's directory dir
// against the record, as make control and make control-alpha do.
func checkRecord(rec *controls.Record, dir string, c Control) []string {
	var out []string
	for _, run := range c.Runs {
		sub, filter := "", ""
		if run == RunAlpha {
			sub, filter = AlphaDir, alphaLabelFilter
		}
		problems, _, err := rec.CheckRun(c.Name, filepath.Join(dir, sub, "controls", c.Name, "ginkgo-report.json"), filter)
		if err != nil {
			// Load read it a moment ago; say so without the machine's path.
			problems = append(problems, fmt.Sprintf("the %s run's report could not be checked again", run))
		}
		out = append(out, problems...)
	}
	return out
}

// killRows has a row per spec the control failed on any version, by name.
func killRows(runs []*Control) []MatrixKillRow {
	specs := map[string]bool{}
	for _, c := range runs {
		if c != nil {
			for _, s := range c.Killed {
				specs[s] = true
			}
		}
	}
	var out []MatrixKillRow
	for _, spec := range slices.Sorted(maps.Keys(specs)) {
		row := MatrixKillRow{Spec: spec}
		outcomes := map[bool]bool{}
		for _, c := range runs {
			var cell KillCell
			if c != nil {
				cell = KillCell{Killed: slices.Contains(c.Killed, spec), Ran: c.ran[spec]}
			}
			if cell.Ran {
				outcomes[cell.Killed] = true
			}
			row.Cells = append(row.Cells, cell)
		}
		row.Changed = len(outcomes) > 1
		out = append(out, row)
	}
	return out
}
