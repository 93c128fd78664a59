package reports

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/gangconf/gangconf/suites/framework/results"
	"github.com/gangconf/gangconf/suites/framework/versions"
)

// Matrix is the matrix report: the same suites, controls and benchmark run on
// each Kubernetes version (make matrix, one results directory per version),
// side by side, the benchmark's figures as ratios over the lowest version's.
type Matrix struct {
	Generated time.Time
	// Versions are the versions with results, lowest first: the columns.
	Versions []MatrixVersion
	// Verdicts has a row per profile, a verdict per version.
	Verdicts []MatrixVerdict
	Areas    []MatrixArea
	// Changed are the specs whose result differs between versions.
	Changed  []MatrixSpec
	Controls []MatrixControl
	Bench    []MatrixScenario
	// FigureChanges are benchmark figures some versions have and others lack.
	FigureChanges []FigureChange
	// Declared are the differences package versions declares for each later
	// version that do not hold on the first.
	Declared []DeclaredChanges
	// SameMachine is set when every version's runs recorded one machine,
	// Machine: only then do the ratios compare versions, not machines.
	SameMachine bool
	Machine     results.Machine
	// From and To are the earliest and the latest run the environments
	// recorded: the sitting the figures come from.
	From, To time.Time
	// Problems are versions and files the report needed and could not read.
	Problems []string
}

// MatrixVersion is one version's results directory.
type MatrixVersion struct {
	// Name is the directory's name, the version make matrix ran.
	Name        string
	Environment *results.Environment
	model       *Model
}

// MatrixVerdict is one profile's verdict on each version.
type MatrixVerdict struct {
	Profile string
	Cells   []Verdict
}

// MatrixArea groups the rows of one area label.
type MatrixArea struct {
	Name  string
	Specs []MatrixSpec
}

// MatrixSpec is one spec's result on each version.
type MatrixSpec struct {
	Name, Area, Profile, Item string
	Cells                     []SpecCell
	// Changed is set when its result differs between versions.
	Changed bool
}

// SpecCell is a spec's result on one version; State is empty when that
// version's runs did not have the spec.
type SpecCell struct {
	State string
	// Line is the first line of a failure or of a skip's reason.
	Line string
	// Log is the run's e2e.log, relative to the matrix directory.
	Log string
}

// DeclaredChanges are the declared differences that hold on Version.
type DeclaredChanges struct {
	Version string
	Changes []versions.Change
}

// First is the version the ratios are taken over.
func (x *Matrix) First() MatrixVersion { return x.Versions[0] }

// Later are the versions whose figures are put over the first's.
func (x *Matrix) Later() []MatrixVersion { return x.Versions[1:] }

// LoadMatrix reads every subdirectory of dir that holds results and is named
// as a Kubernetes version. expected lists the versions the matrix should
// hold: those without results are named among the problems. record is the
// controls record each control's kills are held against ("": none).
func LoadMatrix(dir string, expected []string, record string) *Matrix {
	x := &Matrix{Generated: time.Now().UTC().Truncate(time.Second)}
	x.findVersions(dir, expected)
	if len(x.Versions) == 0 {
		return x
	}
	first := filepath.Join(dir, x.Versions[0].Name)
	baseline := ""
	if files, _ := filepath.Glob(filepath.Join(first, "bench", "*-result.json")); len(files) > 0 {
		baseline = first
	}
	for i := range x.Versions {
		v := &x.Versions[i]
		// The first version is the others' baseline: Load puts their
		// benchmark figures over its figures.
		if i == 0 {
			v.model = Load(filepath.Join(dir, v.Name), "")
		} else {
			v.model = Load(filepath.Join(dir, v.Name), baseline)
		}
		v.Environment = v.model.Environment
		for _, p := range v.model.Problems {
			x.problem("%s: %s", v.Name, p)
		}
		x.checkServerVersion(*v)
	}
	x.loadSpecs()
	x.loadVerdicts()
	x.loadControls(dir, record)
	x.loadBench()
	x.loadDeclared()
	x.Machine, x.SameMachine = x.sameMachine()
	return x
}

func (x *Matrix) problem(format string, args ...any) {
	x.Problems = append(x.Problems, fmt.Sprintf(format, args...))
}

