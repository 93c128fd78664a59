package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const upstream = "../fixtures/results/upstream"

func TestUpstreamComparisonPerWorkloadBothRan(t *testing.T) {
	m := load(t, upstream)
	c := m.Upstream
	if c == nil {
		t.Fatalf("no comparison; problems: %v", m.Problems)
	}
	if !c.SameMachine {
		t.Error("both environments name one machine")
	}
	// The third workload has no upstream throughput: not compared.
	if len(c.Rows) != 2 {
		t.Fatalf("rows = %+v", c.Rows)
	}
	gang, basic := c.Rows[0], c.Rows[1]
	if gang.Workload != "5000Nodes_1000Gangs_3000Pods" || fmt.Sprintf("%.2f %.2f", gang.ThroughputRatio, gang.AttemptRatio) != "0.10 2.50" || !gang.HasAttempt {
		t.Errorf("gang row = %+v: want throughput 34/340 and attempt 40/16", gang)
	}
	if basic.Policy != "basic" || fmt.Sprintf("%.2f", basic.ThroughputRatio) != "0.20" || basic.HasAttempt {
		t.Errorf("basic row = %+v: want throughput 61/305 and no attempt (neither side has it)", basic)
	}
	md, err := m.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## gangconf over upstream scheduler_perf", "both run on one machine (AMD EPYC, 2 cores)",
		"| 5000Nodes_1000Gangs_3000Pods | gang | 3 | 34.0 | 340.0 | 0.10 | 40.0 | 16.0 | 2.50 |",
		"| 5000Nodes_1000Groups_3000Pods | basic | 3 | 61.0 | 305.0 | 0.20 | - | - | - |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	html, err := m.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<h2>gangconf over upstream scheduler_perf</h2>") {
		t.Error("report.html lacks the comparison")
	}
	if strings.Contains(strings.Join(m.Limits, "\n"), "one machine") {
		t.Errorf("a limit about machines when both ran on one: %v", m.Limits)
	}
}

// upstreamFiles are the fixture's files the comparison reads.
var upstreamFiles = []string{"bench/upstream-gangs.json", "bench/upstream-gangs-result.json", "bench-upstream/upstream-gangs.json", "bench-upstream/upstream-gangs-result.json"}

// copyUpstream copies the upstream fixture into dir, each file through
// edit (nil: as it is).
func copyUpstream(t *testing.T, dir string, edit func(file string, data []byte) []byte) {
	t.Helper()
	for _, f := range upstreamFiles {
		data, err := os.ReadFile(filepath.Join(upstream, f))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(f, data)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUpstreamFromAnotherMachineIsFlagged(t *testing.T) {
	dir := t.TempDir()
	copyUpstream(t, dir, func(f string, data []byte) []byte {
		if f != "bench-upstream/upstream-gangs-result.json" {
			return data
		}
		var r map[string]map[string]any
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		r["environment"]["machine"].(map[string]any)["cores"] = 64
		data, _ = json.Marshal(r)
		return data
	})
	m := load(t, dir)
	if m.Upstream == nil || m.Upstream.SameMachine {
		t.Fatalf("comparison = %+v", m.Upstream)
	}
	if !strings.Contains(strings.Join(m.Limits, "\n"), "not known to come from one machine") {
		t.Errorf("limits = %v", m.Limits)
	}
	md, _ := m.Markdown()
	if !strings.Contains(string(md), "**not known to come from one machine**") {
		t.Error("report.md does not say the machines differ")
	}
	// Without gangconf's own run there is nothing to compare with: said, not fatal.
	if err := os.RemoveAll(filepath.Join(dir, "bench")); err != nil {
		t.Fatal(err)
	}
	m = load(t, dir)
	if m.Upstream != nil || !strings.Contains(strings.Join(m.Problems, "\n"), "gangconf's run to compare it with") {
		t.Fatalf("upstream without gangconf's run: %+v, problems %v", m.Upstream, m.Problems)
	}
}

// A ratio far below one keeps its figures: the attempts of upstream's basic
// 1000-member groups and gangconf's differed some 400-fold in one run.
func TestTimesKeepsSmallRatiosReadable(t *testing.T) {
	times := funcs["times"].(func(float64) string)
	for v, want := range map[float64]string{0: "-", 4.8 / 2048: "0.0023", 0.05: "0.05", 0.1: "0.10", 1.934: "1.93", 12: "12.00"} {
		if got := times(v); got != want {
			t.Errorf("times(%g) = %q, want %q", v, got, want)
		}
	}
}

// The comparison says which kind of cluster gangconf's side ran on: kwok's
// pod status writes in the realistic mode, none in the upstream mode.
func TestUpstreamComparisonNamesGangconfsClusterMode(t *testing.T) {
	m := load(t, upstream)
	if m.Upstream == nil || m.Upstream.Gangconf == nil {
		t.Fatalf("no comparison; problems: %v", m.Problems)
	}
	realistic, upstreamMode := "also serves kwok's pod status writes", "on a kwok cluster in upstream mode"
	for _, c := range []struct{ mode, want, not string }{{"", realistic, upstreamMode}, {"realistic", realistic, upstreamMode}, {"upstream", upstreamMode, realistic}} {
		m.Upstream.Gangconf.ClusterMode = c.mode
		md, err := m.Markdown()
		if err != nil {
			t.Fatal(err)
		}
		html, err := m.HTML()
		if err != nil {
			t.Fatal(err)
		}
		for name, doc := range map[string]string{"report.md": string(md), "report.html": string(html)} {
			if !strings.Contains(doc, c.want) || strings.Contains(doc, c.not) {
				t.Errorf("mode %q: %s should say %q and not %q", c.mode, name, c.want, c.not)
			}
		}
	}
}

// make bench-upstream SITTINGS=3: the report gives each figure's median over
// the sittings, the median of their own ratios, and the ranges.
func TestUpstreamSittingsGiveMediansAndRanges(t *testing.T) {
	dir := t.TempDir()
	// Upstream's figures 1, 2 and 4 times the fixture's in sittings 1-3.
	for i, factor := range []string{"1", "2", "4"} {
		copyUpstream(t, filepath.Join(dir, "bench-upstream-sittings", fmt.Sprint(i+1)), func(f string, data []byte) []byte {
			if f == "bench-upstream/upstream-gangs.json" {
				data = []byte(strings.ReplaceAll(string(data), `"Average": 340.0`, `"Average": `+fmt.Sprint(340*map[string]int{"1": 1, "2": 2, "4": 4}[factor])))
			}
			return data
		})
	}
	m := load(t, dir)
	c := m.Upstream
	if c == nil || c.Sittings != 3 || !c.SameMachine {
		t.Fatalf("comparison = %+v; problems: %v", c, m.Problems)
	}
	gang := c.Rows[0]
	got := fmt.Sprintf("%.0f %.0f %.0f-%.0f %.3f %.3f-%.3f %d", gang.Throughput, gang.UpstreamThroughput, gang.UpstreamMin, gang.UpstreamMax,
		gang.ThroughputRatio, gang.RatioMin, gang.RatioMax, gang.Sittings)
	if got != "34 680 340-1360 0.050 0.025-0.100 3" {
		t.Errorf("gang row over 3 sittings = %s", got)
	}
	md, err := m.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Medians over 3 sittings", "| 34.0 | 680.0 (340.0-1360.0) | 0.05 (0.025-0.10) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// One sitting's report says nothing of sittings.
	if one, _ := load(t, upstream).Markdown(); strings.Contains(string(one), "sittings") {
		t.Error("a one-sitting report speaks of sittings")
	}
}
