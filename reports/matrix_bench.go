package reports

import (
	"slices"
)

// MatrixScenario is one benchmark scenario on each version.
type MatrixScenario struct {
	Name   string
	Tables []FigureTable
	// Geomeans are the geometric means of each later version's p50 ratios
	// (Agreement.Geomean); zero where it has none.
	Geomeans []float64
}

// FigureTable is one figure of a scenario on each version and, when
// Ratioed, each later version's over the first's.
type FigureTable struct {
	Figure string
	// Note says how to read the figure; may be empty.
	Note string
	// Heads name the rows' label columns.
	Heads   []string
	Rows    []FigureRow
	Ratioed bool
}

// FigureRow is one row of a FigureTable.
type FigureRow struct {
	Labels []string
	// Values are the figure on each version, as the report writes it; "-"
	// where a version has none.
	Values []string
	// Ratios are each later version's figure over the first's; zero where
	// either lacks it.
	Ratios []float64
}

// FigureChange is a benchmark figure some versions have and others lack.
type FigureChange struct {
	Scenario, Figure string
	Has, Lacks       []string
}

// rowFigure is one figure of a benchmark row: its value as the report
// writes it ("" for none) and the ratio Load took over the baseline's.
type rowFigure struct {
	figure, note string
	value        func(BenchRow) string
	ratio        func(BenchRow) float64
}

var rowFigures = []rowFigure{
	{"gang latency p50, ms", "", func(r BenchRow) string { return oneDecimal(r.P50) },
		func(r BenchRow) float64 { return r.BaselineRatio }},
	{"gang latency p90, ms", "", func(r BenchRow) string { return oneDecimal(r.P90) },
		func(r BenchRow) float64 { return r.BaselineP90Ratio }},
	{"throughput, pods/s", "Ratios for the concurrent workloads only: a sequential workload's throughput is each gang's size over its latency, which the p50's ratio tells.",
		func(r BenchRow) string { return rate(r.Throughput) }, func(r BenchRow) float64 { return r.BaselineThroughputRatio }},
	{"server-side podgroup attempt p50, ms", "The scheduler's own histogram, interpolated inside the power-of-two bucket shown; \"-\": the version's scheduler exposed none.",
		func(r BenchRow) string { return r.ServerP50 }, nil},
}

// loadBench puts each scenario's figures on each version side by side.
func (x *Matrix) loadBench() {
	var names []string
	for _, v := range x.Versions {
		for _, sc := range v.model.Bench {
			if !slices.Contains(names, sc.Name) {
				names = append(names, sc.Name)
			}
		}
	}
	for _, name := range names {
		// per[i] is the scenario on version i; nil where it did not run.
		per := make([]*Scenario, len(x.Versions))
		for i, v := range x.Versions {
			if j := slices.IndexFunc(v.model.Bench, func(sc Scenario) bool { return sc.Name == name }); j >= 0 {
				per[i] = &v.model.Bench[j]
			}
		}
		sc := MatrixScenario{Name: name, Tables: benchTables(per)}
		for _, s := range per[1:] {
			g := 0.0
			if s != nil && s.Agreement != nil {
				g = s.Agreement.Geomean
			}
			sc.Geomeans = append(sc.Geomeans, g)
		}
		x.Bench = append(x.Bench, sc)
		x.figureChanges(name, per)
	}
}

// benchTables are a scenario's tables: one per figure of its rows, then
// each process's CPU time per pod bound and the machine's calibration.
func benchTables(per []*Scenario) []FigureTable {
	keys := rowKeys(per)
	var out []FigureTable
	for _, f := range rowFigures {
		t := FigureTable{Figure: f.figure, Note: f.note, Heads: []string{"workload", "size", "mode"}, Ratioed: f.ratio != nil}
		for _, key := range keys {
			value := func(i int) string {
				if r, ok := rowNamed(per[i], key); ok {
					return f.value(r)
				}
				return ""
			}
			var ratio func(int) float64
			if f.ratio != nil {
				// A version without the row has a zero row: no ratio.
				ratio = func(i int) float64 { r, _ := rowNamed(per[i], key); return f.ratio(r) }
			}
			t.Rows = append(t.Rows, figureRow(rowLabels(per, key), len(per), value, ratio))
		}
		out = append(out, t)
	}
	return append(out, costTable(per), calibrationTable(per))
}

// figureRow makes a row of n versions' values, each from value ("": none),
// and when ratio is not nil, each later version's ratio.
func figureRow(labels []string, n int, value func(i int) string, ratio func(i int) float64) FigureRow {
	row := FigureRow{Labels: labels}
	for i := range n {
		v := value(i)
		if v == "" {
			v = "-"
		}
		row.Values = append(row.Values, v)
		if i > 0 && ratio != nil {
			row.Ratios = append(row.Ratios, ratio(i))
		}
	}
	return row
}

// rowKeys lists the DataItems names of the scenario's rows on every
// version, in the first version's order, then those only later ones have.
func rowKeys(per []*Scenario) []string {
	var keys []string
	for _, sc := range per {
		if sc == nil {
			continue
		}
		for _, r := range sc.Rows {
			if !slices.Contains(keys, r.name) {
				keys = append(keys, r.name)
			}
		}
	}
	return keys
}

