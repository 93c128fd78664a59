package reports

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gangconf/gangconf/suites/framework/results"
)

func loadMatrix(t *testing.T, dir string, expected ...string) *Matrix {
	t.Helper()
	x := LoadMatrix(dir, expected, writeRecord(t))
	// A fixed time keeps the output comparable with the golden files.
	x.Generated = time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC)
	return x
}

func TestMatrixReportMatchesGolden(t *testing.T) {
	x := loadMatrix(t, matrixFixture(t), older, newer)
	if len(x.Problems) != 0 {
		t.Fatalf("problems with complete results: %v", x.Problems)
	}
	md, err := x.Markdown()
	must(t, err)
	html, err := x.HTML()
	must(t, err)
	golden(t, "matrix.md", md)
	golden(t, "matrix.html", html)
}

func TestMatrixPutsEachSpecOnEachVersion(t *testing.T) {
	x := loadMatrix(t, matrixFixture(t))
	if len(x.Versions) != 2 || x.Versions[0].Name != older || x.Versions[1].Name != newer {
		t.Fatalf("versions = %+v", x.Versions)
	}
	cells := map[string]string{}
	for _, a := range x.Areas {
		for _, s := range a.Specs {
			var states []string
			for _, c := range s.Cells {
				states = append(states, c.State+" "+c.Line)
			}
			cells[a.Name+": "+s.Name] = strings.Join(states, " | ")
		}
	}
	for spec, want := range map[string]string{
		"all-or-nothing: " + fitsSpec.name(): "passed  | passed ",
		"quorum: " + quorumSpec.name():       "passed  | failed Timed out after 30s: 3 of 4 members bound\n...",
		"topology: " + rackSpec.name():       "skipped the cluster lacks alpha gate TopologyAwareWorkloadScheduling | skipped the cluster lacks alpha gate TopologyAwareWorkloadScheduling",
	} {
		if cells[spec] != want {
			t.Errorf("%s: %q, want %q", spec, cells[spec], want)
		}
	}
	if len(x.Changed) != 1 || x.Changed[0].Name != quorumSpec.name() || x.Changed[0].Cells[1].Log != newer+"/e2e.log" {
		t.Errorf("changed specs = %+v, want the quorum spec alone, its log in its version's directory", x.Changed)
	}
	core := x.Verdicts[0]
	if core.Profile != "core" || !core.Cells[0].Conformant || core.Cells[1].Conformant || core.Cells[1].Passed != 2 || core.Cells[1].Total != 3 {
		t.Errorf("core verdicts = %+v", core)
	}
	if len(x.Declared) != 1 || x.Declared[0].Version != newer || len(x.Declared[0].Changes) == 0 {
		t.Errorf("declared changes = %+v: want v1.38's", x.Declared)
	}
}

func TestMatrixHoldsEachControlAgainstTheRecord(t *testing.T) {
	x := loadMatrix(t, matrixFixture(t))
	if len(x.Controls) != 1 || x.Controls[0].Name != "no-gang" {
		t.Fatalf("controls = %+v", x.Controls)
	}
	c := x.Controls[0]
	if cell := c.Cells[0]; !cell.Checked || len(cell.Mismatches) != 0 || cell.Failed != 2 || cell.Specs != 3 {
		t.Errorf("no-gang on %s = %+v: want 2 of 3 failed, as recorded", older, cell)
	}
	if cell := c.Cells[1]; len(cell.Mismatches) != 1 || !strings.Contains(cell.Mismatches[0], "PASSED \""+noFitSpec.name()) {
		t.Errorf("no-gang on %s = %+v: want the spec it passed and must fail", newer, cell)
	}
	var changed []string
	for _, r := range c.Kills {
		if r.Changed {
			changed = append(changed, r.Spec)
		}
	}
	if len(c.Kills) != 2 || !slices.Equal(changed, []string{noFitSpec.name()}) {
		t.Errorf("kill rows = %+v", c.Kills)
	}
}

// figureTable is the scenario's table of the figure named.
func figureTable(t *testing.T, sc MatrixScenario, figure string) FigureTable {
	t.Helper()
	for _, tb := range sc.Tables {
		if tb.Figure == figure {
			return tb
		}
	}
	t.Fatalf("no table %q", figure)
	return FigureTable{}
}