// findVersions lists dir's subdirectories that hold results, lowest version
// first, and names the expected versions none of them is.
func (x *Matrix) findVersions(dir string, expected []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		x.problem("%s: %v", filepath.Base(dir), short(err))
	}
	parsed := map[string]*version.Version{}
	for _, e := range entries {
		if !e.IsDir() || !holdsResults(filepath.Join(dir, e.Name())) {
			continue
		}
		v, err := version.Parse(e.Name())
		if err != nil {
			x.problem("%s: not named as a Kubernetes version, left out", e.Name())
			continue
		}
		parsed[e.Name()] = v
		x.Versions = append(x.Versions, MatrixVersion{Name: e.Name()})
	}
	slices.SortFunc(x.Versions, func(a, b MatrixVersion) int {
		switch va, vb := parsed[a.Name], parsed[b.Name]; {
		case va.LessThan(vb):
			return -1
		case vb.LessThan(va):
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, want := range expected {
		if _, ok := parsed[want]; !ok {
			x.problem("%s: no results (make matrix did not run this version, or it stopped before writing any)", want)
		}
	}
}

// holdsResults says whether dir holds anything make conformance, make
// control or make bench writes.
func holdsResults(dir string) bool {
	for _, name := range []string{"environment.json", "ginkgo-report.json", "junit_01.xml", "bench", "controls", AlphaDir} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// checkServerVersion names a version whose API server reported another
// version than its directory's name.
func (x *Matrix) checkServerVersion(v MatrixVersion) {
	if v.Environment == nil {
		return
	}
	got, err := version.Parse(v.Environment.KubernetesVersion)
	if err == nil && !got.EqualTo(version.MustParse(v.Name)) {
		x.problem("%s: the API server reported %s: the directory's name and its run disagree", v.Name, v.Environment.KubernetesVersion)
	}
}

// loadSpecs puts each spec's result on each version in one row, by area.
func (x *Matrix) loadSpecs() {
	byName := map[string]*MatrixSpec{}
	for i, v := range x.Versions {
		for _, a := range v.model.Areas {
			for _, s := range a.Specs {
				row := byName[s.Name]
				if row == nil {
					row = &MatrixSpec{Name: s.Name, Area: a.Name, Profile: s.Profile, Item: s.Item, Cells: make([]SpecCell, len(x.Versions))}
					byName[s.Name] = row
				}
				row.Cells[i] = SpecCell{State: s.State, Line: firstLine(s.Failure), Log: path.Join(v.Name, s.Log)}
			}
		}
	}
	var specs []MatrixSpec
	for _, row := range byName {
		row.Changed = x.differs(row.Cells)
		specs = append(specs, *row)
	}
	slices.SortFunc(specs, func(a, b MatrixSpec) int {
		return strings.Compare(a.Area+"\x00"+a.Name, b.Area+"\x00"+b.Name)
	})
	for _, s := range specs {
		if n := len(x.Areas); n == 0 || x.Areas[n-1].Name != s.Area {
			x.Areas = append(x.Areas, MatrixArea{Name: s.Area})
		}
		x.Areas[len(x.Areas)-1].Specs = append(x.Areas[len(x.Areas)-1].Specs, s)
		if s.Changed {
			x.Changed = append(x.Changed, s)
		}
	}
}

// differs says whether a spec's state differs between the versions whose
// suite ran: a version without a suite run is a problem of its own.
func (x *Matrix) differs(cells []SpecCell) bool {
	states := map[string]bool{}
	for i, c := range cells {
		if x.Versions[i].model.HasSuite {
			states[c.State] = true
		}
	}
	return len(states) > 1
}

// loadVerdicts gives each profile's verdict on each version; a version
// without a suite run has every profile not run.
func (x *Matrix) loadVerdicts() {
	for i, p := range Profiles {
		row := MatrixVerdict{Profile: p}
		for _, v := range x.Versions {
			cell := Verdict{Profile: p}
			if v.model.HasSuite {
				cell = v.model.Verdicts[i]
			}
			row.Cells = append(row.Cells, cell)
		}
		x.Verdicts = append(x.Verdicts, row)
	}
}

// loadDeclared lists, for each later version, the declared differences that
// hold on it and not on the first.
func (x *Matrix) loadDeclared() {
	first := x.First().Name
	for _, v := range x.Later() {
		d := DeclaredChanges{Version: v.Name}
		for _, c := range versions.Of(v.Name) {
			if !c.Applies(first) {
				d.Changes = append(d.Changes, c)
			}
		}
		x.Declared = append(x.Declared, d)
	}
}

// sameMachine says whether every version recorded an environment and all
// the environments, the benchmarks' own included, name one machine, and
// which.
func (x *Matrix) sameMachine() (results.Machine, bool) {
	var machines []results.Machine
	everyVersion := true
	for _, v := range x.Versions {
		known := len(machines)
		for _, e := range append([]*results.Environment{v.Environment}, benchEnvironments(v.model)...) {
			if e != nil {
				machines = append(machines, e.Machine)
				x.sawDate(e.Date)
			}
		}
		everyVersion = everyVersion && len(machines) > known
	}
	if !everyVersion {
		return results.Machine{}, false
	}
	for _, m := range machines {
		if !sameMachine(m, machines[0]) {
			return results.Machine{}, false
		}
	}
	return machines[0], true
}

// sawDate widens From and To to a run's date.
func (x *Matrix) sawDate(d time.Time) {
	if x.From.IsZero() || d.Before(x.From) {
		x.From = d
	}
	if d.After(x.To) {
		x.To = d
	}
}

// benchEnvironments are the environments the benchmarks of a run recorded.
func benchEnvironments(m *Model) []*results.Environment {
	var out []*results.Environment
	for _, sc := range m.Bench {
		out = append(out, sc.Environment)
	}
	return out
}