// rowNamed is sc's row of DataItems name key.
func rowNamed(sc *Scenario, key string) (BenchRow, bool) {
	if sc == nil {
		return BenchRow{}, false
	}
	i := slices.IndexFunc(sc.Rows, func(r BenchRow) bool { return r.name == key })
	if i < 0 {
		return BenchRow{}, false
	}
	return sc.Rows[i], true
}

// rowLabels are the workload, size and mode of the row key, from the first
// version that has it.
func rowLabels(per []*Scenario, key string) []string {
	for _, sc := range per {
		if r, ok := rowNamed(sc, key); ok {
			return []string{r.Workload, r.Size, r.Mode}
		}
	}
	return []string{key, "", ""}
}

// costTable is each process's CPU time per pod bound on each version, with
// the ratios Load took in its agreement with the baseline.
func costTable(per []*Scenario) FigureTable {
	t := FigureTable{Figure: "CPU time per pod bound, ms", Heads: []string{"process"}, Ratioed: true,
		Note: "Each version's processes are its own builds: a ratio is what the version costs per pod and the machine's move together; the calibration below tells the machine's part."}
	var processes []string
	for _, sc := range per {
		for _, c := range scenarioCost(sc) {
			if !slices.Contains(processes, c.Process) {
				processes = append(processes, c.Process)
			}
		}
	}
	for _, p := range processes {
		value := func(i int) string {
			for _, c := range scenarioCost(per[i]) {
				if c.Process == p && c.PerPodMs > 0 {
					return oneDecimal(c.PerPodMs)
				}
			}
			return ""
		}
		ratio := func(i int) float64 {
			for _, c := range agreementOf(per[i]).Cost {
				if c.Process == p {
					return c.Ratio
				}
			}
			return 0
		}
		t.Rows = append(t.Rows, figureRow([]string{p}, len(per), value, ratio))
	}
	return t
}

// calibrationTable is the machine's speed during each version's run: the
// medians of the fixed work timed before each measurement.
func calibrationTable(per []*Scenario) FigureTable {
	t := FigureTable{Figure: "machine speed: calibration medians, ms", Heads: []string{"fixed work"}, Ratioed: true,
		Note: "The same work on every version: a ratio away from 1 is the machine's move between the runs, not Kubernetes'."}
	for _, w := range []struct {
		name   string
		median func(*Scenario) float64
		ratio  func(*Agreement) float64
	}{
		{"sort", func(s *Scenario) float64 { return s.CalibrationSort }, func(a *Agreement) float64 { return a.SortRatio }},
		{"memory walk", func(s *Scenario) float64 { return s.CalibrationMemory }, func(a *Agreement) float64 { return a.MemoryRatio }},
	} {
		value := func(i int) string {
			if s := per[i]; s != nil && s.CalibrationSamples > 0 {
				return oneDecimal(w.median(s))
			}
			return ""
		}
		t.Rows = append(t.Rows, figureRow([]string{w.name}, len(per), value, func(i int) float64 { return w.ratio(agreementOf(per[i])) }))
	}
	return t
}

func scenarioCost(sc *Scenario) []ProcessCost {
	if sc == nil {
		return nil
	}
	return sc.Cost
}

// agreementOf is sc's agreement with the first version, empty without one.
func agreementOf(sc *Scenario) *Agreement {
	if sc == nil || sc.Agreement == nil {
		return &Agreement{}
	}
	return sc.Agreement
}

// figureChanges lists what of scenario name some versions have and others
// lack: the scenario itself, a DataItems metric (a server-side histogram the
// scheduler exposes on one version only), a workload's size.
func (x *Matrix) figureChanges(name string, per []*Scenario) {
	ran := func(i int) bool { return per[i] != nil }
	x.noteChange(name, "the scenario", ran, func(int) bool { return true })
	var metrics []string
	for _, sc := range per {
		if sc != nil {
			metrics = append(metrics, sc.Metrics...)
		}
	}
	slices.Sort(metrics)
	for _, m := range slices.Compact(metrics) {
		x.noteChange(name, "metric "+m, func(i int) bool { return slices.Contains(per[i].Metrics, m) }, ran)
	}
	for _, key := range rowKeys(per) {
		l := rowLabels(per, key)
		x.noteChange(name, "workload "+l[0]+" size "+l[1], func(i int) bool { _, ok := rowNamed(per[i], key); return ok }, ran)
	}
}

// noteChange adds figure of scenario to FigureChanges when, among the
// versions among selects, some have it and others do not.
func (x *Matrix) noteChange(scenario, figure string, has, among func(i int) bool) {
	c := FigureChange{Scenario: scenario, Figure: figure}
	for i, v := range x.Versions {
		switch {
		case !among(i):
		case has(i):
			c.Has = append(c.Has, v.Name)
		default:
			c.Lacks = append(c.Lacks, v.Name)
		}
	}
	if len(c.Has) > 0 && len(c.Lacks) > 0 {
		x.FigureChanges = append(x.FigureChanges, c)
	}
}