func TestMatrixBenchRatiosOverTheFirstVersion(t *testing.T) {
	x := loadMatrix(t, matrixFixture(t))
	if len(x.Bench) != 1 || !x.SameMachine {
		t.Fatalf("bench = %+v, same machine %t", x.Bench, x.SameMachine)
	}
	sc := x.Bench[0]
	got := map[string]string{}
	for _, figure := range []string{"gang latency p50, ms", "gang latency p90, ms", "throughput, pods/s", "CPU time per pod bound, ms", "machine speed: calibration medians, ms"} {
		for _, r := range figureTable(t, sc, figure).Rows {
			got[figure+": "+strings.Join(r.Labels, " ")] = rowText(r)
		}
	}
	for row, want := range map[string]string{
		"gang latency p50, ms: 8gpu 4 sequential":       "200.0 300.0 1.500",
		"gang latency p90, ms: 8gpu 4 sequential":       "280.0 560.0 2.000",
		"gang latency p50, ms: 8gpu 8 sequential":       "- 500.0 -",
		"throughput, pods/s: 4Gangs_4Pods 4 concurrent": "100.0 80.0 0.800",
		"throughput, pods/s: 8gpu 4 sequential":         "20.0 20.0 -",
		"CPU time per pod bound, ms: scheduler":         "20.0 30.0 1.500",
		"CPU time per pod bound, ms: " + MachineProcess: "40.0 40.0 1.000",
		"machine speed: calibration medians, ms: sort":  "10.0 10.0 1.000",
	} {
		if got[row] != want {
			t.Errorf("%s: %q, want %q", row, got[row], want)
		}
	}
	// The p50 ratios Load compared: 8gpu's 1.5 and the concurrent one's 1.
	if len(sc.Geomeans) != 1 || math.Abs(sc.Geomeans[0]-math.Sqrt(1.5)) > 1e-9 {
		t.Errorf("geomeans = %v", sc.Geomeans)
	}
	var changes []string
	for _, c := range x.FigureChanges {
		changes = append(changes, c.Figure+": "+strings.Join(c.Has, ",")+" / "+strings.Join(c.Lacks, ","))
	}
	want := []string{"metric " + results.ItemAttempt + ": " + older + " / " + newer, "workload 8gpu size 8: " + newer + " / " + older}
	if !slices.Equal(changes, want) {
		t.Errorf("figure changes = %q, want %q", changes, want)
	}
}

// rowText is a row's values, then its ratios ("-" for none).
func rowText(r FigureRow) string {
	parts := slices.Clone(r.Values)
	for _, x := range r.Ratios {
		if x == 0 {
			parts = append(parts, "-")
		} else {
			parts = append(parts, fmt.Sprintf("%.3f", x))
		}
	}
	return strings.Join(parts, " ")
}

// Versions sort as Kubernetes versions, a pre-release before its release;
// a directory without results is no version, one named otherwise is named.
func TestMatrixVersionsInKubernetesOrder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"v1.38.0", "v1.38.0-beta.0", "v1.9.0", "v1.37.2", "notes"} {
		must(t, results.WriteJSON(filepath.Join(dir, name, "environment.json"), environment(name, 0)))
	}
	must(t, os.Mkdir(filepath.Join(dir, "plots"), 0o755))
	x := LoadMatrix(dir, nil, "")
	var names []string
	for _, v := range x.Versions {
		names = append(names, v.Name)
	}
	if want := []string{"v1.9.0", "v1.37.2", "v1.38.0-beta.0", "v1.38.0"}; !slices.Equal(names, want) {
		t.Errorf("versions = %v, want %v", names, want)
	}
	if all := strings.Join(x.Problems, "\n"); !strings.Contains(all, "notes: not named as a Kubernetes version") || strings.Contains(all, "plots") {
		t.Errorf("problems = %v", x.Problems)
	}
}

// A missing version, a missing file and a malformed one are each named in
// the report, which still renders; machines that differ make the ratios
// say so.
func TestMatrixSaysWhatIsMissing(t *testing.T) {
	dir := matrixFixture(t)
	must(t, os.Remove(filepath.Join(dir, newer, "ginkgo-report.json")))
	must(t, os.WriteFile(filepath.Join(dir, older, "environment.json"), []byte("{"), 0o644))
	elsewhere := environment(newer, 30)
	elsewhere.Machine.CPUModel = "Intel Xeon"
	must(t, results.WriteJSON(filepath.Join(dir, newer, "environment.json"), elsewhere))
	x := loadMatrix(t, dir, older, newer, "v1.39.0")
	all := strings.Join(x.Problems, "\n")
	for _, want := range []string{newer + ": ginkgo-report.json: missing", older + ": environment.json: malformed", "v1.39.0: no results"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if x.SameMachine {
		t.Error("one machine, though the newer version's suite ran on another")
	}
	md, err := x.Markdown()
	must(t, err)
	_, err = x.HTML()
	must(t, err)
	for _, want := range []string{"## Missing or unreadable results", "not known to come from one machine", "unknown: no environment.json"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Without the newer version's suite, no spec counts as changed.
	if len(x.Changed) != 0 {
		t.Errorf("changed specs = %+v", x.Changed)
	}
}
